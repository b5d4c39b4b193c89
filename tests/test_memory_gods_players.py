"""RULES.md 10.4 with 3 and 4 players: the section-10 rulings that read differently there.

Gaea plays with 2-3 players, Eris with 2 and 4, Hippolyta, Aeolus and Siren with 2-4 (Morpheus
and Selene too, whose powers act in their own turns alone, so nothing reads differently).
With 3 players "opponent" is every other seat still in; with 4, the other team, whose two
seats share its two workers (SPEC.md 2.4: seats 1 and 3 against 2 and 4).
"""

from __future__ import annotations

from santorini_p2p.engine import (
    apply,
    find_turn,
    format_position,
    legal_turns,
    parse_position,
)
from santorini_p2p.engine.choices import choices
from santorini_p2p.engine.squares import SQUARE_NAMES


def board(sides: dict[str, str], levels: str = "", domes: str = "") -> str:
    """The board field: ``sides`` maps a side letter to its squares (``{"A": "b2,a1"}``)."""
    lv = dict.fromkeys(range(25), 0)
    for item in filter(None, levels.split(",")):
        sq, _, h = item.partition("=")
        lv[SQUARE_NAMES.index(sq)] = int(h)
    marks = dict.fromkeys(range(25), "")
    for letter, squares in sides.items():
        for sq in filter(None, squares.split(",")):
            marks[SQUARE_NAMES.index(sq)] = letter
    for sq in filter(None, domes.split(",")):
        marks[SQUARE_NAMES.index(sq)] = "X"
    rows = [
        "".join(f"{lv[r * 5 + f]}{marks[r * 5 + f]}" for f in range(5)) for r in range(4, -1, -1)
    ]
    return "/".join(rows)


def texts(position: str) -> set[str]:
    """The texts of every legal turn."""
    return {str(t) for t in legal_turns(parse_position(position))}


def gods_after(position: str, text: str) -> str:
    p = parse_position(position)
    return format_position(apply(p, find_turn(p, text))).split(" ")[2]


def steps(position: str) -> set[tuple[str, str]]:
    """(from, to) of the first move of every legal turn."""
    return {(t[0:2], t[3:5]) for t in texts(position) if t[2:3] == ">"}


# --- Gaea, 3 players --------------------------------------------------------------------------


def test_s10_4_gaea_with_three_players_chooses_in_each_other_seats_turn():
    # Seat 2 (Pan) and seat 3 (Demeter) can each dome c3 (level 3): Gaea, seat 1, answers
    # either; her seat is the one asked, not the mover's.
    b = board({"A": "a1,e1", "B": "b4,a5", "C": "d4,e5"}, levels="c3=3")
    for seat, mover in ((2, "b4"), (3, "d4")):
        start = f"{b} {seat} gaea,pan,demeter -"
        p = parse_position(start)
        placed = [t for t in legal_turns(p) if str(t).startswith(f"{mover}>") and "^c3+" in str(t)]
        assert placed, seat
        for t in placed:
            assert [c.seat for c in choices(p, t)] == [0]
        text = str(placed[0])
        assert gods_after(start, text) == "gaea[1],pan,demeter"


# --- Eris, 4 players --------------------------------------------------------------------------


def test_s10_4_eris_with_four_players_marks_the_worker_the_other_team_moved_last():
    # Seats 1 (Eris) and 3 (Demeter) against 2 (Pan) and 4 (Hephaestus); team B's workers are
    # on d4 and e5. Pan moves d4: marked. Demeter (her team) moves: the mark stays.
    # Hephaestus moves e5: now it is marked, whichever seat of the team moved it.
    b = board({"A": "a1,b1", "B": "d4,e5"})
    start = f"{b} 2 eris,pan,demeter,hephaestus -"
    p = parse_position(start)
    p = apply(p, find_turn(p, "d4>d3^d2"))
    assert format_position(p).split(" ")[2] == "eris[d3],pan,demeter,hephaestus"
    p = apply(p, find_turn(p, "a1>a2^a3"))
    assert format_position(p).split(" ")[2] == "eris[d3],pan,demeter,hephaestus"
    p = apply(p, find_turn(p, "e5>e4^e3"))
    assert format_position(p).split(" ")[2] == "eris[e4],pan,demeter,hephaestus"
    # Her turn: the other team's worker on d3 is hers to move, the one on e4 is not.
    mine = {str(t)[:2] for t in legal_turns(p)}
    assert "d3" in mine
    assert "e4" not in mine


# --- Hippolyta, 3 and 4 players ---------------------------------------------------------------


def test_s10_4_hippolyta_with_three_players_binds_the_third_seats_workers_too():
    b = board({"A": "b2,a1", "B": "b5,e5", "C": "c3,e1"})
    start = f"{b} 3 hippolyta[b2],pan,demeter -"
    moves = steps(start)
    assert moves
    assert all(f[0] != t[0] and f[1] != t[1] for f, t in moves), moves


def test_s10_4_hippolyta_with_four_players_her_female_moves_straight_in_her_teammates_turn():
    # Seats 1 (Hippolyta) and 3 (Demeter) share the workers on b2 (her female) and a1.
    b = board({"A": "b2,a1", "B": "d4,e5"})
    start = f"{b} 3 hippolyta[b2],pan,demeter,hephaestus -"
    moves = steps(start)
    assert ("b2", "b3") in moves  # the female, straight
    assert ("a1", "b2") not in moves  # occupied anyway; the male only diagonally:
    assert not any(f == "a1" and (t[0] == "a" or t[1] == "1") for f, t in moves)
    assert ("a1", "b2") not in moves
    # The other team's seats move diagonally only.
    other = steps(f"{b} 4 hippolyta[b2],pan,demeter,hephaestus -")
    assert other
    assert all(f[0] != t[0] and f[1] != t[1] for f, t in other), other


# --- Aeolus, 3 players ------------------------------------------------------------------------


def test_s10_4_aeolus_with_three_players_the_wind_binds_both_other_seats():
    # The wind blows towards n: no worker of any seat steps towards s.
    b = board({"A": "a1,e1", "B": "b3,a5", "C": "d3,e5"})
    for seat in (2, 3):
        moves = steps(f"{b} {seat} aeolus[n],pan,demeter -")
        assert moves
        south = {(f, t) for f, t in moves if t[0] == f[0] and int(t[1]) == int(f[1]) - 1}
        assert not south, (seat, south)
        # Other directions, north included, stay open.
        assert any(int(t[1]) > int(f[1]) for f, t in moves)


# --- Siren, 3 and 4 players -------------------------------------------------------------------


def test_s10_4_siren_with_three_players_forces_workers_of_both_other_seats_in_one_turn():
    # The song blows towards s: Pan's worker on b4 and Demeter's on d4 are forced a row down.
    b = board({"A": "c3,e1", "B": "b4,a5", "C": "d4,e5"})
    start = f"{b} 1 siren[s],pan,demeter -"
    turns = texts(start)
    both = [t for t in turns if t.startswith("S") and "b4" in t and "d4" in t]
    assert both
    out = parse_position(start)
    after = format_position(apply(out, find_turn(out, both[0]))).split(" ")[0]
    q = parse_position(format_position(apply(out, find_turn(out, both[0]))))
    assert q.worker_side(SQUARE_NAMES.index("b3")) == 1, after
    assert q.worker_side(SQUARE_NAMES.index("d3")) == 2, after


def test_s10_4_siren_with_four_players_forces_only_the_other_teams_workers():
    # Team A (Siren, seat 1, and Demeter, seat 3) on c3 and a4; team B on b4 and d4.
    b = board({"A": "c3,a4", "B": "b4,d4"})
    start = f"{b} 1 siren[s],pan,demeter,hephaestus -"
    forced = set()
    for t in texts(start):
        if t.startswith("S"):
            forced.update(t[1:].split("^")[0].split(","))
    assert forced == {"b4", "d4"}
