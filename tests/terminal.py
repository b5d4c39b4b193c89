"""The real program in a pseudo-terminal of a given size, its screen read as a person sees it.

``Terminal`` starts a command on a pty, feeds everything it writes to a VT100 emulator (pyte)
and answers its cursor-position queries as a terminal would. ``wait_for`` waits for text to
appear on the screen (woken by each read, bounded by a timeout); ``text`` is the screen now.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pyte

from tests.patience import patient

VENV_BIN = Path(sys.executable).parent


class _Screen(pyte.Screen):
    """A pyte screen that sends its answers (cursor position reports) back to the program."""

    def __init__(self, columns: int, lines: int, answer: Callable[[str], None]) -> None:
        super().__init__(columns, lines)
        self._answer = answer

    def write_process_input(self, data: str) -> None:
        self._answer(data)


class Terminal:
    """``argv`` running on a ``columns`` x ``lines`` pseudo-terminal."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        columns: int = 80,
        lines: int = 24,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self._master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        full = dict(os.environ if env is None else env)
        full.setdefault("TERM", "xterm")
        self.proc = subprocess.Popen(
            list(argv),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=full,
            cwd=cwd,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self.screen = _Screen(columns, lines, self.send)
        self._stream = pyte.ByteStream(self.screen)
        self._changed = threading.Condition()
        self._closed = False
        self.raw = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self._master, 65536)
            except OSError:
                data = b""
            with self._changed:
                if not data:
                    self._closed = True
                    self._changed.notify_all()
                    return
                self.raw += data
                self._stream.feed(data)
                self._changed.notify_all()

    def raw_mode(self, timeout: float = 20.0) -> None:
        """Wait until the program reads keys one by one (a full-screen program has set up).

        Until then the terminal still edits lines and swallows Ctrl-Q as flow control.
        """
        deadline = time.monotonic() + patient(timeout)
        while termios.tcgetattr(self._master)[3] & termios.ICANON:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"the program never read single keys:\n{self.text()}")
            time.sleep(0.01)

    def send(self, keys: str | bytes) -> None:
        """Type ``keys`` (text, or raw bytes such as escape sequences) once keys are read."""
        self.raw_mode()
        data = keys.encode() if isinstance(keys, str) else keys
        with contextlib.suppress(OSError):
            os.write(self._master, data)

    def type_lines(self, text: str) -> None:
        """Type ``text`` into a program that reads whole lines (no full-screen set-up)."""
        with contextlib.suppress(OSError):
            os.write(self._master, text.replace("\n", "\r").encode())

    def resize(self, columns: int, lines: int) -> None:
        """Make the window ``columns`` x ``lines``, as a person dragging its corner does."""
        with self._changed:
            fcntl.ioctl(self._master, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
            self.screen.resize(lines, columns)
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGWINCH)  # not its controlling terminal: told here

    def text(self) -> str:
        """The screen as lines of text (trailing spaces removed)."""
        with self._changed:
            return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, condition: str | Callable[[str], bool], timeout: float = 20.0) -> str:
        """Wait until ``condition`` (text on the screen, or a test of it) holds; return the screen.

        Raises:
            AssertionError: it did not hold within ``timeout`` seconds (the screen is shown).
        """
        test = (lambda s: condition in s) if isinstance(condition, str) else condition
        deadline = time.monotonic() + patient(timeout)
        with self._changed:
            while True:
                screen = "\n".join(line.rstrip() for line in self.screen.display)
                if test(screen):
                    return screen
                left = deadline - time.monotonic()
                if left <= 0 or (self._closed and not test(screen)):
                    if self._closed and left > 0:
                        raise AssertionError(f"the program ended; the screen:\n{screen}")
                    raise AssertionError(
                        f"not on the screen after {patient(timeout):g} s:\n{screen}"
                    )
                self._changed.wait(left)

    def wait_exit(self, timeout: float = 20.0) -> int:
        """Wait for the program to end; return its exit code."""
        code = self.proc.wait(patient(timeout))
        self._reader.join(patient(timeout))
        return code

    def close(self) -> None:
        """End the program if it still runs, and release the terminal."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._reader.join(10)
        with contextlib.suppress(OSError):
            os.close(self._master)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment as in a new shell: no virtual environment on the PATH, its own home."""
    path = os.pathsep.join(
        p
        for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
        if p and Path(p).resolve() != VENV_BIN.resolve()
    )
    env = {
        "PATH": path or "/usr/bin:/bin",
        "HOME": str(home),
        "SANTORINI_HOME": str(home / "santorini"),
        "LANG": "C.UTF-8",
        "TERM": "xterm",
    }
    env.update(extra)
    return env
