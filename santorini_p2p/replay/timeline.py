"""The one replay reader behind every export: a replay file folded into a timeline.

``read_timeline(data)`` folds a replay file through the log validator (``wire.log``) and keeps
what the exports show: the players in final seat order with fingerprints and gods, the first
position after the draw, one ``Step`` per record that a reader sees (actions, resignations,
timeouts, offers and acceptances) with the position, state hash and clocks after it, and the
result. A file that fails verification yields the timeline up to its first bad record, with
``ok`` false and the record's number and reason, so every export says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Final

from santorini_p2p.engine import (
    ADVANCED,
    Effect,
    Phase,
    Position,
    find_god,
    format_position,
    parse_turn,
    turn_effects,
)
from santorini_p2p.errors import ReplayError, WireError
from santorini_p2p.wire.identity import fingerprint
from santorini_p2p.wire.log import Record, Validator, encode_frames, iter_frames
from santorini_p2p.wire.messages import (
    Accept,
    Act,
    Answer,
    Ask,
    Chat,
    Forfeit,
    Header,
    Object,
    Offer,
    Open,
    Resign,
    Timeout,
)

__all__ = [
    "Player",
    "Step",
    "Timeline",
    "describe_result",
    "format_clock",
    "format_seconds",
    "has_advanced_god",
    "is_taken_back",
    "move_numbers",
    "pass_line",
    "plays_alone",
    "read_timeline",
    "squares_of",
    "step_before",
    "step_effects",
]

_SQUARE: Final = re.compile(r"[a-e][1-5]")
_ADVANCED: Final = frozenset(g.name for g in ADVANCED)


@dataclass(frozen=True, slots=True)
class Player:
    """One player as the exports show it: final seat (0-based), name, key, god and its power."""

    seat: int
    name: str
    public_key: bytes
    fingerprint: str
    god: str
    power: str


@dataclass(frozen=True, slots=True)
class Step:
    """One record a reader sees, and the game after it.

    ``number`` counts steps from 1; ``record`` is the record's number in the log; ``seat``
    the signer's seat when it signed (0-based) and ``player`` who that is (an index into
    ``Timeline.players``); ``kind`` is ``act``, ``resign``, ``timeout``,
    ``offer``, ``accept`` or ``chat``, or with secret gods ``open``, ``object`` (the act
    before it is void) or ``forfeit`` (SECRET.md), in Party ``pass`` (the cards passed on
    with the last ack of a turn: the position shows the gods after); ``text`` the action text
    or a short phrase for the others;
    ``clock_ms`` the mover's clock reading (acts only); ``banks`` the bank left per seat after
    it (in ``position``'s seat order); ``order`` the player (index into ``Timeline.players``)
    holding each seat of ``position``.
    """

    number: int
    record: int
    seat: int
    player: int
    kind: str
    text: str
    clock_ms: int | None
    banks: tuple[int, ...]
    order: tuple[int, ...]
    position: Position
    state_hash: bytes

    @property
    def position_text(self) -> str:
        """The position string after this step."""
        return format_position(self.position)

    @property
    def bank_ms(self) -> int:
        """The signer's bank left after this step, in ms."""
        return self.banks[self.order.index(self.player)]


@dataclass(frozen=True, slots=True)
class Timeline:
    """A replay as the exports need it; ``ok`` false means it stops before its first bad record.

    ``data`` is the replay file of the records read (the whole file when it verified);
    ``positions`` holds the position after each record (``None`` before the draw).
    """

    data: bytes
    records: tuple[Record, ...]
    positions: tuple[Position | None, ...]
    header: Header | None
    players: tuple[Player, ...]
    start: Position | None
    start_order: tuple[int, ...]
    steps: tuple[Step, ...]
    result: tuple[int, str] | None
    ok: bool
    error: str = ""
    bad_record: int | None = None
    error_kind: str = ""

    @property
    def turns(self) -> int:
        """The number of turns of play that stand: no setup action, no turn taken back."""
        played = sum(1 for s in self.steps if s.kind == "act" and _is_turn(s.text))
        void = sum(1 for s in self.steps if is_taken_back(s) or s.kind == "object")
        return played - void

    @property
    def moves(self) -> int:
        """The actions that stand, setup included: the last number of the game's numbering."""
        return sum(1 for s in self.steps if s.kind == "act") - sum(
            1 for s in self.steps if is_taken_back(s) or s.kind == "object"
        )

    @property
    def result_text(self) -> str:
        """The result in words (``unfinished`` when the log has none)."""
        if self.result is None:
            return "unfinished"
        names = [p.name for p in self.players]
        return describe_result(self.result, names, plays_alone(self.header))

    @property
    def verification(self) -> str:
        """``ok``, or where and why the file fails verification."""
        if self.ok:
            return "ok"
        if self.bad_record is None:
            return f"fails: {self.error}"
        return f"fails at record {self.bad_record}: {self.error}"

    @property
    def date(self) -> str:
        """The header's creation time as ``YYYY-MM-DD HH:MM:SS`` UTC, ``""`` when not recorded."""
        ms = self.header.created_ms if self.header is not None else 0
        if ms <= 0:
            return ""
        return datetime.fromtimestamp(ms // 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")

    @property
    def time_control(self) -> str:
        """``MOVE+BANK`` in seconds, or ``-`` when untimed."""
        h = self.header
        if h is None or (h.move_ms == 0 and h.bank_ms == 0):
            return "-"
        return f"{format_seconds(h.move_ms)}+{format_seconds(h.bank_ms)}"


def _is_turn(text: str) -> bool:
    return text[:1] in "Habcde"


TAKEN_BACK: Final = " is taken back"
"""How the acceptance that completes a takeback ends its step text."""


def is_taken_back(step: Step) -> bool:
    """Whether ``step`` is the acceptance that took a turn back (SPEC.md 8.2)."""
    return step.kind == "accept" and step.text.endswith(TAKEN_BACK)


def move_numbers(steps: tuple[Step, ...] | list[Step]) -> tuple[int, ...]:
    """Return each step's number in the game's one numbering, 0 for an unnumbered note.

    Every action is numbered, the setup's included (god offers and picks, placements), as
    the console's Turns panel and the replay viewer number them; chat lines, requests,
    acceptances, resignations and timeout claims are notes. The acceptance that takes a turn
    back is a note too, and the next action takes the undone turn's number again (the undone
    turn kept the number it was played with); so does the objection that voids a turn of a
    game with secret gods.
    """
    out: list[int] = []
    standing = 0
    for s in steps:
        if s.kind == "act":
            standing += 1
            out.append(standing)
        else:
            # A takeback's acceptance, or an objection to a hidden god's rule, voids the act.
            standing -= is_taken_back(s) or s.kind == "object"
            out.append(0)
    return tuple(out)


def format_seconds(ms: int) -> str:
    """Return ``ms`` as seconds: ``60``, or ``1.5`` when not whole (exact to the millisecond)."""
    whole, rest = divmod(ms, 1000)
    return str(whole) if rest == 0 else f"{whole}.{rest:03d}".rstrip("0")


def format_clock(ms: int) -> str:
    """Return ``ms`` as ``m:ss.mmm`` (exact, minutes unbounded)."""
    minutes, rest = divmod(max(0, ms), 60_000)
    return f"{minutes}:{rest // 1000:02d}.{rest % 1000:03d}"


def squares_of(text: str) -> frozenset[int]:
    """Return the squares (0-based indices) an action text names, for highlighting."""
    return frozenset((int(m[1]) - 1) * 5 + "abcde".index(m[0]) for m in _SQUARE.findall(text))


def has_advanced_god(t: Timeline) -> bool:
    """Whether one of ``t``'s players holds one of the fifteen advanced gods (RULES.md 8)."""
    return any(p.god in _ADVANCED for p in t.players)


def step_before(t: Timeline, number: int) -> Position | None:
    """Return the position before step ``number`` (1-based): the start for the first."""
    return t.steps[number - 2].position if number > 1 else t.start


def step_effects(t: Timeline) -> tuple[tuple[Effect, ...], ...]:
    """Return what each step's turn did to the other workers and the buildings, step by step.

    Only a turn of play has effects (``engine.turn_effects``): a swap, push or ferry, a worker
    removed, a side out, a block removed. Every other step has none.
    """
    out: list[tuple[Effect, ...]] = []
    before = t.start
    for s in t.steps:
        effects: tuple[Effect, ...] = ()
        if s.kind == "act" and before is not None and before.phase is Phase.PLAY:
            effects = turn_effects(before, parse_turn(s.text), s.position)
        out.append(effects)
        before = s.position
    return tuple(out)


def describe_result(result: tuple[int, str], names: list[str], alone: bool = False) -> str:
    """Return the result ``(winner seat or -1, reason)`` in words, naming the players.

    ``alone``: an Agora game (SECRET.md 11), where a player of four wins alone, not as a team.
    """
    winner, reason = result
    if reason in ("draw", "abort"):
        return "drawn by agreement" if reason == "draw" else "aborted by agreement"
    if winner < 0:
        return "ended with no winner"
    if len(names) == 4 and not alone:
        who, verb = f"{names[winner]} and {names[(winner + 2) % 4]}", "won as a team"
    else:
        who, verb = names[winner], "won alone" if alone else "won"
    how = {
        "resign": " by resignation",
        "time": " on time",
        "forfeit": " by forfeit",
        "fault": " (the audit found a fault)",
    }.get(reason, "")
    return f"{who} {verb}{how}"


def plays_alone(header: Header | None) -> bool:
    """Whether ``header``'s game is one where each of four players wins alone (Agora)."""
    return header is not None and "agora" in header.options


def _event(record: Record, v: Validator, open_takeback: str) -> tuple[str, str, int | None] | None:
    """Return ``(kind, text, clock)`` for a record a reader sees, or ``None`` (acks, ...).

    ``v`` is the validator after the record; ``open_takeback`` the turn a takeback offer open
    before it asked to take back.
    """
    msg = record.message
    match msg:
        case Offer(kind="takeback"):
            o = v.takeback_offer
            return "offer", f"asks to take back {o.turn if o else '?'}", None
        case Accept(kind="takeback"):
            if v.takeback_offer is None:
                return "accept", f"accepts the takeback: {open_takeback}{TAKEN_BACK}", None
            return "accept", "accepts the takeback", None
        case Act():
            return "act", msg.action, msg.clock_ms
        case Resign():
            return "resign", "resigns", None
        case Timeout():
            return "timeout", f"claims seat {msg.seat + 1} ran out of time", None
        case Offer():
            return "offer", "offers a draw" if msg.kind == "draw" else "offers to abort", None
        case Accept():
            return "accept", f"accepts the {msg.kind}", None
        case Chat():
            return "chat", f"says: {msg.text}", None
        case Open():
            why = "for the audit" if _over(v) else "for the turn that needs it"
            return "open", f"reveals {msg.god} {why}", None
        case Object():
            return "object", f"objects and reveals {msg.god}: record {msg.objected} is void", None
        case Forfeit():
            return "forfeit", f"records that seat {msg.late + 1} forfeits: {msg.reason}", None
        case Ask():
            return "ask", f"asks after {msg.asked}", None
        case Answer():
            what = "no worker" if msg.answer == "-" else f"a worker on {msg.answer[1:]}"
            return "answer", f"answers: {what}", None
        case _:
            return None


def pass_line(step: Step, header: Header | None) -> str:
    """A Party step's words naming the rule that passed the cards, not a player.

    ``the cards pass after turn T (pass=K)``: the header's ``pass=K`` is the trigger (SECRET.md
    10); no one signs a pass (it comes with the last ack of turn T).
    """
    every = [o for o in (header.options if header is not None else ()) if o.startswith("pass=")]
    return f"{step.text} ({every[0]})" if every else step.text


def _passing(v: Validator) -> bool:
    """Whether ``v``'s game is a Party game, whose cards pass on (SECRET.md 10)."""
    h = v.header
    return h is not None and "party" in h.options


def _over(v: Validator) -> bool:
    """Whether a secret game's public position is over (its openings are for the audit)."""
    g = v.secret
    return g is not None and (g.result is not None or g.position.phase is Phase.OVER)


def read_timeline(data: bytes) -> Timeline:
    """Fold the replay file ``data`` into a timeline; never raises for bad input.

    A file that fails verification gives the records before the first bad one, ``ok``
    false, and the bad record's number, reason and error kind.
    """
    v = Validator()
    positions: list[Position | None] = []
    steps: list[Step] = []
    start: Position | None = None
    start_keys: tuple[bytes, ...] = ()
    error, bad, kind = "", None, ""
    raws: list[bytes] = []
    step_keys: list[tuple[bytes, ...]] = []
    open_takeback = ""
    try:
        for raw in iter_frames(data):
            record = v.feed(raw)
            raws.append(raw)
            p = v.position
            positions.append(p)
            if p is None:
                continue
            if start is None:
                start, start_keys = p, v.seats
                continue
            event = _event(record, v, open_takeback)
            before = positions[-2] if len(positions) > 1 else None
            if event is None and before is not None and before.gods != p.gods and _passing(v):
                event = ("pass", f"the cards pass after turn {v.turns}", None)
            o = v.takeback_offer
            open_takeback = o.turn if o is not None else ""
            if event is None:
                continue
            kind_, text, clock = event
            steps.append(
                Step(
                    len(steps) + 1,
                    record.index,
                    record.seat if record.seat is not None else -1,
                    -1,
                    kind_,
                    text,
                    clock,
                    v.clocks,
                    (),
                    p,
                    v.state_hash,
                )
            )
            step_keys.append((record.signer, *v.seats))
    except ReplayError as e:
        cause = e.__cause__
        error, bad = e.reason, e.record_index
        kind = type(cause).__name__ if cause is not None else "ReplayError"
    except WireError as e:
        error, bad, kind = e.reason, e.record, type(e).__name__
    ok = not error
    if ok and not v.is_complete:
        ok, bad, kind = False, v.next_seq, "RecordError"
        error = "truncated: the log ends before every seat signed the result"
    keys = v.seats  # header slot order until the draw fixes the seats
    final = v.position
    players = tuple(
        Player(
            i,
            name,
            key,
            fingerprint(key),
            god := (final.gods[i] if final is not None else ""),
            find_god(god).power if god not in ("", "?") else "",
        )
        for i, (key, name) in enumerate(zip(keys, v.names, strict=True))
    )
    index = {p.public_key: p.seat for p in players}
    steps = [
        replace(s, player=index[ks[0]], order=tuple(index[k] for k in ks[1:]))
        for s, ks in zip(steps, step_keys, strict=True)
    ]
    return Timeline(
        data=data if ok else encode_frames(raws),
        records=v.records,
        positions=tuple(positions),
        header=v.header,
        players=players,
        start=start,
        start_order=tuple(index[k] for k in start_keys),
        steps=tuple(steps),
        result=v.result,
        ok=ok,
        error=error,
        bad_record=bad,
        error_kind=kind,
    )
