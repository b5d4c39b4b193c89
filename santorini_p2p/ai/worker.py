"""The computer opponent's search in a process of its own, for the console.

A search in a thread shares the interpreter lock with the console, which then redraws each
keystroke at half speed or worse (benchmarks/console.py). ``SearchProcess`` runs
``choose_action`` in one worker process instead, started on first use with the ``spawn``
method (safe beside the console's and ZeroMQ's threads) and kept for the next turns.

It behaves like a call in a thread: the caller's stop event stops the search (relayed to the
worker through a shared event), errors come back as they were raised, and the random
generator's state travels to the worker and back, so a seeded game plays the same actions.
If the worker cannot be started or dies, the search runs in the calling thread instead.
"""

from __future__ import annotations

import logging
import multiprocessing
import random
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.synchronize import Event as SharedEvent

from santorini_p2p.ai.search import StopFlag, choose_action
from santorini_p2p.engine import Action, Phase, Position

__all__ = ["SearchProcess"]

LOG = logging.getLogger(__name__)

_STOP_POLL_S = 0.02
"""How often the caller's stop event is looked at while the worker searches (seconds)."""
_STOP_GRACE_S = 5.0
"""How long a stopped search may take to answer before the worker is given up (seconds)."""

_RNGState = tuple[object, ...]


class _Sampled:
    """The shared stop event, read every 64th time it is asked.

    The search asks at every node, and reading a shared event costs several times as much as
    reading a thread's.
    """

    def __init__(self, event: SharedEvent) -> None:
        self._event = event
        self._calls = 0
        self._set = False

    def is_set(self) -> bool:
        if not self._set:
            self._calls += 1
            if self._calls & 63 == 0:
                self._set = self._event.is_set()
        return self._set


_WORKER_STOP: SharedEvent | None = None
"""In the worker process: the stop event shared with its parent."""


def _start_worker(stop: SharedEvent) -> None:
    global _WORKER_STOP
    _WORKER_STOP = stop


def _search_job(
    position: Position,
    level: str,
    state: _RNGState,
    think: float | None,
    nodes: int | None,
) -> tuple[Action, _RNGState]:
    """In the worker: choose an action; return it with the generator's state after."""
    rng = random.Random()
    rng.setstate(state)
    stop = _Sampled(_WORKER_STOP) if _WORKER_STOP is not None else None
    action = choose_action(position, level, rng=rng, think=think, nodes=nodes, stop=stop)
    return action, rng.getstate()


class SearchProcess:
    """One worker process that runs the computer opponent's searches, one at a time."""

    def __init__(self) -> None:
        self._context = multiprocessing.get_context("spawn")
        self._stop: SharedEvent | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> tuple[ProcessPoolExecutor, SharedEvent]:
        # Made on first use: a system without shared semaphores fails here (OSError,
        # ImportError), and the search then runs in the calling thread.
        if self._stop is None:
            self._stop = self._context.Event()
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                1, mp_context=self._context, initializer=_start_worker, initargs=(self._stop,)
            )
        return self._pool, self._stop

    def choose(
        self,
        position: Position,
        level: str,
        rng: random.Random,
        stop: StopFlag,
        *,
        think: float | None = None,
        nodes: int | None = None,
    ) -> Action:
        """``choose_action`` in the worker; returns when it has chosen or ``stop`` is set.

        Setting up and the random level are quick and run in this thread.

        Raises:
            ValueError: as ``choose_action`` (an unknown level, a game that is over).
        """
        if level == "random" or position.phase is not Phase.PLAY:
            return choose_action(position, level, rng=rng, think=think, nodes=nodes, stop=stop)
        with self._lock:
            try:
                pool, shared = self._executor()
                shared.clear()
                job = pool.submit(_search_job, position, level, rng.getstate(), think, nodes)
                action, state = self._wait(job, stop, shared)
            except (BrokenProcessPool, OSError, ImportError, RuntimeError) as e:
                self._lost(e)
                return choose_action(position, level, rng=rng, think=think, nodes=nodes, stop=stop)
        rng.setstate(state)
        return action

    def _wait(
        self, job: Future[tuple[Action, _RNGState]], stop: StopFlag, shared: SharedEvent
    ) -> tuple[Action, _RNGState]:
        done = threading.Event()
        job.add_done_callback(lambda _: done.set())
        while not done.wait(_STOP_POLL_S):
            if stop.is_set():
                shared.set()
                if not done.wait(_STOP_GRACE_S):
                    raise RuntimeError(f"no answer {_STOP_GRACE_S:.0f} s after the stop")
        return job.result()

    def _lost(self, e: BaseException) -> None:
        LOG.warning("the search process is not available (%s); searching in this thread", e)
        # A worker that does not answer is ended (from the executor's own table of them,
        # which shutting it down empties).
        procs = list((getattr(self._pool, "_processes", None) or {}).values())
        self.close()
        for proc in procs:
            proc.kill()

    def close(self) -> None:
        """Stop any search and end the worker (a later search starts a new one)."""
        if self._stop is not None:
            self._stop.set()
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
