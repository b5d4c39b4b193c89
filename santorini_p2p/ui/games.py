"""Local games kept as signed replay files under ``$SANTORINI_HOME/games/``, and the recent list.

A game on this terminal (against the computer, or hot-seat) becomes the same kind of file as a
network game: a header, the commit-reveal draw, every action with its acknowledgements and the
results, each record signed (protocol/SPEC.md). The first person at the terminal signs with
this player's own key; the other seats (the computer, the other people of a hot-seat game) with
keys derived from it for that game alone. The draw is made from the records before the game
starts, so the game is played from exactly the position the file's draw gives.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, cast

from santorini_p2p.engine import GodMode, Position, new_game
from santorini_p2p.engine.gods import GOD_NAMES
from santorini_p2p.errors import SantoriniError
from santorini_p2p.wire.draw import draw_seed, draw_setup
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import Validator, encode_frames, make_header, seal

__all__ = [
    "GAMES_DIR",
    "Event",
    "Recording",
    "games_dir",
    "private_dir",
    "recent_games",
    "write_private",
]

GAMES_DIR: Final = "games"
"""The directory under ``$SANTORINI_HOME`` that holds every game's replay file."""

_SEAT_DOMAIN: Final = b"santorini-p2p/1 local seat\x00"
_NONCE_DOMAIN: Final = b"santorini-p2p/1 local nonce\x00"
_GAME_DOMAIN: Final = b"santorini-p2p/1 local game\x00"

Event = tuple[str, int | str, int]
"""One step of a local game as the log records it: ``("act", text, clock_ms)``,
``("resign", seat, 0)`` or ``("timeout", seat, 0)``."""


def games_dir(home: Path) -> Path:
    """Return the directory of replay files under ``home``."""
    return home / GAMES_DIR


def private_dir(path: Path) -> Path:
    """Create ``path`` (and its parents) readable by this user only (0700); return it."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    return path


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, readable by this user only (0600).

    Raises:
        OSError: it cannot be written.
    """
    private_dir(path.parent)
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(part, path)


@dataclass(frozen=True, slots=True)
class Recording:
    """What a local game needs to become a replay file: its id, date, players' keys and rules.

    ``identities`` are in the game's seat order at the start (the local game's players).
    """

    me: Identity
    game_id: bytes
    created_ms: int
    names: tuple[str, ...]
    gods: GodMode
    move_ms: int
    bank_ms: int
    pool: tuple[str, ...] = ()

    @classmethod
    def new(
        cls,
        me: Identity,
        names: Sequence[str],
        gods: GodMode,
        *,
        move_ms: int = 0,
        bank_ms: int = 0,
        seed: int | None = None,
        pool: tuple[str, ...] = (),
    ) -> Recording:
        """A new game of ``names`` (the first is ``me``); ``seed`` fixes its id and its draw.

        ``pool`` is the gods the game draws from (empty: the ten simple gods).
        """
        if seed is None:
            game_id = os.urandom(16)
        else:
            text = f"{seed}:{len(names)}:{gods}".encode()
            if pool:
                text += b":" + ",".join(pool).encode()
            game_id = hashlib.blake2b(_GAME_DOMAIN + text, digest_size=16).digest()
        return cls(
            me,
            game_id,
            time.time_ns() // 1_000_000,
            (me.name, *names[1:]),
            gods,
            move_ms,
            bank_ms,
            pool,
        )

    @property
    def players(self) -> int:
        """The number of players."""
        return len(self.names)

    def identity(self, player: int) -> Identity:
        """The key of the game's ``player`` (0: this player's own)."""
        if player == 0:
            return self.me
        seed = hashlib.blake2b(
            _SEAT_DOMAIN + self.me.seed + self.game_id + bytes([player]), digest_size=32
        ).digest()
        return Identity.from_seed(seed, self.names[player])

    def _nonce(self, slot: int) -> bytes:
        return hashlib.blake2b(
            _NONCE_DOMAIN + self.me.seed + self.game_id + bytes([slot]), digest_size=32
        ).digest()

    def _draw(self) -> tuple[int, tuple[str, ...]]:
        nonces = tuple(self._nonce(slot) for slot in range(self.players))
        return draw_setup(
            draw_seed(self.game_id, nonces), self.players, self.gods, self.pool or GOD_NAMES
        )

    def start(self) -> Position:
        """The position the file's draw gives: the game is played from it."""
        _, drawn = self._draw()
        return new_game(self.players, self.gods, drawn=drawn, offer=self.pool)

    def to_json(self) -> dict[str, object]:
        """The recording as the local game's journal keeps it (no secret in it)."""
        return {
            "game_id": self.game_id.hex(),
            "created_ms": self.created_ms,
            "names": list(self.names),
            "gods": self.gods,
            "time": [self.move_ms, self.bank_ms],
            "key": self.me.public_key.hex(),
            **({"pool": list(self.pool)} if self.pool else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, object], me: Identity) -> Recording:
        """The recording kept in a journal, for the same player ``me``.

        Raises:
            ValueError: it is malformed, or it was made with another key.
        """
        if data.get("key") != me.public_key.hex():
            raise ValueError("the game was recorded with another key")
        names = data["names"]
        move, bank = cast(list[int], data["time"])
        if not isinstance(names, list):
            raise ValueError("names: expected a list")
        pool = data.get("pool", [])
        if not isinstance(pool, list):
            raise ValueError("pool: expected a list")
        first = str(names[0]) if names and names[0] else me.name
        if first != me.name:  # seat 1's name as the game was begun under (Player 1, ann)
            me = Identity.from_seed(me.seed, first)
        return cls(
            me,
            bytes.fromhex(str(data["game_id"])),
            int(cast(int, data["created_ms"])),
            (me.name, *(str(n) for n in names[1:])),
            cast(GodMode, str(data["gods"])),
            int(move),
            int(bank),
            tuple(str(g) for g in pool),
        )

    def records(self, events: Sequence[Event]) -> list[bytes]:
        """The signed records of the game played as ``events``, with every seat's result.

        Raises:
            SantoriniError: an event does not fit the game (a bug: the game checked it).
        """
        n = self.players
        start, _ = self._draw()
        by_player = [self.identity(i) for i in range(n)]
        # Slot (start + i) % n becomes seat i: player i sits at seat i, as in the local game.
        by_slot = [by_player[(slot - start) % n] for slot in range(n)]
        header = make_header(
            self.game_id,
            [(i.public_key, i.name) for i in by_slot],
            gods=self.gods,
            pool=self.pool,
            move_ms=self.move_ms,
            bank_ms=self.bank_ms,
            created_ms=self.created_ms,
        )
        v = Validator()
        out: list[bytes] = []

        def add(raw: bytes) -> None:
            v.feed(raw)
            out.append(raw)

        add(seal(by_slot[0], header))
        for slot, ident in enumerate(by_slot):
            add(v.make_commit(ident, self._nonce(slot)))
        for slot, ident in enumerate(by_slot):
            add(v.make_reveal(ident, self._nonce(slot)))
        key = {i.public_key: i for i in by_player}
        for kind, what, ms in events:
            p = v.position
            assert p is not None
            if kind == "act":
                add(v.make_act(key[v.seats[p.to_move]], str(what), ms))
                for seat in v.pending_acks:
                    add(v.make_ack(key[v.seats[seat]]))
            elif kind == "resign":
                add(v.make_resign(key[v.seats[int(what)]]))
            else:
                gone = p.eliminated if p.players == 3 else 0
                claimer = next(s for s in range(p.players) if s != p.to_move and not gone >> s & 1)
                add(v.make_timeout(key[v.seats[claimer]]))
        for seat in range(n):
            add(v.make_result(key[v.seats[seat]]))
        return out

    def file_name(self) -> str:
        """The replay file's name: its date and the start of the game id."""
        stamp = datetime.fromtimestamp(self.created_ms / 1000, UTC).strftime("%Y%m%d-%H%M%S")
        return f"local-{stamp}-{self.game_id.hex()[:8]}.sntr"

    def save(self, home: Path, events: Sequence[Event]) -> Path:
        """Write the finished game to ``home/games/``; return the file.

        Raises:
            OSError: it cannot be written.
        """
        path = games_dir(home) / self.file_name()
        write_private(path, encode_frames(self.records(events)))
        return path


def recent_games(home: Path, limit: int = 12) -> list[tuple[Path, str]]:
    """The newest finished games under ``home/games/`` with a line on each, newest first.

    A label names the players (with their gods), then on a second line the date and the
    result. Files that are not
    finished games (unfinished network journals, stop reports) are left out.
    """
    from santorini_p2p.replay.export_text import load_timeline

    d = games_dir(home)
    if not d.is_dir():
        return []
    files = []
    for f in d.glob("*.sntr"):
        with contextlib.suppress(OSError):
            files.append((f.stat().st_mtime, f))
    files.sort(reverse=True)
    out: list[tuple[float, Path, str]] = []
    for _, f in files:
        if len(out) == limit:
            break
        if f.stem.endswith("-stop"):
            continue
        try:
            t = load_timeline(f.read_bytes())
        except (OSError, ValueError, SantoriniError):
            continue
        if t.result is None or t.header is None:
            continue
        players = " vs ".join(
            p.name + (f" ({p.god})" if p.god not in ("", "?") else "") for p in t.players
        )
        when = t.date[:16] if t.date else "no date"
        out.append((t.header.created_ms, f, f"{players}\n{when}: {t.result_text}"))
    out.sort(key=lambda x: x[0], reverse=True)
    return [(f, line) for _, f, line in out]
