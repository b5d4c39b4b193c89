"""The learned evaluation: a small network's value and move prior, run with numpy.

A ``Net`` reads a position of two players from the side to move: the board (levels, domes,
both sides' workers), where each side's workers can move and win by the plain rules, and the
gods of both seats (one input each, so one net serves every pairing). It answers a value in
(-1, 1) for the side to move and 75 prior logits: 25 for the square the turn's worker leaves,
25 for where it ends and 25 for its first build; a turn's prior is the sum of its three.

``encode`` and ``Net.evaluate`` take a batch of positions at once (one search node's
children): numpy's per-call cost is paid once per batch, not once per position. Weights live
in a ``.npz`` file (read with ``allow_pickle=False``) beside a JSON record of how they were
made; ``shipped()`` loads the ones in the package. A god the net has seen too few positions
of is not ``supported``: the search then uses the hand-written evaluation.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Final

# A search's batches are small (one node's children): BLAS threads cost more than they give
# there, and on a busy machine several times more (a batch of 32 took 140 us with threads,
# 42 us without). Set before numpy loads its BLAS; a value the user set stays.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

from santorini_p2p.ai.evaluate import CLASSIC, Weights  # noqa: E402
from santorini_p2p.ai.evaluate import evaluate as hand_evaluate  # noqa: E402
from santorini_p2p.engine import Position, Turn  # noqa: E402
from santorini_p2p.engine.squares import NEIGHBOURS  # noqa: E402

__all__ = [
    "FEATURE_VERSION",
    "MIN_GOD_POSITIONS",
    "PLANES",
    "SCALARS",
    "Net",
    "encode",
    "feature_count",
    "hand_offsets",
    "shipped",
    "symmetries",
    "turn_indices",
    "turn_priors",
    "value_to_score",
]

FEATURE_VERSION: Final = 1
"""The layout of ``encode``'s inputs; a weights file names the version it was trained on."""
PLANES: Final = 12
"""Square planes: levels 0-3, dome, own, other, free, own and other reach, own and other wins."""
SCALARS: Final = 8
"""Own and other workers, own and other win squares (1, 2+), own and other power state."""
MIN_GOD_POSITIONS: Final = 3_000
"""A god seen in fewer training positions than this is left to the hand-written evaluation."""
SHIPPED: Final = "value-v2.npz"
"""The weights in the package (``santorini_p2p/ai/weights``)."""

_ALL: Final = (1 << 25) - 1
_SHIFTS: Final = np.arange(25, dtype=np.int64)
F32 = NDArray[np.float32]
_Z_MAX: Final = 0.5 * math.log(0.999 / 0.001)
"""The value's argument to tanh at a 99.9% chance (``value_to_score`` clips there)."""


def feature_count(gods: int) -> int:
    """The number of inputs for a net that knows ``gods`` gods (each seat: none or one)."""
    return PLANES * 25 + SCALARS + 2 * (gods + 1)


def _bits(a: NDArray[np.int64]) -> F32:
    """Expand an (n, k) array of 25-bit boards to (n, k, 25) zeros and ones."""
    return ((a[:, :, None] >> _SHIFTS) & 1).astype(np.float32)


def _planes(p: Position) -> list[int]:
    """The 12 square planes of ``p`` as bitboards, from its mover's side (``encode``)."""
    me = p.to_move
    ge1, ge2, ge3, domes = p.ge1, p.ge2, p.ge3, p.domes
    mine, other = p.workers[me], p.workers[1 - me]
    free = _ALL & ~(domes | mine | other)
    lv1 = ge1 & ~ge2
    lv2 = ge2 & ~ge3
    lv3 = ge3 & ~domes
    row = [_ALL & ~ge1, lv1, lv2, lv3, domes, mine, other, free]
    reach_to = (_ALL & ~ge2, _ALL & ~ge3, _ALL)
    wins = []
    for workers in (mine, other):
        reach = win = 0
        while workers:
            low = workers & -workers
            workers ^= low
            w = low.bit_length() - 1
            h = (ge1 >> w & 1) + (ge2 >> w & 1) + (ge3 >> w & 1)
            if h < 3:
                reach |= NEIGHBOURS[w] & reach_to[h]
                if h == 2:
                    win |= NEIGHBOURS[w] & lv3
        row.append(reach & free)
        wins.append(win & free)
    row.extend(wins)
    return row


def encode(positions: Sequence[Position], gods: Mapping[str, int]) -> F32:
    """Return the inputs of ``positions`` (two players, in play) from each mover's side.

    ``gods`` maps a god's name to its input (1-based; 0 is no god, and an unknown god counts
    as none: ``Net.supports`` keeps those positions from the net).
    """
    n = len(positions)
    g = len(gods) + 1
    rows = []
    scalars = []
    god_in = []
    for p in positions:
        me = p.to_move
        row = _planes(p)
        rows.append(row)
        own_w = row[10].bit_count()
        other_w = row[11].bit_count()
        state = p.power_state
        scalars.append(
            (
                row[5].bit_count() / 2,
                row[6].bit_count() / 2,
                own_w >= 1,
                own_w >= 2,
                other_w >= 1,
                other_w >= 2,
                bool(state and state[me]),
                bool(state and state[1 - me]),
            )
        )
        god_in.append((gods.get(p.gods[me], 0), g + gods.get(p.gods[1 - me], 0)))
    out = np.zeros((n, PLANES * 25 + SCALARS + 2 * g), dtype=np.float32)
    out[:, : PLANES * 25] = _bits(np.array(rows, dtype=np.int64)).reshape(n, -1)
    out[:, PLANES * 25 : PLANES * 25 + SCALARS] = np.array(scalars, dtype=np.float32)
    idx = np.array(god_in, dtype=np.int64) + PLANES * 25 + SCALARS
    out[np.arange(n)[:, None], idx] = 1.0
    return out


def other_wins(features: F32) -> F32:
    """The number of squares where the side not to move wins by moving (from ``encode``)."""
    start = 11 * 25
    return np.asarray(features[:, start : start + 25].sum(axis=1), dtype=np.float32)


def _square_maps() -> list[list[int]]:
    """The 8 symmetries of the board, each as ``new square -> old square``."""
    maps = []
    for k in range(8):
        m = []
        for s in range(25):
            f, r = s % 5, s // 5
            for _ in range(k % 4):
                f, r = r, 4 - f
            if k >= 4:
                f = 4 - f
            m.append(r * 5 + f)
        maps.append(m)
    return maps


def symmetries(gods: int) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """For each of the 8 board symmetries: the permutation of the inputs and of the 75 logits.

    ``x[:, perm]`` is the input of the transformed position; ``y[:, pol]`` its prior target.
    """
    out = []
    n = feature_count(gods)
    for m in _square_maps():
        perm = list(range(n))
        for plane in range(PLANES):
            for s in range(25):
                perm[plane * 25 + s] = plane * 25 + m[s]
        pol = [head * 25 + m[s] for head in range(3) for s in range(25)]
        out.append((np.array(perm, dtype=np.int64), np.array(pol, dtype=np.int64)))
    return out


def turn_indices(t: Turn) -> tuple[int, int, int]:
    """The three prior logits of a turn: the worker's square, its end and its first build.

    A turn of both workers (``worker`` -1) counts its first end square as both.
    """
    end = t.path[-1] if t.path else t.worker
    start = t.worker if t.worker >= 0 else end
    build = t.builds[0] & 31 if t.builds else end
    return start, 25 + end, 50 + build


def turn_priors(logits: Sequence[float] | F32, turns: Sequence[Turn]) -> list[float]:
    """The prior share of each of ``turns``: the softmax of their logits (``turn_indices``)."""
    idx = np.array([turn_indices(t) for t in turns], dtype=np.int64)
    z = np.asarray(logits, dtype=np.float64)[idx].sum(axis=1)
    z = np.exp(z - z.max())
    out: list[float] = (z / z.sum()).tolist()
    return out


def hand_offsets(positions: Sequence[Position], weights: Weights = CLASSIC) -> tuple[F32, F32]:
    """The hand-written evaluation of each position for its mover, over 600, and its threats.

    With the weights a net was trained on (``Net.offset``), whatever the search uses.

    A residual net adds the first before its value's tanh: a score of 300 (a 73% win chance in
    the search's units) gives tanh(0.5), the same chance.
    """
    offsets = np.empty(len(positions), dtype=np.float32)
    threats = np.empty(len(positions), dtype=np.float32)
    for i, p in enumerate(positions):
        score, pressure = hand_evaluate(p, p.side_of(p.to_move), weights)
        offsets[i] = score / 600.0
        threats[i] = pressure
    return offsets, threats


_SCALAR_BITS: Final = (
    # (bit, scalar input, weight): the scalar inputs as sums of a 13th plane's bits.
    *((k, 0, 0.5) for k in range(4)),  # own workers over two: >= 1, ..., >= 4
    *((4 + k, 1, 0.5) for k in range(4)),  # other workers over two
    (8, 2, 1.0),  # own win squares >= 1
    (9, 3, 1.0),  # own win squares >= 2
    (10, 4, 1.0),  # other win squares >= 1
    (11, 5, 1.0),  # other win squares >= 2
    (12, 6, 1.0),  # own power state
    (13, 7, 1.0),  # other power state
)
"""How ``_rows``'s 13th plane makes ``encode``'s scalar inputs (``_Inference``)."""


def _rows(p: Position, gods: Mapping[str, int], pairs: int) -> tuple[list[int], int]:
    """The 12 planes of ``p`` and a 13th of its scalars as bits, and its gods' pair index.

    The scalar plane's bits (``_SCALAR_BITS``): own workers >= 1 to >= 4, other workers the
    same, own win squares >= 1, >= 2, other win squares the same, own and other power state.
    The pair index is ``own * pairs + other`` (each god's input, 0 for none).
    """
    me = p.to_move
    row = _planes(p)
    own_w = row[10].bit_count()
    other_w = row[11].bit_count()
    state = p.power_state
    bits = (
        _COUNT[row[5].bit_count()]
        | _COUNT[row[6].bit_count()] << 4
        | _COUNT[own_w] << 8 & 0x300
        | _COUNT[other_w] << 10 & 0xC00
    )
    if state:
        bits |= bool(state[me]) << 12 | bool(state[1 - me]) << 13
    row.append(bits)
    return row, gods.get(p.gods[me], 0) * pairs + gods.get(p.gods[1 - me], 0)


_COUNT: Final = tuple((1 << min(n, 4)) - 1 for n in range(26))
"""A count as bits ``>= 1``, ``>= 2``, ... (at most four; a board holds no more workers)."""


@dataclass(frozen=True)
class _Inference:
    """A net's first layer rearranged for play: one product of bits, one bias a god pair.

    ``encode``'s inputs are zeros and ones on squares, a few scalars that are sums of flags
    (a count of workers over two is two flags of a half each) and two one-hot gods. So the
    first layer is the product of the 13 planes' bits (``_rows``) with ``w0`` (the square
    rows, then the scalar flags' rows) plus a bias for each pair of gods, which holds the
    layer's own bias. Equal to ``Net.forward`` up to float rounding, with a fifth of the
    numpy calls and no dense input built in Python.
    """

    w0: F32
    bias: F32
    rest: list[tuple[F32, F32]]
    value_w: F32
    value_b: float
    pairs: int

    @classmethod
    def of(cls, net: Net) -> _Inference:
        """Rearrange ``net``'s weights (once per net)."""
        w, b = net.layers[0]
        g = len(net.gods) + 1
        squares = PLANES * 25
        flags = np.zeros((25, w.shape[1]), dtype=np.float32)
        for bit, col, weight in _SCALAR_BITS:
            flags[bit] = weight * w[squares + col]
        w0 = np.ascontiguousarray(np.concatenate((w[:squares], flags)), dtype=np.float32)
        gods0 = squares + SCALARS
        own = w[gods0 : gods0 + g]
        other = w[gods0 + g : gods0 + 2 * g]
        bias = (b[None, None, :] + own[:, None, :] + other[None, :, :]).reshape(g * g, -1)
        return cls(
            w0,
            np.ascontiguousarray(bias, dtype=np.float32),
            [(np.ascontiguousarray(w), np.ascontiguousarray(b)) for w, b in net.layers[1:]],
            np.ascontiguousarray(net.value[0][:, 0]),
            float(net.value[1][0]),
            g,
        )

    def hidden(self, positions: Sequence[Position], gods: Mapping[str, int]) -> F32:
        """The last hidden layer of a batch (n, hidden)."""
        rows = []
        pair = []
        pairs = self.pairs
        for p in positions:
            row, k = _rows(p, gods, pairs)
            rows.append(row)
            pair.append(k)
        x = ((np.array(rows, dtype=np.int64)[:, :, None] >> _SHIFTS) & 1).astype(np.float32)
        h = x.reshape(len(rows), -1) @ self.w0
        h += self.bias[pair]
        np.maximum(h, 0.0, out=h)
        for w, b in self.rest:
            h = h @ w
            h += b
            np.maximum(h, 0.0, out=h)
        return h


def value_to_score(v: float) -> int:
    """Turn a value in (-1, 1) into the search's score units (300 ~ a 73% win chance)."""
    q = min(max((v + 1.0) / 2.0, 1e-3), 1 - 1e-3)
    return round(300.0 * math.log(q / (1.0 - q)))


@dataclass
class Net:
    """A trained network: weights, the gods it knows and how much it saw of each.

    ``layers`` are (weight, bias) pairs of the shared trunk (ReLU after each); ``value``
    and ``policy`` the heads. ``record`` is how the weights were made (free-form JSON). A
    ``residual`` net learns a correction to the hand-written evaluation: its value is
    ``tanh(net + hand / 600)``, so before any training it is exactly the hand-written one;
    ``offset`` is the hand-written evaluation's weights it was trained on (``CLASSIC`` for a
    file that names none).
    """

    layers: list[tuple[F32, F32]]
    value: tuple[F32, F32]
    policy: tuple[F32, F32]
    gods: dict[str, int]
    god_positions: dict[str, int]
    record: dict[str, object] = field(default_factory=dict)
    residual: bool = False
    digest: str = ""
    """The first hex digits of the SHA-256 of the file it was read from ("" if made here)."""
    offset: Weights = CLASSIC
    _fast: _Inference | None = field(default=None, init=False, repr=False, compare=False)

    def supports(self, p: Position) -> bool:
        """Whether the net evaluates ``p``: two players, and every god seen often enough."""
        if len(p.gods) != 2:
            return False
        for g in p.gods:
            if g and (g not in self.gods or self.god_positions.get(g, 0) < MIN_GOD_POSITIONS):
                return False
        return True

    def forward(self, x: F32, offset: F32 | None = None) -> tuple[F32, F32]:
        """Return the values (n,) and prior logits (n, 75) of encoded inputs ``x``.

        ``offset`` (n,) is added before the value's tanh: a residual net's hand-written
        evaluation (``hand_offsets``).
        """
        h = x
        for w, b in self.layers:
            h = np.maximum(h @ w + b, 0.0)
        z = (h @ self.value[0] + self.value[1])[:, 0]
        if offset is not None:
            z = z + offset
        return np.tanh(z), h @ self.policy[0] + self.policy[1]

    @property
    def _inference(self) -> _Inference:
        """The weights rearranged for play (``_Inference``), made on first use.

        A net's arrays are not changed once it has played (``fit`` trains copies); one
        changed in place would keep playing with the old weights.
        """
        fast = self._fast
        if fast is None:
            fast = self._fast = _Inference.of(self)
        return fast

    def evaluate(self, positions: Sequence[Position]) -> tuple[F32, F32, F32]:
        """Return values, prior logits and the threats each mover faces, of a batch."""
        h = self._inference.hidden(positions, self.gods)
        z = h @ self._inference.value_w + self._inference.value_b
        logits = h @ self.policy[0] + self.policy[1]
        if self.residual:
            offset, threats = hand_offsets(positions, self.offset)
            return np.tanh(z + offset), logits, threats
        return np.tanh(z), logits, other_wins(encode(positions, self.gods))

    def prior(self, p: Position) -> list[float]:
        """The 75 prior logits of ``p``'s turns (``turn_indices`` names a turn's three)."""
        h = self._inference.hidden([p], self.gods)
        out: list[float] = (h[0] @ self.policy[0] + self.policy[1]).tolist()
        return out

    def scores(self, positions: Sequence[Position]) -> tuple[list[int], list[int]]:
        """Return the search's scores of a batch for each mover, and the threats it faces.

        A score is ``value_to_score`` of the value, which is 600 times the value's argument
        to tanh (within the chances 0.001 to 0.999); the prior is not computed. A threat is a
        square where the other side would win by moving.
        """
        fast = self._inference
        z = fast.hidden(positions, self.gods) @ fast.value_w + fast.value_b
        if self.residual:
            offset, threats = hand_offsets(positions, self.offset)
            z += offset
        else:
            threats = other_wins(encode(positions, self.gods))
        scores = np.rint(np.clip(z, -_Z_MAX, _Z_MAX) * 600.0).astype(np.int64)
        return scores.tolist(), threats.astype(np.int64).tolist()

    def to_bytes(self) -> bytes:
        """The weights as an ``.npz`` file's bytes (no pickled objects)."""
        arrays: dict[str, NDArray[np.generic]] = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = b
        arrays["wv"], arrays["bv"] = self.value
        arrays["wp"], arrays["bp"] = self.policy
        meta = {
            "feature_version": FEATURE_VERSION,
            "gods": sorted(self.gods, key=self.gods.__getitem__),
            "god_positions": self.god_positions,
            "record": self.record,
            "residual": self.residual,
        }
        if self.offset != CLASSIC:
            # Named only when not the classic weights: older files stay byte for byte.
            meta["offset"] = self.offset.to_json()
        arrays["meta"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8)
        out = io.BytesIO()
        np.savez_compressed(out, **arrays)  # type: ignore[arg-type]
        return out.getvalue()

    def save(self, path: Path) -> None:
        """Write the weights to ``path`` (an ``.npz`` file)."""
        path.write_bytes(self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes, where: str = "weights") -> Net:
        """Read weights written by ``to_bytes``.

        Raises:
            ValueError: not such a file, or one for another input layout (naming ``where``).
        """
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
            meta = json.loads(bytes(arrays.pop("meta")).decode())
        except (OSError, ValueError, KeyError, UnicodeDecodeError) as e:
            raise ValueError(f"{where}: not a weights file ({e})") from None
        if meta.get("feature_version") != FEATURE_VERSION:
            raise ValueError(
                f"{where}: inputs of version {meta.get('feature_version')!r}, "
                f"expected {FEATURE_VERSION}"
            )
        layers = []
        i = 0
        while f"w{i}" in arrays:
            layers.append((arrays[f"w{i}"].astype(np.float32), arrays[f"b{i}"].astype(np.float32)))
            i += 1
        gods = {name: k + 1 for k, name in enumerate(meta["gods"])}
        try:
            net = cls(
                layers,
                (arrays["wv"].astype(np.float32), arrays["bv"].astype(np.float32)),
                (arrays["wp"].astype(np.float32), arrays["bp"].astype(np.float32)),
                gods,
                {str(k): int(v) for k, v in meta.get("god_positions", {}).items()},
                dict(meta.get("record", {})),
                bool(meta.get("residual", False)),
                hashlib.sha256(data).hexdigest()[:16],
                Weights.from_json(meta["offset"]) if "offset" in meta else CLASSIC,
            )
        except KeyError as e:
            raise ValueError(f"{where}: missing array {e}") from None
        except ValueError as e:
            raise ValueError(f"{where}: bad offset weights ({e})") from None
        if not layers or layers[0][0].shape[0] != feature_count(len(gods)):
            raise ValueError(f"{where}: its first layer does not fit {len(gods)} gods' inputs")
        return net

    @classmethod
    def load(cls, path: Path) -> Net:
        """Read weights from ``path``.

        Raises:
            ValueError: not a weights file, or unreadable (naming the path).
        """
        try:
            data = path.read_bytes()
        except OSError as e:
            raise ValueError(f"{path}: cannot read ({e.strerror})") from None
        return cls.from_bytes(data, str(path))


@cache
def shipped() -> Net | None:
    """The weights shipped in the package, or None when the package has none."""
    ref = resources.files("santorini_p2p.ai").joinpath("weights", SHIPPED)
    try:
        data = ref.read_bytes()
    except (FileNotFoundError, OSError):
        return None
    return Net.from_bytes(data, f"santorini_p2p/ai/weights/{SHIPPED}")
