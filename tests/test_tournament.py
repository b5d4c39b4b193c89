"""Club events without the network: the event file, results matched to boards, standings."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

import pytest

from santorini_p2p.errors import SantoriniError
from santorini_p2p.tournament.club import CLOCK_SKEW_MS, ResultRefused, create_event
from santorini_p2p.tournament.event import EventError, EventHeader, Player, read_event
from santorini_p2p.tournament.games import GameFacts
from santorini_p2p.tournament.pairing import PairingError
from santorini_p2p.tournament.standings import Board, points_text, standings
from santorini_p2p.wire.identity import Identity

T0 = 1_790_000_000_000
DIRECTOR = Identity.from_seed(bytes([9]) * 32, "director")
PLAYERS = [Identity.from_seed(bytes([i]) * 32, n) for i, n in enumerate("abcd", 1)]


def _event(tmp_path, gods="draft", pool=()):
    header = EventHeader(
        0, bytes(32), "club", T0, tuple(Player(p.name, p.fingerprint) for p in PLAYERS),
        "swiss", 3, gods, pool, 60_000, 300_000,
    )  # fmt: skip
    event = create_event(tmp_path / "club", DIRECTOR, header)
    event.pair(DIRECTOR, T0)
    return event


def _facts(first, second, winner, **extra):
    base = GameFacts(
        sha256=bytes([first, second, 1]) * 8 + bytes(8),
        game_id=bytes([first, second]) * 8,
        created_ms=T0 + 60_000,
        first=PLAYERS[first].fingerprint,
        second=PLAYERS[second].fingerprint,
        names={p.fingerprint: p.name for p in PLAYERS},
        winner=None if winner is None else PLAYERS[winner].fingerprint,
        reason="win" if winner is not None else "draw",
        gods="draft",
        pool=(),
        move_ms=60_000,
        bank_ms=300_000,
        turns=20,
    )
    return replace(base, **extra)


def test_round_one_pairs_seeds_in_order_with_the_higher_seed_first(tmp_path):
    event = _event(tmp_path)
    assert [(b.first, b.second) for b in event.round_boards(1)] == [(0, 1), (2, 3)]


def test_a_result_is_appended_signed_and_reading_it_again_changes_nothing(tmp_path):
    event = _event(tmp_path)
    board, new = event.record(DIRECTOR, _facts(0, 1, 1), T0 + 120_000)
    assert new
    assert (board.round, board.number, board.winner) == (1, 1, 1)
    size = len(event.log.records)
    _, again = event.record(DIRECTOR, _facts(0, 1, 1), T0 + 180_000)
    assert not again
    assert len(event.log.records) == size
    # The file as written reads back with the same records.
    event.save(tmp_path / "club")
    back = read_event((tmp_path / "club" / "event.snte").read_bytes())
    assert back.records == event.log.records


def test_a_game_created_before_its_round_was_paired_is_refused(tmp_path):
    event = _event(tmp_path)
    old = _facts(0, 1, 0, created_ms=T0 - CLOCK_SKEW_MS - 60_000)
    with pytest.raises(ResultRefused, match="created 16 minutes before round 1 was paired"):
        event.match(old)


def test_a_second_replay_for_a_board_with_a_result_is_refused(tmp_path):
    event = _event(tmp_path)
    event.record(DIRECTOR, _facts(0, 1, 0), T0)
    other = _facts(0, 1, 1, sha256=bytes(32), game_id=bytes(16))
    with pytest.raises(ResultRefused, match="round 1 board 1 already has its result"):
        event.match(other)


def test_the_same_game_cannot_be_the_result_of_two_boards(tmp_path):
    event = _event(tmp_path)
    event.record(DIRECTOR, _facts(0, 1, 0), T0)
    twin = _facts(2, 3, 2, game_id=_facts(0, 1, 0).game_id)
    with pytest.raises(ResultRefused, match="already the result of round 1 board 1"):
        event.match(twin)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"gods": "random"}, "played with gods random; the event's games use draft"),
        ({"pool": ("chronus", "medusa", "zeus", "bia")}, "played with god pool chronus"),
        ({"move_ms": 30_000}, "played with time 30+300; the event's games use 60+300"),
    ],
)
def test_a_game_under_other_settings_is_refused(tmp_path, change, message):
    event = _event(tmp_path)
    with pytest.raises(ResultRefused, match=re.escape(message)):
        event.match(_facts(0, 1, 0, **change))


def test_round_two_waits_for_every_result_of_round_one(tmp_path):
    event = _event(tmp_path)
    event.record(DIRECTOR, _facts(0, 1, 0), T0)
    with pytest.raises(PairingError, match="round 1 is not finished: 1 board"):
        event.next_round()
    event.record(DIRECTOR, _facts(2, 3, None), T0)
    rnd = event.pair(DIRECTOR, T0 + 3_600_000)
    # The winner of board 1 meets the higher of the two who drew.
    assert {frozenset(g) for g in rnd.games} == {frozenset((0, 2)), frozenset((3, 1))}


def test_only_the_director_adds_to_the_event(tmp_path):
    event = _event(tmp_path)
    with pytest.raises(SantoriniError, match="this event is directed by the key"):
        event.record(PLAYERS[0], _facts(0, 1, 0), T0)


def test_standings_break_ties_by_buchholz_then_sonneborn_berger():
    # 4 players, 2 rounds: 0 beats 1, 2 draws 3; then 0 beats 2, 3 beats 1.
    boards = [
        Board(1, 1, 0, 1, True, 0), Board(1, 2, 2, 3, True, None),
        Board(2, 1, 0, 2, True, 0), Board(2, 2, 3, 1, True, 3),
    ]  # fmt: skip
    table = standings(4, boards, [])
    assert [s.player for s in table] == [0, 3, 2, 1]
    by = {s.player: s for s in table}
    assert by[0].points == 2
    assert by[3].points == Fraction(3, 2)
    # 0 met 1 (0 points) and 2 (half a point).
    assert by[0].buchholz == Fraction(1, 2)
    # 3 drew 2 (0.5 points) and beat 1 (0 points): S-B 0.25.
    assert by[3].sonneborn_berger == Fraction(1, 4)
    assert points_text(by[3].sonneborn_berger) == "0.25"
    assert points_text(by[3].points) == "1.5"


def test_players_equal_on_every_tie_break_share_a_rank():
    table = standings(2, [Board(1, 1, 0, 1, True, None)], [])
    assert [(s.rank, s.shared) for s in table] == [(1, True), (1, True)]
    # 1 and 2 both beat 3 and lost to 0: equal points, Buchholz and S-B.
    boards = [
        Board(1, 1, 0, 1, True, 0), Board(1, 2, 2, 3, True, 2),
        Board(2, 1, 0, 2, True, 0), Board(2, 2, 1, 3, True, 1),
    ]  # fmt: skip
    table = standings(4, boards, [])
    assert [(s.player, s.rank, s.shared) for s in table] == [
        (0, 1, False), (1, 2, True), (2, 2, True), (3, 4, False),
    ]  # fmt: skip


def test_equal_points_are_ranked_by_buchholz_first():
    # 1 and 2 each have one win; 1 met 0 (2 points) and 4 (1), 2 met 3 (0) and 0 (2).
    boards = [
        Board(1, 1, 0, 1, True, 0), Board(1, 2, 2, 3, True, 2), Board(1, 3, 4, 5, True, 4),
        Board(2, 1, 0, 2, True, 0), Board(2, 2, 1, 4, True, 1), Board(2, 3, 3, 5, True, 5),
    ]  # fmt: skip
    table = standings(6, boards, [])
    by = {s.player: s for s in table}
    assert by[1].points == by[2].points == 1
    assert by[1].buchholz > by[2].buchholz
    order = [s.player for s in table]
    assert order.index(1) < order.index(2)


def test_a_bye_scores_a_point_and_adds_no_tie_break():
    table = standings(3, [Board(1, 1, 0, 1, True, 0)], [2])
    by = {s.player: s for s in table}
    assert by[2].points == 1
    assert by[2].buchholz == 0
    assert by[2].byes == 1


def test_event_of_another_program_version_is_refused(tmp_path):
    event = _event(tmp_path)
    data = bytearray(event.log.to_bytes())
    data[4] = 2
    with pytest.raises(EventError, match="unsupported event file version"):
        read_event(bytes(data))


def test_an_event_is_not_created_over_another(tmp_path):
    event = _event(tmp_path)
    before = (tmp_path / "club" / "event.snte").read_bytes()
    with pytest.raises(SantoriniError, match="already holds an event"):
        create_event(tmp_path / "club", DIRECTOR, event.header)
    assert (tmp_path / "club" / "event.snte").read_bytes() == before


def _cli(home, *args):
    import contextlib
    import io
    import os
    from unittest import mock

    from santorini_p2p import cli

    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.dict(os.environ, {"SANTORINI_HOME": str(home)}),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


PLAYER_ARGS = [a for p in PLAYERS for a in ("--player", f"{p.name}={p.fingerprint}")]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--player", "e=12"], "player 'e': fingerprint '12' is not xxxx-xxxx-xxxx-xxxx"),
        (["--player", f"A={PLAYERS[1].fingerprint}"], "player: 'A' is named twice"),
        (["--player", "nofingerprint"], "player: expected NAME=FINGERPRINT"),
        (["--rounds", "4"], "rounds: a Swiss event of 4 players has 1 to 3 rounds, got 4"),
        (["--time", "fast"], "time: expected MOVE+BANK"),
        (["--gods-from", "zeus"], "gods-from: a god pool needs --gods"),
    ],
)
def test_tournament_new_refuses_bad_input_naming_it(tmp_path, extra, message):
    code, _, err = _cli(
        tmp_path / "home", "tournament", "new", str(tmp_path / "club"), *PLAYER_ARGS,
        "--format", "swiss", *extra,
    )  # fmt: skip
    assert code == 2
    assert message in err
    assert not (tmp_path / "club").exists()


def test_tournament_commands_on_a_missing_event_say_so(tmp_path):
    for action in ("pair", "standings"):
        code, _, err = _cli(tmp_path / "home", "tournament", action, str(tmp_path / "nowhere"))
        assert code == 2
        assert "no event at" in err


def test_round_robin_of_five_pairs_every_round_with_one_bye_and_ends(tmp_path):
    players = [Identity.from_seed(bytes([i]) * 32, f"p{i}") for i in range(1, 6)]
    args = [a for p in players for a in ("--player", f"{p.name}={p.fingerprint}")]
    home, club = tmp_path / "home", tmp_path / "club"
    code, out, err = _cli(home, "tournament", "new", str(club), *args, "--format", "roundrobin")
    assert code == 0, err
    assert "roundrobin, 5 rounds, 5 players; gods none; time 60+300" in out
    code, out, err = _cli(home, "tournament", "pair", str(club))
    assert code == 0, err
    assert "round 1 of 5" in out
    assert "bye: p1" in out
    assert out.count("board ") == 2


def test_a_game_played_the_other_way_round_stands_and_counts_as_played(tmp_path):
    event = _event(tmp_path)
    # Board 1 pairs 0 (first) and 1; the replay has 1 moving first.
    board, new = event.record(DIRECTOR, _facts(1, 0, 1), T0)
    assert new
    assert board.reversed
    assert (board.first, board.second, board.winner) == (0, 1, 1)
    h = event.history()
    assert (h.firsts[1], h.seconds[0]) == (1, 1)
    assert (h.firsts[0], h.seconds[1]) == (0, 0)
    # The file reads back to the same boards, the record naming who moved first.
    back = read_event(event.log.to_bytes())
    assert back.records[-1].first == 1
