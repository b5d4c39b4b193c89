"""Whole logs from scripted games: for examples, vectors, benchmarks and tests.

``play_script`` plays the lockstep order of protocol/SPEC.md section 8 for a list of
identities (all held locally): header, commits, reveals, then for every action the mover's
``Act`` and each other seat's ``Ack``, and at the end a ``Result`` from every seat in seat
order. A live session does the same, one peer per identity. In a log of protocol 3, a turn
in which another seat chooses (Gaea's ``+``) is preceded by the mover's ``Ask`` and that
seat's ``Answer`` for each choice its text writes (SPEC.md 8.4).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from santorini_p2p.engine import GodMode, Position, Turn, find_turn, parse_action
from santorini_p2p.engine.choices import Choice, choices
from santorini_p2p.errors import SantoriniError
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import Validator, make_header, seal

__all__ = ["Chooser", "play_script", "script_nonce"]

Chooser = Callable[[Position], str]
"""Picks the next action text for a position (a bot, or a fixed list read in order)."""


def script_nonce(game_id: bytes, slot: int) -> bytes:
    """Return a deterministic 32-byte nonce for ``slot`` (scripted games only, never live)."""
    return hashlib.blake2b(b"script nonce" + game_id + bytes([slot]), digest_size=32).digest()


def play_script(
    identities: Sequence[Identity],
    actions: Sequence[str] | Chooser,
    *,
    game_id: bytes = bytes(16),
    gods: GodMode = "none",
    move_ms: int = 0,
    bank_ms: int = 0,
    options: Sequence[str] = (),
    created_ms: int = 0,
    clock_ms: int = 0,
    finish: bool = True,
    pool: Sequence[str] = (),
    max_actions: int = 400,
) -> list[bytes]:
    """Return the envelopes of a game between ``identities`` (header order = slot order).

    ``actions`` is a list of action texts played in order, or a function choosing each one.
    The game ends when the rules end it, when the list runs out or after ``max_actions``;
    with ``finish`` an unfinished game then ends by the seat to move resigning, and every
    seat signs the result.

    Raises:
        ReplayError: an action is illegal (the message names it).
    """
    header = make_header(
        game_id,
        [(i.public_key, i.name) for i in identities],
        gods=gods,
        move_ms=move_ms,
        bank_ms=bank_ms,
        options=options,
        created_ms=created_ms,
        pool=pool,
    )
    v = Validator()
    out = [seal(identities[0], header)]
    v.feed(out[0])
    by_key = {i.public_key: i for i in identities}

    def add(raw: bytes) -> None:
        v.feed(raw)
        out.append(raw)

    for slot, ident in enumerate(identities):
        add(v.make_commit(ident, script_nonce(game_id, slot)))
    for slot, ident in enumerate(identities):
        add(v.make_reveal(ident, script_nonce(game_id, slot)))
    texts = iter(actions) if not callable(actions) else None
    for _ in range(max_actions):
        p = v.position
        assert p is not None
        if v.is_over:
            break
        if texts is not None:
            text = next(texts, None)
            if text is None:
                break
        else:
            assert callable(actions)
            text = actions(p)
        mover = by_key[v.seats[p.to_move]]
        if v.asks:
            for c in _choices_in(p, text):
                add(v.make_ask(mover, c.asked))
                add(v.make_answer(by_key[v.seats[c.seat]], c.answer))
        add(v.make_act(mover, text, clock_ms))
        for seat in v.pending_acks:
            add(v.make_ack(by_key[v.seats[seat]]))
    if not finish:
        return out
    while not v.is_over:
        p = v.position
        assert p is not None
        add(v.make_resign(by_key[v.seats[p.to_move]]))
    for seat in range(len(identities)):
        add(v.make_result(by_key[v.seats[seat]]))
    return out


def _choices_in(p: Position, text: str) -> tuple[Choice, ...]:
    """The choices other seats make in the turn ``text`` (none if it is not a legal turn)."""
    try:
        action = parse_action(text)
        if not isinstance(action, Turn):
            return ()
        return choices(p, find_turn(p, text))
    except SantoriniError:
        return ()  # the act itself is refused, naming the text
