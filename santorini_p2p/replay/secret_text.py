"""A secret table's replay as text (``replay info`` and ``replay export --format text``).

The file is checked as ``replay verify`` checks it (``replay.secret``); then every record is
fed again to a fresh checker so that each line can say what it did: the deal, each turn in
the turn text of RULES.md section 7, each reveal and objection (and the turn it voided), when
the cards passed, who left, each forfeit and the result.

Public API: ``secret_info(data, name) -> (lines, ok)`` and ``secret_text(data) -> (text, ok)``.
"""

from __future__ import annotations

from santorini_p2p.errors import WireError
from santorini_p2p.wire.framing import iter_frames
from santorini_p2p.wire.identity import fingerprint
from santorini_p2p.wire.partygame import PartyGame
from santorini_p2p.wire.secretgame import (
    Forfeit,
    Move,
    Object,
    Open,
    SecretGame,
    SecretRecordError,
)
from santorini_p2p.wire.secretlog import (
    first_prev,
    make_game,
    read_records,
    read_seats,
    record_decoder,
)

__all__ = ["secret_info", "secret_text"]


def _mode(g: SecretGame | PartyGame) -> str:
    if isinstance(g, SecretGame):
        return "secret gods"
    return "Agora" if g.agora else f"Party, the cards passing every {g.every} turns"


def _gods(g: SecretGame | PartyGame) -> tuple[str, ...]:
    if isinstance(g, SecretGame):
        return tuple(x or "?" for x in g.gods)
    return g.position.gods if g.position is not None else ()


def _events(data: bytes) -> tuple[list[str], SecretGame | PartyGame | None, str]:
    """Each record's line, the checker after the last good one, and the error if any."""
    frames = list(iter_frames(data))
    _, _, keys = read_seats(frames[0])
    g = make_game(frames[0])
    lines: list[str] = []
    records: list[object] = []
    try:
        rs = read_records(frames[1:], keys, 1, first_prev(frames[0]), record_decoder(g))
    except (WireError, ValueError) as e:
        return lines, g, str(e)
    passes = eliminated = 0
    dealt = False
    turn = 0
    for r in rs:
        try:
            g.feed(r)
        except (SecretRecordError, ValueError) as e:
            return lines, g, str(e)
        records.append(r)
        n = len(records)
        who = f"seat {r.seat + 1}"
        if not dealt and (
            (isinstance(g, SecretGame) and g.dealt)
            or (isinstance(g, PartyGame) and g.position is not None)
        ):
            dealt = True
            how = "shuffled and stripped" if isinstance(g, SecretGame) else "drawn from the chains"
            lines.append(f"[{n}] the deal is done ({n} signed records, gods {how})")
        if isinstance(r, Move):
            turn += 1
            lines.append(f"[{n}] {turn}. {who}: {r.action}")
        elif isinstance(r, Object):
            void = records[r.of] if 0 <= r.of < len(records) else None
            what = f"{void.action} " if isinstance(void, Move) else ""
            mover = f"seat {void.seat + 1}" if isinstance(void, Move) else "the mover"
            lines.append(
                f"[{n}] {who} objects and reveals {r.god}: {mover}'s turn {what}is void; "
                f"{mover} plays again"
            )
        elif isinstance(r, Open):
            why = (
                "for the audit"
                if isinstance(g, SecretGame) and (g.owed() or g.result is not None)
                else "with the turn that needs it"
            )
            lines.append(f"[{n}] {who} reveals {r.god} {why}")
        elif isinstance(r, Forfeit):
            lines.append(f"[{n}] seat {r.late + 1} forfeits: {r.reason} (signed by {who})")
        if isinstance(g, PartyGame) and g.position is not None:
            if len(g.passes) > passes:
                passes = len(g.passes)
                gods = ", ".join(f"seat {s + 1} {x}" for s, x in enumerate(g.position.gods))
                lines.append(f"[{n}] the cards pass after turn {g.passes[-1]}: {gods}")
            out = g.position.eliminated & ~eliminated
            for s in range(g.players):
                if out >> s & 1:
                    lines.append(f"[{n}] seat {s + 1} cannot play and leaves the game")
            eliminated = g.position.eliminated
    return lines, g, ""


def _head(data: bytes, name: str) -> list[str]:
    frames = list(iter_frames(data))
    game_id, pool, keys = read_seats(frames[0])
    lines = [f"file          {name}"] if name else []
    lines += [f"seat {s + 1}        {fingerprint(k)}" for s, k in enumerate(keys)]
    lines.append(f"god pool      {', '.join(pool)}")
    lines.append(f"game id       {game_id.hex()}")
    return lines


def _check(data: bytes) -> str:
    """Why ``data`` is no secret table replay at all ("" when it is one)."""
    try:
        frames = list(iter_frames(data))
        if not frames:
            return "an empty file"
        read_seats(frames[0])
        make_game(frames[0])
    except (WireError, ValueError) as e:
        return str(e)
    return ""


def secret_info(data: bytes, name: str) -> tuple[list[str], bool]:
    """The lines of ``replay info`` for a table replay, and whether it verifies."""
    bad = _check(data)
    if bad:
        return [f"file          {name}", f"verification  {bad}"], False
    _, g, err = _events(data)
    assert g is not None
    head = _head(data, name)
    over = g.result is not None
    turns = len(g.plays) if isinstance(g, SecretGame) else g.turns
    verification = err or ("ok" if over else "the game is not over: its result is not final")
    return [
        *head,
        f"mode          {_mode(g)}",
        f"gods          {', '.join(_gods(g))}",
        f"result        {g.result[1] if g.result is not None else 'not over'}",
        f"turns         {turns} ({len(list(iter_frames(data))) - 1} records)",
        f"verification  {verification}",
    ], not err and over


def secret_text(data: bytes) -> tuple[str, bool]:
    """The whole game as text: the header, every record's line, the result; and whether ok."""
    bad = _check(data)
    if bad:
        return f"not a secret table replay: {bad}\n", False
    lines, g, err = _events(data)
    assert g is not None
    out = [*_head(data, ""), f"mode          {_mode(g)}", ""]
    out += lines
    out.append("")
    if err:
        out.append(f"verification failed: {err}")
    elif g.result is None:
        out.append("the game is not over: its result is not final")
    else:
        out.append(f"gods: {', '.join(_gods(g))}")
        out.append(f"result: {g.result[1]}")
    return "\n".join(out) + "\n", not err and g.result is not None
