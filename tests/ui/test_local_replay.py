"""Every finished game on this terminal becomes a signed replay file that verifies.

Local games are played through ``LocalGame`` (people's actions submitted, undone, resigned,
clocks run out on a fake clock) and the file written at game over is read back with the same
verifier as ``santorini replay verify``: it must verify and end in the game's own position.
"""

from __future__ import annotations

import json
import random

import pytest

from santorini_p2p.engine import Phase, format_action, format_position, legal_actions, parse_action
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.ui.games import Recording, recent_games
from santorini_p2p.ui.local import LocalGame, Player, TimeControl
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import read_log

ME = Identity.from_seed(bytes(range(32)), "ann")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000

    def __call__(self) -> int:
        return self.now


def _game(tmp_path, players, gods, *, time=None, clock=None, seed=None):
    names = [f"Player {i + 1}" for i in range(players)]
    rec = Recording.new(
        ME,
        names,
        gods,
        move_ms=time.move_ms if time else 0,
        bank_ms=time.bank_ms if time else 0,
        seed=seed,
    )
    return LocalGame(
        [Player(n) for n in names],
        gods=gods,
        time_control=time,
        clock=clock or FakeClock(),
        journal=tmp_path / "local-game.json",
        recording=rec,
        home=tmp_path,
    )


def _check(game: LocalGame) -> None:
    assert game.position.phase is Phase.OVER
    assert game.replay is not None
    assert game.replay.parent == game.replay.parent.parent / "games"
    verdict = verify_file(game.replay)
    assert verdict.ok, verdict.line()
    log = read_log(game.replay.read_bytes())
    assert log.is_complete
    assert format_position(log.position) == format_position(game.position)
    assert not (game.replay.parent.parent / "local-game.json").exists()
    assert any(str(game.replay) in m.text for m in game.messages)


@pytest.mark.parametrize(
    ("players", "gods"),
    [(2, "none"), (2, "challenger"), (2, "draft"), (3, "random"), (3, "challenger"), (4, "draft")],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_random_game_with_undos_and_resignations_verifies(tmp_path, players, gods, seed):
    rng = random.Random(seed)
    game = _game(tmp_path, players, gods)
    for _ in range(400):
        if game.position.phase is Phase.OVER:
            break
        r = rng.random()
        if r < 0.05 and game.can_undo:
            game.undo()
        elif r < 0.07 and game.position.phase is Phase.PLAY:
            game.resign()
        else:
            game.submit(rng.choice(legal_actions(game.position)))
    while game.position.phase is not Phase.OVER:
        game.resign()
    _check(game)


def test_a_seat_out_of_time_is_claimed_in_the_replay(tmp_path):
    clock = FakeClock()
    game = _game(tmp_path, 2, "none", time=TimeControl(5_000, 10_000), clock=clock)
    game.submit(parse_action("place b2,d4"))
    clock.now += 3_000
    game.submit(parse_action("place b4,d2"))
    clock.now += 16_000  # past the move's 5 s and the whole 10 s bank
    game.check_clock()
    _check(game)
    log = read_log(game.replay.read_bytes())
    assert log.result == (1, "time")
    assert log.clocks == (10_000, 10_000)


def test_a_late_move_is_recorded_within_what_was_left(tmp_path):
    clock = FakeClock()
    game = _game(tmp_path, 2, "none", time=TimeControl(5_000, 1_000), clock=clock)
    clock.now += 6_500  # the clock check has not run yet: the move is played on the edge
    game.submit(parse_action("place b2,d4"))
    game.resign()
    _check(game)


def test_an_interrupted_game_resumes_and_is_still_recorded(tmp_path):
    game = _game(tmp_path, 2, "random", seed=7)
    game.submit(parse_action("place b2,d4"))
    game.submit(parse_action("place b4,d2"))
    again = LocalGame.resume(
        tmp_path / "local-game.json", clock=FakeClock(), identity=ME, home=tmp_path
    )
    again.submit(rng_move := legal_actions(again.position)[0])
    again.resign()
    _check(again)
    acts = [
        r.message.action
        for r in read_log(again.replay.read_bytes()).records
        if type(r.message).__name__ == "Act"
    ]
    played = ["place b2,d4", "place b4,d2", str(rng_move)]
    assert acts == [format_action(parse_action(a)) for a in played]


def test_the_journal_is_private_and_names_the_recording(tmp_path):
    game = _game(tmp_path, 2, "none")
    game.submit(parse_action("place b2,d4"))
    journal = tmp_path / "local-game.json"
    assert journal.stat().st_mode & 0o777 == 0o600
    data = json.loads(journal.read_text())
    assert data["recording"]["key"] == ME.public_key.hex()
    assert ME.seed.hex() not in journal.read_text()


def test_the_replay_file_and_its_directory_are_private(tmp_path):
    game = _game(tmp_path, 2, "none")
    game.submit(parse_action("place b2,d4"))
    game.resign()
    assert game.replay is not None
    assert game.replay.stat().st_mode & 0o777 == 0o600
    assert game.replay.parent.stat().st_mode & 0o777 == 0o700


def test_recent_games_lists_finished_games_newest_first(tmp_path):
    clock = FakeClock()
    made = []
    for i in range(3):
        game = _game(tmp_path, 2, "random" if i == 1 else "none", clock=clock)
        object.__setattr__(game._recording, "created_ms", 1_700_000_000_000 + i * 60_000)
        game.submit(parse_action("place b2,d4"))
        game.resign()
        made.append(game.replay)
    (tmp_path / "games" / "junk.sntr").write_bytes(b"not a replay")
    listed = recent_games(tmp_path)
    assert [p for p, _ in listed] == made[::-1]
    newest = listed[0][1]
    assert newest.startswith("ann vs Player 2")
    assert "ann won by resignation" in newest  # seat 2 was to move and resigned
    assert newest.endswith("\n2023-11-14 22:15: ann won by resignation")
    assert listed[1][1].startswith("ann (")  # with the god drawn for each player


def test_undo_and_resignations_survive_a_resume(tmp_path):
    game = _game(tmp_path, 3, "none")
    for text in ("place a1,a2", "place c1,c2", "place e1,e2"):
        game.submit(parse_action(text))
    game.submit(legal_actions(game.position)[0])
    game.resign()  # seat 2 gives up; seats 1 and 3 play on
    again = LocalGame.resume(
        tmp_path / "local-game.json", clock=FakeClock(), identity=ME, home=tmp_path
    )
    assert format_position(again.position) == format_position(game.position)
    assert again.can_undo
    again.undo()  # takes back the resignation
    assert format_position(again.position) != format_position(game.position)
    again.undo()  # and the turn before it
    assert len(again.actions) == 3
    while again.position.phase is not Phase.OVER:
        again.resign()
    _check(again)
