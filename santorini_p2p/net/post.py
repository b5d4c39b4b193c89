"""Correspondence games: the signed log carried in text blocks through any channel (POST.md).

Each side keeps its games under ``$SANTORINI_HOME/post/``: ``<game>.sntr``, the log so far in
the replay file format, and ``<game>.json``, what is not in the log (the invitation, the other
side's key once known, the secret nonce of this side's commitment, how many records the other
side has acknowledged, the computer's level, times). Both are written whole and renamed; the
nonce is written before the commitment leaves.

A game goes: the inviter's **invitation** (settings, no record) -> the invitee writes the
header (the invitee is slot 0) and its commitment -> the inviter commits -> reveals -> play,
each record in the log's lockstep order (SPEC.md 8): acknowledgements, results, commitments
and reveals are signed by the program at once; a turn (or a god pick, a placement) waits for
the player or the computer. Every block carries the records the other side has not
acknowledged, so a lost block is repaired by the next, and a block read twice changes nothing.

This module keeps one game's record: ``PostGame`` (``invite``, ``accept``, ``load``,
``receive``, ``advance``, ``play``, ``outgoing``, ``block_text``, ``status``), and this home's
games (``list_games``, ``find_game``). Beside it: ``net.postio`` (reading a text block, the
files, ``PostError``), ``net.postview`` (records and games worded for people) and
``net.postbot`` (the computer's moves and answers to offers).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from santorini_p2p.engine import Phase, Position, format_action, legal_form, parse_action
from santorini_p2p.engine.gods import GOD_NAMES
from santorini_p2p.errors import IllegalTurnError, NotationError, ReplayError
from santorini_p2p.net.postbot import Bot, Judge, answer_offer
from santorini_p2p.net.postio import PostError, post_dir, write_whole
from santorini_p2p.net.postview import Change, Status, changes_since, result_text
from santorini_p2p.net.trust import ChangedKeyError, KnownPeers
from santorini_p2p.wire.identity import Identity, fingerprint
from santorini_p2p.wire.log import (
    Validator,
    encode_frames,
    make_header,
    read_log,
    seal,
    validate,
)
from santorini_p2p.wire.post import (
    Invitation,
    RecordsBlock,
    armour,
    open_block,
    seal_block,
)

__all__ = ["OPTIONS", "PostGame", "find_game", "list_games"]

OPTIONS: Final = ("chat",)
"""A correspondence game's header options: the players may chat; no takebacks."""


@dataclass(slots=True)
class PostGame:
    """One correspondence game on this side: its log, and what the log does not hold."""

    home: Path
    me: Identity
    state: dict[str, object]
    records: list[bytes] = field(default_factory=list)
    validator: Validator = field(default_factory=Validator)
    waited_ms: int | None = None
    """By this side's clock, how long after its last block the block just read came."""

    # -- creation and storage ------------------------------------------------------------

    @property
    def game_id(self) -> bytes:
        """The game's id (the invitation's, and then the header's)."""
        return bytes.fromhex(str(self.state["game"]))

    @property
    def short(self) -> str:
        """The first 8 hex digits of the game id, as commands name a game."""
        return self.game_id.hex()[:8]

    @property
    def path(self) -> Path:
        """The log's file."""
        return post_dir(self.home) / f"{self.game_id.hex()}.sntr"

    @classmethod
    def invite(
        cls,
        home: Path,
        me: Identity,
        *,
        gods: str,
        pool: tuple[str, ...],
        days: int,
        now_ms: int,
        bot: str | None = None,
        to: bytes = b"",
        to_name: str | None = None,
    ) -> tuple[PostGame, bytes]:
        """Start a game: return it and its invitation block's bytes (saved first).

        ``to`` keeps the invitation for one key; ``to_name`` is the name that key is
        remembered under, shown until the header brings the name it plays under.
        """
        game_id = secrets.token_bytes(16)
        inv = Invitation(game_id, me.public_key, me.name, gods, pool, days, now_ms, to)
        data = seal_block(me, inv)
        state: dict[str, object] = {
            "version": 1,
            "game": game_id.hex(),
            "role": "inviter",
            "invitation": data.hex(),
            "opponent_key": None,
            "opponent_name": to_name if to else None,
            "days": days,
            "nonce": secrets.token_bytes(32).hex(),
            "their_have": 0,
            "bot": bot,
            "since_ms": now_ms,
            "turn_ms": now_ms,
            "replay": None,
        }
        game = cls(home, me, state)
        game.save()
        return game, data

    @classmethod
    def accept(
        cls, home: Path, me: Identity, inv: Invitation, data: bytes, now_ms: int, bot: str | None
    ) -> PostGame:
        """Accept an invitation: write the header (this side is slot 0) and commit.

        Raises:
            PostError: the invitation is this side's own, is for another key, or comes
                under a name this side remembers with another key.
        """
        if inv.sender == me.public_key:
            raise PostError("this is your own invitation: send it to the other player")
        if inv.to and inv.to != me.public_key:
            raise PostError(
                f"this invitation is for the key {fingerprint(inv.to)}, not yours "
                f"({me.fingerprint})"
            )
        try:
            KnownPeers(home).check(inv.name, inv.sender)
        except ChangedKeyError as e:
            raise PostError(str(e)) from None
        try:
            header = make_header(
                inv.game_id,
                [(me.public_key, me.name), (inv.sender, inv.name)],
                gods=inv.gods,  # type: ignore[arg-type]  # checked by the validator below
                options=OPTIONS,
                created_ms=now_ms,
                pool=inv.pool,
            )
        except ValueError as e:
            raise PostError(f"the invitation's settings: {e}") from None
        state: dict[str, object] = {
            "version": 1,
            "game": inv.game_id.hex(),
            "role": "invitee",
            "invitation": data.hex(),
            "opponent_key": inv.sender.hex(),
            "opponent_name": inv.name,
            "days": inv.days,
            "nonce": secrets.token_bytes(32).hex(),
            "their_have": 0,
            "bot": bot,
            "since_ms": now_ms,
            "turn_ms": now_ms,
            "replay": None,
        }
        game = cls(home, me, state)
        try:
            game._add(seal(me, header))
        except ReplayError as e:
            raise PostError(f"the invitation's settings: {e.reason}") from None
        game.advance(None, now_ms)
        return game

    @classmethod
    def load(cls, home: Path, me: Identity, game_id: bytes) -> PostGame:
        """Read a game of this home back (its log re-verified).

        Raises:
            PostError: no such game here, or its files cannot be read.
        """
        base = post_dir(home) / game_id.hex()
        try:
            state = json.loads(base.with_suffix(".json").read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise PostError(f"no correspondence game {game_id.hex()[:8]} here") from None
        except (OSError, ValueError) as e:
            raise PostError(f"cannot read {base.with_suffix('.json')}: {e}") from None
        game = cls(home, me, state)
        log = base.with_suffix(".sntr")
        if log.exists():
            try:
                v = read_log(log.read_bytes(), complete=False)
            except (OSError, ReplayError) as e:
                raise PostError(f"{log} does not verify: {e}") from None
            game.records = [r.raw for r in v.records]
            game.validator = v
        return game

    def save(self) -> None:
        """Write the log, then the state (each whole, then renamed)."""
        base = post_dir(self.home) / self.game_id.hex()
        if self.records:
            write_whole(base.with_suffix(".sntr"), encode_frames(self.records))
        text = json.dumps(self.state, indent=1, sort_keys=True) + "\n"
        write_whole(base.with_suffix(".json"), text.encode("utf-8"))

    # -- the log -------------------------------------------------------------------------

    @property
    def opponent_key(self) -> bytes | None:
        """The other side's public key, once known."""
        k = self.state.get("opponent_key")
        return bytes.fromhex(str(k)) if k else None

    @property
    def opponent_name(self) -> str:
        """The other side's display name: ``anyone`` before an open invitation is accepted.

        An invitation kept for one player shows the name that player is remembered under.
        """
        return str(self.state.get("opponent_name") or "anyone")

    @property
    def their_have(self) -> int:
        """How many records the other side has acknowledged holding."""
        return int(str(self.state.get("their_have", 0)))

    def _add(self, raw: bytes) -> None:
        self.validator.feed(raw)
        self.records.append(raw)

    def changes(self, start: int) -> list[Change]:
        """The records from ``start`` as lines for people (acknowledgements left out)."""
        return changes_since(self.validator, self.me, self.opponent_name, start)

    # -- receiving -----------------------------------------------------------------------

    def receive(self, block: RecordsBlock, now_ms: int) -> int:
        """Take the records of ``block`` this side lacks; return how many were new.

        All or nothing: a block any record of which does not verify changes nothing.

        Raises:
            PostError: a block of another game, signed by another key, conflicting with this
                side's log, or starting past it; a record that does not verify (its number
                and why).
        """
        if block.game_id != self.game_id:
            raise PostError(f"a block of game {block.game_id.hex()[:8]}, not {self.short}")
        if block.sender == self.me.public_key:
            raise PostError("this is your own block: send it to the other player")
        known = self.opponent_key
        if known is not None and block.sender != known:
            raise PostError(
                f"signed by the key {fingerprint(block.sender)}, not by {self.opponent_name} "
                f"({fingerprint(known)}), the other player of game {self.short}"
            )
        have = len(self.records)
        if block.start > have:
            raise PostError(
                f"the block starts at record {block.start} but this side holds {have}: a "
                "block in between is missing; the other player can write it again with "
                "`santorini post resend`"
            )
        trial = validate(self.records)
        new = 0
        for offset, raw in enumerate(block.records):
            index = block.start + offset
            if index < have:
                if raw != self.records[index]:
                    raise PostError(
                        f"record {index} of the block differs from this side's record {index}: "
                        "it is not this game's log"
                    )
                continue
            try:
                trial.feed(raw)
            except ReplayError as e:
                raise PostError(f"record {index}: {e.reason}") from None
            new += 1
        if known is None and new:
            self._check_header(trial, block.sender)
        if new:
            self.records = [r.raw for r in trial.records]
            self.validator = trial
            self.state["since_ms"] = now_ms
            sent = self.state.get("sent_ms")
            self.waited_ms = None if sent is None else max(0, now_ms - int(str(sent)))
            self.state["turn_ms"] = now_ms
        if block.have > self.their_have:
            self.state["their_have"] = min(block.have, len(self.records))
        return new

    def _check_header(self, v: Validator, sender: bytes) -> None:
        """The inviter's first records: the header must be the invitation's game."""
        h = v.header
        assert h is not None
        inv = open_block(bytes.fromhex(str(self.state["invitation"])))
        assert isinstance(inv, Invitation)
        keys = [s.public_key for s in h.seats]
        if keys != [sender, self.me.public_key]:
            raise PostError("the header does not seat its sender and you, as the invitation says")
        if inv.to and sender != inv.to:
            raise PostError(
                f"the invitation was for {fingerprint(inv.to)}, not {fingerprint(sender)}"
            )
        pool = h.pool if h.gods != "none" else ()
        want_pool = inv.pool if inv.gods != "none" else ()
        if pool == GOD_NAMES:
            pool = ()
        if want_pool == GOD_NAMES:
            want_pool = ()
        # The header lists the pool in god order; an invitation may list it in any.
        if (h.gods, sorted(pool), h.move_ms, h.bank_ms, h.options) != (
            inv.gods,
            sorted(want_pool),
            0,
            0,
            OPTIONS,
        ):
            raise PostError("the header's settings are not the invitation's")
        name = h.seats[0].name
        try:
            KnownPeers(self.home).check(name, sender)
        except ChangedKeyError as e:
            raise PostError(str(e)) from None
        self.state["opponent_key"] = sender.hex()
        self.state["opponent_name"] = name

    # -- this side's records ---------------------------------------------------------------

    def _my_step(self) -> str | None:
        """What this side must sign next: commit, reveal, ack, result or act; None if nothing."""
        v = self.validator
        h = v.header
        if h is None or self.me.public_key not in v.expected_signers():
            return None
        n = len(v.records)
        if n <= h.players:
            return "commit"
        if n <= 2 * h.players:
            return "reveal"
        if v.is_over:
            return "result"
        if v.pending_acks:
            return "ack"
        return "act"

    @property
    def my_turn(self) -> bool:
        """Whether the game waits for this side's action (a turn, a god, a placement)."""
        return self._my_step() == "act"

    @property
    def is_complete(self) -> bool:
        """Whether every seat has signed the result."""
        return self.validator.is_complete

    def advance(self, bot: Bot | None, now_ms: int, judge: Judge | None = None) -> int:
        """Sign what this side owes; with ``bot``, play its actions too. Return records added.

        With ``judge`` (the computer's), an open draw or abort offer of the other side is
        answered first, once: accepted, or declined with a chat line before it plays on (its
        next action withdraws the offer, SPEC.md 8).
        """
        added = 0
        nonce = bytes.fromhex(str(self.state["nonce"]))
        while True:
            step = self._my_step()
            v = self.validator
            answer = None
            if step in ("act", None) and judge is not None:
                answer = answer_offer(v, self.me, self.state, judge)
            if answer is not None:
                raw = answer
            elif step == "commit":
                raw = v.make_commit(self.me, nonce)
            elif step == "reveal":
                raw = v.make_reveal(self.me, nonce)
            elif step == "ack":
                raw = v.make_ack(self.me)
            elif step == "result":
                raw = v.make_result(self.me)
            elif step == "act" and bot is not None:
                p = v.position
                assert p is not None
                raw = v.make_act(self.me, bot(p), self._clock(now_ms))
            else:
                break
            self._add(raw)
            added += 1
        if added:
            self.state["since_ms"] = now_ms
        if self.is_complete:
            self._keep_replay()
        return added

    def _clock(self, now_ms: int) -> int:
        """The mover's own claim of the time its move took (POST.md 6): since it was asked."""
        return max(0, now_ms - int(str(self.state.get("turn_ms", now_ms))))

    def play(self, text: str, now_ms: int) -> Change:
        """Sign this side's action, then whatever this side owes after it.

        ``text`` is a turn or setup action, ``resign``, ``draw`` or ``abort`` (an offer),
        ``accept`` (the open offer) or ``say TEXT``.

        Raises:
            PostError: the game has not started, is over, or the action is not possible now
                (the reason).
        """
        v = self.validator
        p = v.position
        if p is None:
            raise PostError("the draw is not complete yet: wait for the other player's block")
        if self.is_complete or v.is_over:
            raise PostError("the game is over")
        word, _, rest = text.strip().partition(" ")
        try:
            if word == "resign":
                raw = v.make_resign(self.me)
            elif word in ("draw", "abort") and not rest:
                raw = v.make_offer(self.me, word)
            elif word == "accept" and not rest:
                raw = v.make_accept(self.me)
            elif word == "say":
                from santorini_p2p.wire.validator import check_chat

                try:
                    raw = v.make_chat(self.me, check_chat(rest))
                except ValueError as e:
                    raise PostError(f"say: {e}") from None
            else:
                if not self.my_turn:
                    raise PostError(f"it is {self.opponent_name}'s turn, not yours")
                action = parse_action(text.strip())
                action = legal_form(p, action) or action
                raw = v.make_act(self.me, format_action(action), self._clock(now_ms))
            before = len(self.records)
            self._add(raw)
        except (NotationError, IllegalTurnError, ReplayError) as e:
            reason = e.reason if isinstance(e, ReplayError) else str(e)
            raise PostError(f"{text.strip()!r}: {reason}") from None
        self.state["since_ms"] = now_ms
        self.advance(None, now_ms)
        change = self.changes(before)[0]
        return change

    def _keep_replay(self) -> None:
        """Write the finished game as a replay file under ``games/`` (once)."""
        path = self.home / "games" / f"{self.game_id.hex()}.sntr"
        data = encode_frames(self.records)
        if not (path.exists() and path.read_bytes() == data):
            write_whole(path, data)
        self.state["replay"] = str(path)

    # -- sending -------------------------------------------------------------------------

    def mark_sent(self, now_ms: int) -> None:
        """Note that a block went out now (the start of the wait this side's clock measures)."""
        self.state["sent_ms"] = now_ms

    def outgoing(self) -> bool:
        """Whether the other side lacks records of this side's log."""
        if self.state["role"] == "inviter" and self.opponent_key is None:
            return False
        return self.their_have < len(self.records)

    def block_bytes(self, now_ms: int) -> bytes:
        """The block with every record the other side has not acknowledged (or the invitation)."""
        if self.state["role"] == "inviter" and not self.records:
            return bytes.fromhex(str(self.state["invitation"]))
        start = min(self.their_have, len(self.records))
        block = RecordsBlock(
            self.game_id,
            self.me.public_key,
            len(self.records),
            start,
            tuple(self.records[start:]),
            now_ms,
        )
        return seal_block(self.me, block)

    def block_text(self, now_ms: int) -> str:
        """The block as text to paste: a title line for people, then the armour."""
        data = self.block_bytes(now_ms)
        if self.state["role"] == "inviter" and not self.records:
            inv = open_block(data)
            assert isinstance(inv, Invitation)
            gods = (
                inv.gods if inv.gods == "none" else f"{inv.gods} ({','.join(inv.pool) or 'simple'})"
            )
            clock = f"{inv.days} days a move" if inv.days else "no clock"
            title = (
                f"santorini post {self.short}: {self.me.name} ({self.me.fingerprint}) invites "
                f"you to a game; gods {gods}; {clock}. Read it with: santorini post read"
            )
            return armour(data, title)
        start = min(self.their_have, len(self.records))
        moves = [c.text for c in self.changes(start) if c.mine]
        what = "; ".join(moves[-3:]) or "acknowledgement"
        title = (
            f"santorini post {self.short}: {self.me.name} to {self.opponent_name}, records "
            f"{start}-{len(self.records) - 1}: {what}"
        )
        return armour(data, title)

    # -- listing -------------------------------------------------------------------------

    def status(self) -> Status:
        """Whose turn it is, since when, and how the game stands."""
        v = self.validator
        result = ""
        if self.is_complete or v.is_over:
            turn = "over"
            result = result_text(v)
        elif self.state["role"] == "inviter" and self.opponent_key is None:
            turn = "invited"
        elif self.my_turn:
            turn = "you"
        else:
            # This side signs whatever else it owes at once: the wait is for the other side.
            turn = self.opponent_name
        key = self.opponent_key
        return Status(
            self.game_id.hex(),
            self.opponent_name,
            fingerprint(key) if key else "",
            turn,
            int(str(self.state.get("since_ms", 0))),
            int(str(self.state.get("days", 0))),
            result,
            len(self.records),
            str(self.state.get("replay") or ""),
        )

    @property
    def position(self) -> Position | None:
        """The position now (None before the draw)."""
        return self.validator.position

    @property
    def phase(self) -> Phase | None:
        """The game's phase (None before the draw)."""
        p = self.validator.position
        return None if p is None else p.phase


def list_games(home: Path, me: Identity) -> list[PostGame]:
    """Every correspondence game of this home, the most recently changed first."""
    d = post_dir(home)
    games = []
    for path in sorted(d.glob("*.json")) if d.is_dir() else []:
        try:
            games.append(PostGame.load(home, me, bytes.fromhex(path.stem)))
        except (PostError, ValueError):
            continue
    games.sort(key=lambda g: int(str(g.state.get("since_ms", 0))), reverse=True)
    return games


def find_game(home: Path, me: Identity, wanted: str | None) -> PostGame:
    """The game whose id starts with ``wanted`` (or whose opponent it names); the only one.

    Raises:
        PostError: none, or several, match (the message lists them).
    """
    games = list_games(home, me)
    if wanted:
        w = wanted.casefold()
        games = [
            g for g in games if g.game_id.hex().startswith(w) or g.opponent_name.casefold() == w
        ]
    if len(games) == 1:
        return games[0]
    if not games:
        raise PostError(
            f"no correspondence game {wanted!r} here" if wanted else "no correspondence game here"
        )
    names = ", ".join(f"{g.short} ({g.opponent_name})" for g in games)
    raise PostError(f"{len(games)} games match: {names}; name one")
