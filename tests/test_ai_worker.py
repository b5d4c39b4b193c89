"""The search process: same choices as a search in a thread, stopped on time, never lost."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import threading
import time

import pytest

from santorini_p2p.ai import choose_action
from santorini_p2p.ai.worker import SearchProcess
from santorini_p2p.engine import Phase, Position, apply_action, legal_actions, new_game
from santorini_p2p.ui.local import LocalGame, Player, ai_chooser


def _midgame(seed: int, plies: int = 6) -> Position:
    rng = random.Random(seed)
    p = new_game(2)
    while p.phase is not Phase.PLAY:
        p = apply_action(p, rng.choice(legal_actions(p)))
    for _ in range(plies):
        p = apply_action(p, rng.choice(legal_actions(p)))
    assert p.phase is Phase.PLAY
    return p


def _hard_search_stopped(
    searcher: SearchProcess, p: Position, after: float
) -> tuple[object, float]:
    """A long "hard" search whose stop is set ``after`` seconds: its action and duration."""
    stop = threading.Event()
    timer = threading.Timer(after, stop.set)
    timer.start()
    started = time.monotonic()
    try:
        action = searcher.choose(p, "hard", random.Random(1), stop, think=60)
    finally:
        timer.cancel()
    return action, time.monotonic() - started


@pytest.fixture(scope="module")
def searcher():
    s = SearchProcess()
    yield s
    s.close()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_process_chooses_as_a_search_in_this_thread(searcher, seed):
    p = _midgame(seed)
    here, there = random.Random(seed), random.Random(seed)
    # A node budget and a generous time budget: the choice depends on the position alone.
    want = choose_action(p, "easy", rng=here, nodes=300, think=60)
    got = searcher.choose(p, "easy", there, threading.Event(), nodes=300, think=60)
    assert got == want
    # The generator comes back as the search left it: a seeded game goes on the same way.
    assert there.getstate() == here.getstate()


def test_setting_up_and_the_random_level_answer_like_choose_action(searcher):
    p = new_game(2)
    assert searcher.choose(p, "hard", random.Random(4), threading.Event()) == choose_action(
        p, "hard", rng=random.Random(4)
    )
    q = _midgame(5)
    assert searcher.choose(q, "random", random.Random(4), threading.Event()) == choose_action(
        q, "random", rng=random.Random(4)
    )


def test_the_callers_stop_event_stops_the_search_in_the_process(searcher):
    p = _midgame(6)
    action, took = _hard_search_stopped(searcher, p, 0.3)
    assert took < 10, "the search did not stop"
    assert action in legal_actions(p)


def test_errors_in_the_process_reach_the_caller(searcher):
    with pytest.raises(ValueError, match="level"):
        searcher.choose(_midgame(7), "grandmaster", random.Random(1), threading.Event())


def test_a_killed_search_process_is_replaced_and_the_turn_still_chosen():
    s = SearchProcess()
    try:
        p = _midgame(8)
        first = s.choose(p, "easy", random.Random(2), threading.Event(), nodes=200, think=60)
        pool = s._pool
        assert pool is not None
        procs = list(pool._processes.values())
        for proc in procs:  # the worker, as a crash would take it
            os.kill(proc.pid, signal.SIGKILL)
        for proc in procs:
            # The pool's own thread may reap the process first, after which the Process
            # object can no longer tell; wait for the kernel to say it is dead instead.
            assert _dies(proc.pid, 10), f"process {proc.pid} still runs after SIGKILL"
        again = s.choose(p, "easy", random.Random(2), threading.Event(), nodes=200, think=60)
        assert again == first
        # And the next search has a process again.
        s.choose(p, "easy", random.Random(2), threading.Event(), nodes=200, think=60)
        assert s._pool is not None
        assert s._pool is not pool
    finally:
        s.close()


def test_a_search_process_that_stops_answering_is_ended_and_the_turn_chosen_here(monkeypatch):
    import santorini_p2p.ai.worker as worker

    monkeypatch.setattr(worker, "_STOP_GRACE_S", 0.5)
    s = SearchProcess()
    try:
        p = _midgame(9)
        s.choose(p, "easy", random.Random(2), threading.Event(), nodes=100, think=60)
        pool = s._pool
        assert pool is not None
        procs = list(pool._processes.values())
        for proc in procs:  # frozen, as a machine under swap might leave it
            os.kill(proc.pid, signal.SIGSTOP)
        action, took = _hard_search_stopped(s, p, 0.3)
        assert took < 10
        assert action in legal_actions(p)
        for proc in procs:
            # As above: the pool may reap it first, so ask the kernel rather than the object.
            assert _dies(proc.pid, 10), "the frozen worker was left behind"
    finally:
        s.close()


def test_without_shared_semaphores_the_search_runs_in_this_thread(monkeypatch):
    s = SearchProcess()

    def unsupported() -> None:
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(s._context, "Event", unsupported)
    p = _midgame(10)
    want = choose_action(p, "easy", rng=random.Random(3), nodes=200, think=60)
    got = s.choose(p, "easy", random.Random(3), threading.Event(), nodes=200, think=60)
    assert got == want
    assert s._pool is None
    s.close()


def test_the_consoles_computer_player_searches_in_a_process():
    # The chooser the start screen gives a game: its searches run out of this process.
    parent = os.getpid()
    seen: list[int] = []

    async def main() -> None:
        g = LocalGame(
            [Player("Easy", "easy"), Player("Medium", "medium")],
            time_control=None,
            chooser=ai_chooser(0.2),
            seed=3,
        )
        enough = asyncio.Event()

        def changed() -> None:
            seen.append(len(g.actions))
            if len(g.actions) >= 10 or g.position.phase is Phase.OVER:
                enough.set()

        g.listen(changed)
        task = asyncio.create_task(g.run())
        try:
            async with asyncio.timeout(60):
                await enough.wait()
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(main())
    assert seen
    assert seen[-1] >= 6
    import santorini_p2p.ui.local as local

    assert local._SEARCH is not None
    assert local._SEARCH._pool is not None
    workers = list(local._SEARCH._pool._processes)
    assert workers
    assert parent not in workers


def _dies(pid: int, timeout: float) -> bool:
    """Wait until ``pid`` is gone or a zombie (killed, not yet reaped); False on time-out."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        except OSError:
            state = "?"  # no /proc here: ask the kernel whether the pid still exists
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.01)
    return False
