"""The one-turn legality check (engine/legality.py) answers as full generation does.

``turn_is_legal(p, t)`` must equal ``t in generate_turns(p)`` for every god and position:
checked over random games with random gods from every god (2 and 3 players), on every legal
turn and on many well-formed but mostly illegal texts made by mutating legal ones. And
``apply_checked`` gives ``apply_action``'s position or its refusal.
"""

from __future__ import annotations

import random

import pytest

from santorini_p2p.engine import (
    ALL_GOD_NAMES,
    Phase,
    Position,
    Turn,
    apply_action,
    format_position,
    generate_turns,
    legal_actions,
    new_game,
    parse_position,
    parse_turn,
    state_hash,
)
from santorini_p2p.engine.gods import power_of
from santorini_p2p.engine.legality import apply_checked, turn_is_legal
from santorini_p2p.engine.rules import is_legal, special_powers
from santorini_p2p.errors import IllegalTurnError, NotationError
from tests.positions import random_play

_CHARS = "abcde12345+-*^~,.H<>MTB "


def _mutants(rng: random.Random, turns: list[Turn], n: int) -> list[Turn]:
    """Well-formed turns made from legal ones by changing, adding or dropping one character."""
    out: list[Turn] = []
    tries = 0
    while len(out) < n and turns and tries < 20 * n:
        tries += 1
        text = str(rng.choice(turns))
        i = rng.randrange(len(text) + 1)
        how = rng.randrange(3)
        if how == 0 and i < len(text):
            text = text[:i] + rng.choice(_CHARS) + text[i + 1 :]
        elif how == 1:
            text = text[:i] + rng.choice(_CHARS) + text[i:]
        elif i < len(text):
            text = text[:i] + text[i + 1 :]
        try:
            out.append(parse_turn(text))
        except NotationError:
            continue
    return out


def _game(rng: random.Random, players: int) -> Position:
    """A new game whose seats hold gods drawn from every god (redrawn if the pair is banned)."""
    while True:
        drawn = tuple(rng.sample(ALL_GOD_NAMES, players))
        try:
            return new_game(players, "random", drawn=drawn)
        except ValueError:
            continue


def _check(p: Position, rng: random.Random) -> tuple[int, int]:
    """Compare the fast check with full generation in ``p``; return (accepted, refused)."""
    legal = generate_turns(p)
    full = set(legal)
    # Every legal turn (a sample of 300 where a power gives thousands). A turn with a power
    # step of section 10 goes to the kernel's check (is_legal, tested on its own below): a
    # few of those suffice here.
    plain = [t for t in legal if not t.extra]
    powered = [t for t in legal if t.extra]
    sample = plain if len(plain) <= 300 else rng.sample(plain, 300)
    sample += powered if len(powered) <= 10 else rng.sample(powered, 10)
    for t in sample:
        assert turn_is_legal(p, t), f"{t} refused in {format_position(p)}"
    refused = 0
    for t in _mutants(rng, legal, 30 if len(legal) <= 300 else 4):
        fast = turn_is_legal(p, t)
        assert fast == (t in full), f"{t}: fast {fast} in {format_position(p)}"
        refused += not fast
    return len(sample), refused


@pytest.mark.parametrize("players", [2, 3])
def test_the_fast_check_equals_full_generation_in_random_games(players: int) -> None:
    rng = random.Random(20261127 + players)
    accepted = refused = positions = 0
    gods_seen: set[str] = set()
    for _ in range(30 if players == 2 else 10):
        p = _game(rng, players)
        plies = 0
        while p.phase is not Phase.OVER and plies < 40:
            plies += 1
            actions = legal_actions(p)
            if not actions:
                break
            if p.phase is Phase.PLAY:
                gods_seen.update(p.gods)
                a, r = _check(p, rng)
                accepted += a
                refused += r
                positions += 1
            p = apply_action(p, rng.choice(actions))
    # The comparison covered many positions, turns and refusals, and most gods.
    assert positions > 200
    assert accepted > 4_000
    assert refused > 2_000
    assert len(gods_seen - {""}) >= 20


def test_apply_checked_gives_apply_actions_position_or_refusal() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(3):
        p = _game(rng, 2)
        plies = 0
        while p.phase is not Phase.OVER and plies < 25:
            plies += 1
            actions = legal_actions(p)
            if not actions:
                break
            tries = list(actions) + (
                _mutants(rng, generate_turns(p), 10) if p.phase is Phase.PLAY else []
            )
            for a in tries:
                try:
                    want: Position | str = apply_action(p, a)
                except IllegalTurnError as e:
                    want = str(e)
                try:
                    got: Position | str = apply_checked(p, a)
                except IllegalTurnError as e:
                    got = str(e)
                assert got == want, f"{a} in {format_position(p)}"
                if isinstance(got, Position):
                    assert isinstance(want, Position)
                    assert state_hash(got) == state_hash(want)
                checked += 1
            p = apply_action(p, rng.choice(actions))
    assert checked > 300


def test_a_wrong_turn_is_refused_whatever_path_checks_it() -> None:
    """Turns no generation holds: a worker not the mover's, off-board squares, a wrong phase."""
    p = _game(random.Random(3), 2)
    assert not turn_is_legal(p, Turn(0, (1,), (2,)))  # not the play phase yet
    q = new_game(2)
    for a in legal_actions(q)[:1]:
        q = apply_action(q, a)
    while q.phase is not Phase.PLAY:
        q = apply_action(q, legal_actions(q)[0])
    legal = set(generate_turns(q))
    for w in range(-1, 25):
        for t in range(25):
            for b in (-1, *range(25)):
                turn = Turn(w, (t,), () if b < 0 else (b,))
                assert turn_is_legal(q, turn) == (turn in legal), str(turn)


def _near(rng: random.Random, turns: list[Turn], n: int) -> list[Turn]:
    """Turns one square away from legal ones: a step, a build or the build first moved.

    A power that looks for one turn skips the steps and builds first that cannot lead to it;
    these are the turns that skipping wrongly would refuse or accept.
    """
    out: list[Turn] = []
    for _ in range(n if turns else 0):
        t = rng.choice(turns)
        s = rng.randrange(25)
        field = rng.randrange(3)
        if field == 0 and t.path:
            i = rng.randrange(len(t.path))
            out.append(t._replace(path=(*t.path[:i], s, *t.path[i + 1 :])))
        elif field == 1 and t.builds:
            i = rng.randrange(len(t.builds))
            out.append(t._replace(builds=(*t.builds[:i], s, *t.builds[i + 1 :])))
        else:
            out.append(t._replace(before=rng.choice((-1, s))))
    return out


@pytest.mark.parametrize("god", ALL_GOD_NAMES)
def test_each_gods_turns_and_their_near_misses_are_judged_as_full_generation(god: str) -> None:
    """Every god as the mover, against random opponents: its turns and turns a square off."""
    rng = random.Random(f"near {god}")
    positions = 0
    for game in range(4):
        players = 3 if game == 3 and 3 in power_of(god).players else 2
        p = _game_with(rng, god, players)
        plies = checked = own = 0
        while p.phase is not Phase.OVER and plies < 100 and checked < 5:
            plies += 1
            actions = legal_actions(p)
            if not actions:
                break
            # Powers that add or narrow turns leave every turn to the kernel's check (below).
            mine = p.phase is Phase.PLAY and p.gods[p.to_move] == god
            own += mine
            # Every third turn of the god's from its fifth, as buildings part the board.
            if mine and own % 3 == 2 and own > 3 and not special_powers(p.gods):
                legal = generate_turns(p)
                full = set(legal)
                for t in legal if len(legal) <= 300 else rng.sample(legal, 300):
                    assert turn_is_legal(p, t), f"{t} refused in {format_position(p)}"
                for t in _near(rng, legal, 100):
                    fast = turn_is_legal(p, t)
                    assert fast == (t in full), f"{t}: fast {fast} in {format_position(p)}"
                positions += 1
                checked += 1
            p = apply_action(p, rng.choice(actions))
    power = power_of(god)
    assert positions >= 4 or power.expands or power.reacts or power.filters


def _game_with(rng: random.Random, god: str, players: int) -> Position:
    """A new game in which one seat holds ``god`` and the others random gods."""
    while True:
        others = rng.sample([g for g in ALL_GOD_NAMES if g != god], players - 1)
        drawn = tuple(rng.sample([god, *others], players))
        try:
            return new_game(players, "random", drawn=drawn)
        except ValueError:
            continue


@pytest.mark.parametrize(
    "text",
    [
        # A lone Hermes worker (Medusa took the other): the H form with one square.
        "0B0000B/00000/00000/00000/0A0000 1 hermes,medusa -",
        # Hermes's workers on two levels: two areas, either worker's square the lower.
        "0B0000B/00000/001A00/00000/0A0000 1 hermes,pan -",
        "0A0000/00000/001A00/00000/0B0000B 1 hermes,pan -",
        # A bound Hermes worker that cannot pass the other in a lane (Aphrodite).
        "0A2222/0A2222/02B222/02222/02222B 1 hermes,aphrodite -",
        # Prometheus with builds first around both workers.
        "0A0000/01100/001A00/00000/0B0000B 1 prometheus,pan -",
    ],
)
def test_every_turn_a_square_off_is_judged_as_full_generation(text: str) -> None:
    """Each legal turn with any one square changed, in positions the narrowed powers meet."""
    p = parse_position(text)
    legal = generate_turns(p)
    full = set(legal)
    assert legal
    for t in legal:
        assert turn_is_legal(p, t), f"{t} refused in {text}"
        for s in range(25):
            near = [t._replace(before=s)]
            near += [
                t._replace(path=(*t.path[:i], s, *t.path[i + 1 :])) for i in range(len(t.path))
            ]
            near += [
                t._replace(builds=(*t.builds[:i], s, *t.builds[i + 1 :]))
                for i in range(len(t.builds))
            ]
            for n in near:
                assert turn_is_legal(p, n) == (n in full), f"{n} in {text}"


@pytest.mark.parametrize("god", [g for g in ALL_GOD_NAMES if power_of(g).plain_shaped])
def test_a_power_that_says_its_plain_shaped_turns_are_plain_is_right(god: str) -> None:
    """Every turn of the plain shape by the god's workers, in random games: as full generation."""
    rng = random.Random(f"plain {god}")
    positions = 0
    for _ in range(3):
        p = _game_with(rng, god, 2)
        plies = 0
        while p.phase is not Phase.OVER and plies < 60:
            plies += 1
            actions = legal_actions(p)
            if not actions:
                break
            if p.phase is Phase.PLAY and p.gods[p.to_move] == god and plies % 3 == 0:
                full = set(generate_turns(p))
                for w in range(25):
                    if not p.workers[p.side_of(p.to_move)] >> w & 1:
                        continue
                    for t in range(25):
                        for b in range(-1, 25):
                            turn = Turn(w, (t,), () if b < 0 else (b,))
                            assert turn_is_legal(p, turn) == (turn in full), f"{turn} in {p}"
                positions += 1
            p = apply_action(p, rng.choice(actions))
    assert positions >= 5


SPECIAL = [
    g for g in ALL_GOD_NAMES if power_of(g).expands or power_of(g).reacts or power_of(g).filters
]
"""The gods whose powers add choices to turns or narrow them (rules.special_powers)."""


def _other_choices(rng: random.Random, turns: list[Turn], n: int) -> list[Turn]:
    """Legal turns with another turn's power steps or end of turn, or theirs cut or reversed.

    The kernel extends only the turns with the asked turn's steps and builds
    (``rules._candidates``): these are the turns that narrowing wrongly would misjudge.
    """
    out: list[Turn] = []
    for _ in range(n if turns else 0):
        t, o = rng.choice(turns), rng.choice(turns)
        out += [t._replace(extra=o.extra), t._replace(post=o.post), t._replace(extra=t.extra[::-1])]
        if t.extra:
            out.append(t._replace(extra=t.extra[:-1]))
    return out


def _judged_as_full_generation(p: Position, rng: random.Random) -> None:
    """Legal turns, near misses and other choices: ``is_legal`` as membership of every turn."""
    legal = generate_turns(p)
    full = set(legal)
    for t in rng.sample(legal, min(30, len(legal))):
        assert is_legal(p, t), f"{t} refused in {format_position(p)}"
    for t in _near(rng, legal, 30) + _other_choices(rng, legal, 30):
        assert is_legal(p, t) == (t in full), f"{t} in {format_position(p)}"


@pytest.mark.parametrize(
    "gods",
    [(god,) for god in SPECIAL]
    + [("heracles", "gaea"), ("polyphemus", "gaea"), ("hydra", "gaea"), ("aeolus", "gaea")],
)
def test_turns_where_powers_add_or_narrow_choices_are_judged_as_full_generation(
    gods: tuple[str, ...],
) -> None:
    """Every seat's turns in random games with these gods (the others random), 2 players."""
    rng = random.Random(f"special {gods}")
    positions = 0
    for _ in range(3):
        while True:
            others = [g for g in ALL_GOD_NAMES if g not in gods and 2 in power_of(g).players]
            drawn = (*gods, rng.choice(others))[:2]
            try:
                p = new_game(2, "random", drawn=tuple(rng.sample(drawn, 2)))
                break
            except ValueError:
                continue
        # Listing stopped past a few thousand turns: Heracles against Gaea has a million.
        for ply, q, listing in random_play(p, rng, 60, lambda: lambda: True):
            if listing.complete and ply % 3 == 0:
                _judged_as_full_generation(q, rng)
                positions += 1
    assert positions >= 8
