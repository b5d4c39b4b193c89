"""The learned evaluation: its inputs, its file, and the search that uses it."""

import dataclasses
import io
import json
import random

import numpy as np
import pytest

from santorini_p2p.ai import analyse, choose_action
from santorini_p2p.ai.net import (
    MIN_GOD_POSITIONS,
    SHIPPED,
    Net,
    encode,
    feature_count,
    shipped,
    symmetries,
    turn_indices,
    value_to_score,
)
from santorini_p2p.ai.search import STUDY_LEVELS, find_level, play_turn
from santorini_p2p.engine import (
    Phase,
    Position,
    apply_action,
    generate_turns,
    legal_actions,
    new_game,
    parse_position,
    parse_turn,
)
from santorini_p2p.engine.gods import ALL_GOD_NAMES

GODS = {name: i + 1 for i, name in enumerate(ALL_GOD_NAMES)}
# Seat 1's worker on c3 (level 2) steps up onto d3 (level 3).
WIN_IN_ONE_CLIMB = "00000B/0B0000/002A30/00000/0A0000 1 -,- -"
# Seat 2 threatens both b3 and d3 from c3; seat 1 can dome only one: lost in two turns.
DOUBLE_THREAT_LOST = "00000/00000A/032B30/00000/0A000B0 1 -,- -"


def _random_net(seed: int = 0, hidden: int = 16, seen: int = 10**6) -> Net:
    rng = np.random.default_rng(seed)
    n = feature_count(len(GODS))

    def w(a: int, b: int) -> np.ndarray:
        return rng.normal(0, 0.3, (a, b)).astype(np.float32)

    return Net(
        [(w(n, hidden), np.zeros(hidden, np.float32)), (w(hidden, hidden), w(1, hidden)[0])],
        (w(hidden, 1), np.zeros(1, np.float32)),
        (w(hidden, 75), np.zeros(75, np.float32)),
        dict(GODS),
        {g: seen for g in GODS},
    )


def _midgame(seed: int, plies: int = 14, gods: tuple[str, ...] = ()) -> Position:
    """A position in play after about ``plies`` turns of easy against easy (the last one
    in play, if the game ends sooner)."""
    rng = random.Random(seed)
    p = new_game(2, "random", drawn=gods) if gods else new_game(2)
    last = p
    while p.phase is not Phase.OVER and plies:
        if p.phase is Phase.PLAY:
            last = p
        p = apply_action(p, choose_action(p, "easy", rng=rng, nodes=100))
        plies -= p.phase is Phase.PLAY
    if p.phase is Phase.PLAY:
        last = p
    assert last.phase is Phase.PLAY
    return last


def _transform(p: Position, m: list[int]) -> Position:
    """The position with each square s taking what square m[s] held."""

    def move(board: int) -> int:
        return sum(1 << s for s in range(25) if board >> m[s] & 1)

    return dataclasses.replace(
        p,
        ge1=move(p.ge1),
        ge2=move(p.ge2),
        ge3=move(p.ge3),
        domes=move(p.domes),
        workers=tuple(move(w) for w in p.workers),
    )


def test_inputs_name_the_board_from_the_movers_side():
    p = parse_position(WIN_IN_ONE_CLIMB)
    x = encode([p], GODS)
    assert x.shape == (1, feature_count(len(GODS)))
    planes = x[0, : 12 * 25].reshape(12, 25)
    c3, d3 = 12, 13
    assert planes[2, c3] == 1
    assert planes[3, d3] == 1
    assert planes[5, c3] == 1  # the mover's worker
    assert planes[8, d3] == 1
    assert planes[8].sum() > 1
    assert planes[10].tolist() == [float(s == d3) for s in range(25)]  # its one win square
    assert planes[11].sum() == 0  # the other side has none
    seen = encode([dataclasses.replace(p, to_move=1)], GODS)[0, : 12 * 25].reshape(12, 25)
    assert seen[6, c3] == 1
    assert seen[5, c3] == 0
    assert seen[11, d3] == 1
    assert seen[10].sum() == 0


def test_gods_enter_as_inputs_and_power_state_as_flags():
    p = parse_position("00000B/0B0000/002A30/00000/0A0000 1 pan,apollo -")
    x = encode([p], GODS)[0]
    g = len(GODS) + 1
    tail = x[-2 * g :]
    assert tail[GODS["pan"]] == 1
    assert tail[g + GODS["apollo"]] == 1
    assert tail.sum() == 2


def test_inputs_follow_each_board_symmetry():
    p = _midgame(3)
    x = encode([p], GODS)
    for (perm, _), m in zip(symmetries(len(GODS)), _square_maps(), strict=True):
        assert np.array_equal(encode([_transform(p, m)], GODS)[0], x[0, perm])


def _square_maps() -> list[list[int]]:
    from santorini_p2p.ai.net import _square_maps

    return _square_maps()


def test_the_eight_symmetries_are_distinct_permutations():
    seen = set()
    for perm, pol in symmetries(len(GODS)):
        assert sorted(perm.tolist()) == list(range(feature_count(len(GODS))))
        assert sorted(pol.tolist()) == list(range(75))
        seen.add(tuple(pol.tolist()))
    assert len(seen) == 8


def test_turn_indices_name_start_end_and_build():
    assert turn_indices(parse_turn("c3>d3^e3")) == (12, 25 + 13, 50 + 14)


def test_value_to_score_is_monotonic_and_centred():
    assert value_to_score(0.0) == 0
    assert value_to_score(0.5) > value_to_score(0.1) > 0 > value_to_score(-0.1)
    assert value_to_score(1.0) == -value_to_score(-1.0)


def test_weights_round_trip_through_their_file(tmp_path):
    net = _random_net()
    net.record = {"command": "santorini train run"}
    path = tmp_path / "w.npz"
    net.save(path)
    back = Net.load(path)
    positions = [_midgame(s) for s in range(3)]
    v1, l1, _ = net.evaluate(positions)
    v2, l2, _ = back.evaluate(positions)
    assert np.allclose(v1, v2)
    assert np.allclose(l1, l2)
    assert back.record == {"command": "santorini train run"}
    assert back.gods == GODS


def test_a_file_that_is_not_weights_is_refused_by_name(tmp_path):
    path = tmp_path / "bad.npz"
    path.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"bad\.npz: not a weights file"):
        Net.load(path)
    with pytest.raises(ValueError, match=r"missing\.npz: cannot read"):
        Net.load(tmp_path / "missing.npz")


def test_weights_for_other_inputs_are_refused():
    net = _random_net()
    net.gods = {"apollo": 1}
    with pytest.raises(ValueError, match="does not fit 1 gods"):
        Net.from_bytes(net.to_bytes(), "w")


def test_a_god_with_too_little_data_is_left_to_the_hand_written_evaluation():
    net = _random_net()
    net.god_positions["pan"] = MIN_GOD_POSITIONS - 1
    assert net.supports(parse_position("00000B/0B0000/002A30/00000/0A0000 1 apollo,- -"))
    assert not net.supports(parse_position("00000B/0B0000/002A30/00000/0A0000 1 pan,- -"))
    del net.gods["zeus"]
    assert not net.supports(parse_position("00000B/0B0000/002A30/00000/0A0000 1 zeus,- -"))
    assert not net.supports(parse_position("0C000C0/00000A/002B30/00000/0A000B0 1 -,-,- -"))


def test_where_the_net_does_not_apply_learned_searches_as_hard():
    # Three players: the net does not apply, so learned's search is hard's, node for node.
    p = parse_position("0C000C0/00000A/002B30/00000/0A000B0 1 -,-,- -")
    a = analyse(p, "learned", nodes=2000, net=_random_net())
    b = analyse(p, "hard", nodes=2000)
    assert (a.best, a.score, a.nodes, a.evaluated) == (b.best, b.score, b.nodes, 0)


def test_the_net_scores_leaves_in_batches():
    p = _midgame(5)
    a = analyse(p, "learned", nodes=3000, net=_random_net())
    assert a.evaluated > 0
    assert a.best in legal_actions(p)


def test_forced_results_stay_exact_with_the_net():
    net = _random_net(1)
    a = analyse(parse_position(WIN_IN_ONE_CLIMB), "learned", nodes=5000, net=net)
    assert a.forced == 1
    assert str(a.best).startswith("c3>d3")
    b = analyse(parse_position(DOUBLE_THREAT_LOST), "learned", nodes=20000, net=net)
    assert b.forced is not None
    assert b.forced < 0


@pytest.mark.parametrize("god", ALL_GOD_NAMES)
def test_learned_plays_every_god_legally(god):
    net = _random_net(2)
    rng = random.Random(god)
    other = rng.choice([g for g in ALL_GOD_NAMES if g != god])
    p = new_game(2, "random", drawn=(god, other))
    plies = 0
    while p.phase is not Phase.OVER and plies < 30:
        if p.phase is Phase.PLAY:
            turn = play_turn(p, find_level("learned"), rng=rng, nodes=150, net=net).best
            assert turn in generate_turns(p)
            p = apply_action(p, turn)
            plies += 1
        else:
            p = apply_action(p, choose_action(p, "hard", rng=rng))


def test_learned_is_a_study_level_not_a_menu_level():
    from santorini_p2p.ai import LEVELS

    assert "learned" in STUDY_LEVELS
    assert "learned" not in LEVELS
    assert find_level("learned").learned
    assert not find_level("hard").learned


def test_the_shipped_weights_carry_the_record_of_their_making():
    net = shipped()
    if net is None:
        pytest.skip("no weights shipped in this checkout")
    for key in ("command", "config", "generations", "games", "hours"):
        assert key in net.record, key
    assert net.record["command"].startswith("santorini train ")
    assert any(net.supports(new_game(2)) for _ in (0,))


def _reference_planes(p: Position) -> list[list[int]]:
    """The 12 planes of ``encode``, square by square, written plainly."""
    me = p.to_move
    mine, other = p.workers[me], p.workers[1 - me]
    lv = [p.level(s) for s in range(25)]
    dome = [p.has_dome(s) for s in range(25)]
    free = [not dome[s] and not ((mine | other) >> s & 1) for s in range(25)]

    def near(a: int, b: int) -> bool:
        return a != b and abs(a % 5 - b % 5) <= 1 and abs(a // 5 - b // 5) <= 1

    planes = [
        [lv[s] == 0 for s in range(25)],
        [lv[s] == 1 for s in range(25)],
        [lv[s] == 2 for s in range(25)],
        [lv[s] == 3 and not dome[s] for s in range(25)],
        dome,
        [bool(mine >> s & 1) for s in range(25)],
        [bool(other >> s & 1) for s in range(25)],
        free,
    ]
    wins = []
    for side in (mine, other):
        workers = [w for w in range(25) if side >> w & 1 and lv[w] < 3]
        planes.append(
            [free[s] and any(near(w, s) and lv[s] <= lv[w] + 1 for w in workers) for s in range(25)]
        )
        wins.append(
            [
                free[s] and lv[s] == 3 and any(near(w, s) and lv[w] == 2 for w in workers)
                for s in range(25)
            ]
        )
    return [[int(x) for x in plane] for plane in planes + wins]


@pytest.mark.parametrize("seed", range(6))
def test_inputs_agree_with_a_plain_reading_of_the_board(seed):
    gods = tuple(random.Random(seed).sample(ALL_GOD_NAMES, 2)) if seed % 2 else ()
    p = _midgame(seed, plies=8 + seed, gods=gods)
    x = encode([p], GODS)[0]
    planes = x[: 12 * 25].reshape(12, 25).astype(int).tolist()
    assert planes == _reference_planes(p)
    ref = _reference_planes(p)
    scalars = x[12 * 25 : 12 * 25 + 8].tolist()
    assert scalars[:2] == [sum(ref[5]) / 2, sum(ref[6]) / 2]
    assert scalars[2:6] == [
        sum(ref[10]) >= 1,
        sum(ref[10]) >= 2,
        sum(ref[11]) >= 1,
        sum(ref[11]) >= 2,
    ]


def test_an_untrained_residual_net_scores_as_the_hand_written_evaluation():
    # With the hand-set weights the nets were trained on, not the search's fitted ones.
    from santorini_p2p.ai.evaluate import CLASSIC, TUNED, evaluate

    net = _random_net()
    net.residual = True
    net.value = (np.zeros_like(net.value[0]), np.zeros_like(net.value[1]))
    positions = [_midgame(s) for s in range(4)]
    scores, threats = net.scores(positions)
    for p, score, pressure in zip(positions, scores, threats, strict=True):
        hand, hand_pressure = evaluate(p, p.to_move, CLASSIC)
        assert abs(score - max(-2070, min(2070, hand))) <= 1
        if TUNED != CLASSIC and evaluate(p, p.to_move)[0] != hand:
            assert abs(score - evaluate(p, p.to_move)[0]) > 1
        assert pressure == hand_pressure
    back = Net.from_bytes(net.to_bytes())
    assert back.residual
    assert back.scores(positions) == (scores, threats)


def test_play_inference_agrees_with_the_plain_forward_pass():
    """The rearranged first layer (bits times weights, a bias a god pair) is the same net."""
    from santorini_p2p.ai.net import hand_offsets

    net = _random_net(seed=3, hidden=24)
    positions = []
    for seed in range(8):
        gods = tuple(random.Random(seed).sample(ALL_GOD_NAMES, 2)) if seed % 2 else ()
        p = _midgame(seed, plies=6 + 2 * seed, gods=gods)
        positions.append(p)
        # Every scalar input in play: a power's flag on either seat, a worker removed.
        positions.append(dataclasses.replace(p, power_state=("x", "") if seed % 3 else ("", "y")))
        lone = p.workers[1 - p.to_move]
        positions.append(
            dataclasses.replace(
                p,
                workers=tuple(w & (w - 1) if w == lone else w for w in p.workers),
            )
        )
    x = encode(positions, GODS)
    values, logits = net.forward(x)
    fast_values, fast_logits, _ = net.evaluate(positions)
    np.testing.assert_allclose(fast_values, values, atol=1e-5)
    np.testing.assert_allclose(fast_logits, logits, atol=1e-4)
    np.testing.assert_allclose(net.prior(positions[5]), logits[5], atol=1e-4)
    net.residual = True
    offsets, _ = hand_offsets(positions)
    z = np.arctanh(net.forward(x, offsets)[0].astype(np.float64))
    expected = np.rint(np.clip(z, -3.453, 3.453) * 600).astype(int)
    scores, _ = net.scores(positions)
    assert np.abs(np.array(scores) - expected).max() <= 1


def test_a_net_on_the_fitted_evaluation_keeps_its_offset_through_its_file(tmp_path):
    from santorini_p2p.ai.evaluate import TUNED, evaluate

    net = _random_net()
    net.residual = True
    net.offset = TUNED
    net.value = (np.zeros_like(net.value[0]), np.zeros_like(net.value[1]))
    positions = [_midgame(s) for s in range(4)]
    scores, _ = net.scores(positions)
    for p, score in zip(positions, scores, strict=True):
        assert abs(score - max(-2070, min(2070, evaluate(p, p.to_move, TUNED)[0]))) <= 1
    net.save(tmp_path / "w.npz")
    back = Net.load(tmp_path / "w.npz")
    assert back.offset == TUNED
    assert back.scores(positions)[0] == scores


def test_weights_files_are_written_back_byte_for_byte_and_older_ones_read_as_classic():
    from importlib import resources

    from santorini_p2p.ai.evaluate import CLASSIC

    data = resources.files("santorini_p2p.ai").joinpath("weights", SHIPPED).read_bytes()
    assert Net.from_bytes(data).to_bytes() == data
    # A file made before nets named their offset: no such entry, read as the hand-set weights.
    older = _random_net().to_bytes()
    with np.load(io.BytesIO(older), allow_pickle=False) as z:
        assert "offset" not in json.loads(bytes(z["meta"]).decode())
    back = Net.from_bytes(older)
    assert back.offset == CLASSIC
    assert back.to_bytes() == older


def test_a_file_with_bad_offset_weights_is_refused_by_name(tmp_path):
    raw = _random_net().to_bytes()
    with np.load(io.BytesIO(raw), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(bytes(arrays["meta"]).decode())
    meta["offset"] = {"win": "lots"}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    out = io.BytesIO()
    np.savez_compressed(out, **arrays)
    (tmp_path / "w.npz").write_bytes(out.getvalue())
    with pytest.raises(ValueError, match=r"w\.npz: bad offset weights"):
        Net.load(tmp_path / "w.npz")
