"""What a session tells and keeps: notes, the result, the stop and its report, the note file.

A stop writes ``<game>-stop.sntr`` and ``.txt`` and signs a stop frame for every peer; a full
disk halts this peer alone, keeping the game to resume (SESSION.md 6, 8); the note beside the
journal holds what resuming needs.
"""

from __future__ import annotations

import logging
from pathlib import Path

from santorini_p2p.engine import (
    format_position,
)
from santorini_p2p.errors import (
    StorageError,
    WireError,
)
from santorini_p2p.net.frames import (
    sign_stop,
)
from santorini_p2p.net.sessionbase import (
    SessionBase,
)
from santorini_p2p.net.views import NoteKind
from santorini_p2p.replay.timeline import describe_result, plays_alone
from santorini_p2p.wire.identity import fingerprint
from santorini_p2p.wire.log import (
    Validator,
    open_envelope,
)
from santorini_p2p.wire.messages import (
    Act,
    Resign,
    Result,
    Timeout,
)
from santorini_p2p.wire.text import shown

LOG = logging.getLogger(__name__)


class Reporting(SessionBase):
    """What a session tells and keeps: notes, the result, the stop and its report, the note file."""

    def _halt(self, e: StorageError) -> None:
        """A file could not be written (a full disk): stop here only, keeping the game.

        Unlike a stop, the peers are not told (to them this peer has gone, and they wait),
        no report is written and the note is left as it was: once there is room again, the
        same command resumes the game from the journal, whole up to its last record.
        """
        if self.stopped is not None:
            return
        LOG.error("%s", e)
        self.stopped = str(e)
        if self.journal is None:
            # Nothing was written yet (the journal is created with the header): the same
            # command joins the game afresh, which its host still holds.
            self._say(
                f"{e}. Nothing of this game is kept here yet; the same command joins it again.",
                NoteKind.ERROR,
            )
        else:
            self._say(
                f"{e}. The game is kept as it was; the same command resumes it.", NoteKind.ERROR
            )
        self._changed()

    def _stop(
        self,
        reason: str,
        *,
        index: int,
        mine: bytes = b"",
        theirs: bytes = b"",
        offending: bytes | None = None,
        notify: bool = True,
        skip: bytes | None = None,
    ) -> None:
        """Stop the game here and on every peer; write the report and the records so far."""
        if self.stopped is not None:
            return
        v = self.validator
        if v is not None and not mine:
            mine = v.state_hash
        self.stopped = reason
        self.report_path = self._write_report(reason, index, mine, theirs, offending)
        try:
            self._save_note()
        except StorageError as e:
            LOG.error("cannot mark the game stopped in its note file: %s", e)
        where = f" Report: {self.report_path}" if self.report_path else ""
        self._say(f"The game is stopped: {reason.rstrip('.')}.{where}", NoteKind.ERROR)
        if notify:
            for peer_id, p in self._peers.items():
                if peer_id != skip and (p.slot is not None or not self.is_host):
                    nonce = p.their_nonce if self.is_host else self._host_challenge
                    frame = sign_stop(self.identity, reason, index, mine, theirs, nonce)
                    self._tell_last(peer_id, frame)
            if self.gallery is not None:
                self.gallery.stop(reason, index, mine, theirs)
        self._changed()

    @property
    def told_stop(self) -> bool:
        """Whether a player or a spectator told of this game's stop is still connected."""
        return bool(self.players_told) or (self.gallery is not None and self.gallery.told_stop)

    def _write_report(
        self, reason: str, index: int, mine: bytes, theirs: bytes, offending: bytes | None
    ) -> Path | None:
        """Write ``<game>-stop.sntr`` (the records so far, then the refused one) and ``.txt``."""
        if not self._game_id:
            return None
        name = f"{self._game_id.hex()}-stop.sntr"
        raws = [r.raw for r in self.records]
        if offending is not None and offending not in raws:
            raws.append(offending)
        v = self.validator
        p = v.position if v is not None else None  # the log's: no hidden god of this seat's
        lines = [
            "santorini-p2p stop report",
            f"reason: {reason}",
            f"record: {index}",
            f"player: {self.identity.name} ({self.identity.fingerprint})",
            f"state hash here: {mine.hex() or '-'}",
            f"state hash claimed: {theirs.hex() or '-'}",
            f"position: {format_position(p) if p is not None else '-'}",
            f"records: {len(raws)} in {name} (santorini replay verify reads it)",
        ]
        for r in self.records:
            signer = fingerprint(r.signer)
            lines.append(f"  {r.index} {type(r.message).__name__.lower()} {signer}")
        if offending is not None:
            try:
                env = open_envelope(offending)
                lines.append(f"  {index} refused, signed by {fingerprint(env.signer)}")
            except WireError as e:
                lines.append(f"  {index} refused, undecodable: {e}")
        # Each line one line: a reason quoting an error's message cannot forge another.
        return self.store.write_report(self._game_id, raws, [shown(line) for line in lines])

    def _announce(self) -> None:
        """Add a note for every record of play not yet announced."""
        v = self.validator
        if v is None:
            return
        recs = v.records_since(self._announced)
        for rec in recs:
            m = rec.message
            who = v.header.seats[rec.slot].name if v.header else "?"
            if isinstance(m, Act):
                self._say(f"{who}: {m.action}")
            elif isinstance(m, Resign):
                self._say(f"{who} resigned.", NoteKind.WARNING)
            elif isinstance(m, Timeout):
                # Seat order is final once play has begun: the names are in it.
                late = v.names[m.seat] if m.seat < len(v.names) else f"Seat {m.seat + 1}"
                claim = "" if late == who else f" ({who} claimed it)"
                self._say(f"{late} ran out of time{claim}.", NoteKind.WARNING)
            elif isinstance(m, Result) and v.is_complete and rec is recs[-1]:
                self._say_result(v)
        self._announced = v.next_seq
        if v.position is not None and v.position.winner >= 0:
            self._track_move()

    def result_text(self) -> str:
        """The result in words ("alice won", "bob won by resignation"), or "unfinished"."""
        v = self.validator
        res = v.result if v is not None else None
        if v is None or res is None or v.position is None:
            return "unfinished"
        return describe_result(res, list(v.names), plays_alone(v.header))

    def _say_result(self, v: Validator) -> None:
        res = v.result
        p = v.position
        if res is None or p is None:
            return
        winner, _ = res
        mine = v.seat_of(self.identity.public_key)
        if winner < 0 or self.onlooker:
            self._say(f"The game is over: {self.result_text()}.", NoteKind.WARNING)
        else:
            alone = plays_alone(v.header)
            won = mine is not None and (
                mine == winner if alone else p.side_of(mine) == p.side_of(winner)
            )
            text = f"{self.result_text()}." + (" You won!" if won else " You lost.")
            self._say(text, NoteKind.WIN if won else NoteKind.LOSS)
        if not self.onlooker:
            self._say(f"Saved the game as {self.journal_path}.")

    def set_save(self, path: str) -> None:
        """Remember in the note where the finished replay is to be copied (``--save``)."""
        self.save_to = path
        self._save_note()

    def mark_settled(self) -> None:
        """Remember in the note that every peer holds the whole finished game."""
        if not self.settled:
            self.settled = True
            self._save_note()

    def mark_saved(self) -> None:
        """Remember in the note that the finished replay was copied to ``save_to``."""
        self.saved = True
        self._save_note()

    def _save_note(self) -> None:
        """Write ``<game>.json`` beside the journal: role, address, nonce (for resuming)."""
        if not self._game_id:
            return
        value: dict[str, object] = {
            "game": self._game_id.hex(),
            "role": "host" if self.is_host else "join",
            "address": self.address,
            "nonce": self._nonce.hex(),
            "stopped": self.stopped or "",
            "save": self.save_to,
            "saved": self.saved,
            "settled": self.settled,
            "series": self.series,
        }
        self.store.write_note(self._game_id, value)
