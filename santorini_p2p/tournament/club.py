"""A club event as the director runs it: create, pair, record results, rank, re-verify (EVENT.md).

The event lives in a directory: ``event.snte`` (the signed event file) and ``games/`` (a copy
of every replay a result was read from). ``Event`` is the event file folded: its rounds, each
board's result, and the next pairing the rules give. Every change is checked the way
``verify`` checks it later, then appended to the file (written whole to a temporary file and
renamed, so a crash leaves the old file or the new one).

Public API:

- ``create_event(directory, identity, header)``; ``load_event(directory) -> Event``;
- ``Event.next_round()``, ``Event.pair(identity, now_ms)``, ``Event.match(facts)``,
  ``Event.record(identity, facts, now_ms)``, ``Event.table()``, ``Event.status()``;
- ``verify_event(data, replay_dir) -> Verification``: re-derive every pairing, every result
  and the standings from the event file and the replays alone;
- ``ResultRefused``: a replay that is not a result of this event, with the reason.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

from santorini_p2p.errors import SantoriniError
from santorini_p2p.replay.verify import MAX_FILE_BYTES
from santorini_p2p.tournament.event import (
    EventError,
    EventHeader,
    EventLog,
    PairingRecord,
    ResultRecord,
    read_event,
)
from santorini_p2p.tournament.games import GameError, GameFacts, read_game
from santorini_p2p.tournament.pairing import (
    History,
    PairingError,
    Played,
    Round,
    round_robin_round,
    swiss_round,
)
from santorini_p2p.tournament.standings import Board, Standing, standings
from santorini_p2p.wire.identity import Identity, fingerprint

__all__ = [
    "CLOCK_SKEW_MS",
    "EVENT_FILE",
    "GAMES_DIR",
    "Event",
    "ResultRefused",
    "Verification",
    "create_event",
    "event_path",
    "load_event",
    "verify_event",
]

EVENT_FILE: Final = "event.snte"
GAMES_DIR: Final = "games"
CLOCK_SKEW_MS: Final = 15 * 60_000
"""How much earlier than its round's pairing a game may say it was created (clocks differ)."""


class ResultRefused(SantoriniError):
    """A replay that gives no result to this event; the message says why."""


def event_path(directory: Path) -> Path:
    """The event file of an event directory (or the file itself, when given one)."""
    return directory if directory.is_file() else directory / EVENT_FILE


def _played(b: Board) -> Played:
    """A board as it was played (its first mover first), with the points once known."""
    first, second = (b.second, b.first) if b.reversed else (b.first, b.second)
    if not b.done:
        return Played(first, second, None)
    if b.winner is None:
        return Played(first, second, (1, 1))
    return Played(first, second, (2, 0) if b.winner == first else (0, 2))


@dataclass(slots=True)
class Event:
    """An event file folded into rounds, boards and results."""

    log: EventLog
    boards: list[Board] = field(default_factory=list)
    byes: dict[int, int] = field(default_factory=dict)
    paired: dict[int, int] = field(default_factory=dict)
    results: dict[tuple[int, int], ResultRecord] = field(default_factory=dict)

    @property
    def header(self) -> EventHeader:
        """The event's settings (record 0)."""
        return self.log.header

    @property
    def rounds_paired(self) -> int:
        """How many rounds have been paired."""
        return len(self.paired)

    def name_of(self, player: int) -> str:
        """A player's display name."""
        return self.header.players[player].name

    def index_of(self, fp: str) -> int | None:
        """The player index of a fingerprint, or None for someone not in the event."""
        for i, p in enumerate(self.header.players):
            if p.fingerprint == fp:
                return i
        return None

    def round_boards(self, number: int) -> list[Board]:
        """The boards of round ``number``, board 1 first."""
        return [b for b in self.boards if b.round == number]

    def open_boards(self) -> list[Board]:
        """The boards paired and still without a result."""
        return [b for b in self.boards if not b.done]

    def history(self) -> History:
        """The rounds so far, as the pairing rules read them."""
        rounds = []
        for r in range(1, self.rounds_paired + 1):
            played = [_played(b) for b in self.round_boards(r)]
            rounds.append((played, self.byes.get(r)))
        return History.of(len(self.header.players), rounds)

    def next_round(self) -> Round:
        """The pairing the event's rules give for the next round.

        Raises:
            PairingError: every round is paired, the last round has boards without a result,
                or no pairing exists.
        """
        h = self.header
        number = self.rounds_paired + 1
        if number > h.rounds:
            raise PairingError(f"all {h.rounds} rounds are paired")
        waiting = self.open_boards()
        if waiting:
            b = waiting[0]
            raise PairingError(
                f"round {b.round} is not finished: {len(waiting)} board(s) without a result "
                f"(board {b.number}: {self.name_of(b.first)} - {self.name_of(b.second)})"
            )
        if h.format == "roundrobin":
            return round_robin_round(len(h.players), number)
        return swiss_round(self.history())

    def apply(self, r: PairingRecord | ResultRecord) -> None:
        """Fold one record that follows the event's rules (``check`` has said so)."""
        if isinstance(r, PairingRecord):
            self.paired[r.round] = r.paired_ms
            for n, (first, second) in enumerate(r.games, 1):
                self.boards.append(Board(r.round, n, first, second))
            if r.bye is not None:
                self.byes[r.round] = r.bye
            return
        for i, b in enumerate(self.boards):
            if (b.round, b.number) == (r.round, r.board):
                self.boards[i] = replace(
                    b, done=True, winner=r.winner, reason=r.reason, reversed=r.first != b.first
                )
        self.results[(r.round, r.board)] = r

    def check(self, r: PairingRecord | ResultRecord) -> None:
        """Check that a record is what the rules give at this point (not its replay).

        Raises:
            EventError: the pairing is not the one the rules give, or the result names no
                open board, a player not on it, or an unknown reason.
        """
        if isinstance(r, PairingRecord):
            try:
                want = self.next_round()
            except PairingError as e:
                raise EventError(f"a pairing where none is due: {e}") from None
            if (r.round, r.games, r.bye) != (want.number, want.games, want.bye):
                raise EventError(
                    f"round {r.round}'s pairing is not the one the event's rules give "
                    f"({self._describe(want)})"
                )
            return
        board = self._board(r.round, r.board)
        if board is None:
            raise EventError(f"a result for round {r.round} board {r.board}, which is not paired")
        if board.done:
            raise EventError(f"a second result for round {r.round} board {r.board}")
        if r.winner is not None and r.winner not in (board.first, board.second):
            raise EventError(f"round {r.round} board {r.board}: the winner is not on the board")
        if r.first not in (board.first, board.second):
            raise EventError(f"round {r.round} board {r.board}: the first player is not on it")
        if (r.winner is None) != (r.reason in ("draw", "none")):
            raise EventError(f"round {r.round} board {r.board}: reason {r.reason!r}")
        if any(x.game_id == r.game_id or x.replay == r.replay for x in self.results.values()):
            raise EventError(f"round {r.round} board {r.board}: a game already recorded")

    def _describe(self, rnd: Round) -> str:
        games = ", ".join(f"{self.name_of(a)} - {self.name_of(b)}" for a, b in rnd.games)
        bye = f"; bye {self.name_of(rnd.bye)}" if rnd.bye is not None else ""
        return games + bye

    def _board(self, number: int, board: int) -> Board | None:
        return next((b for b in self.boards if (b.round, b.number) == (number, board)), None)

    def pair(self, identity: Identity, now_ms: int) -> Round:
        """Pair the next round and append it, signed by the director.

        Raises:
            PairingError: as ``next_round``; SantoriniError: ``identity`` is not the director.
        """
        self._check_director(identity)
        rnd = self.next_round()
        log = self.log
        rec = PairingRecord(len(log.records), log.last_hash, rnd.number, now_ms, rnd.games, rnd.bye)
        self.log.append(identity, rec)
        self.apply(rec)
        return rnd

    def _check_director(self, identity: Identity) -> None:
        if identity.public_key != self.log.director:
            raise SantoriniError(
                f"this event is directed by the key {fingerprint(self.log.director)}; yours is "
                f"{identity.fingerprint} (run as the director, with the director's "
                "$SANTORINI_HOME)"
            )

    def match(self, g: GameFacts) -> tuple[Board, ResultRecord | None]:
        """Find the board a verified game is the result of; the record to append, or None.

        None means the same replay is already recorded for that board (reading it again
        changes nothing).

        Raises:
            ResultRefused: the game is not a result of this event, with the reason.
        """
        h = self.header
        a, b = self.index_of(g.first), self.index_of(g.second)
        for fp, idx in ((g.first, a), (g.second, b)):
            if idx is None:
                raise ResultRefused(f"{g.names[fp]} ({fp}) is not a player of this event")
        assert a is not None
        assert b is not None
        boards = [x for x in self.boards if {x.first, x.second} == {a, b}]
        if not boards:
            raise ResultRefused(
                f"{self.name_of(a)} and {self.name_of(b)} are not paired in any round so far"
            )
        board = boards[-1]
        where = f"round {board.round} board {board.number}"
        settings = [
            ("gods", g.gods, h.gods),
            ("god pool", ",".join(g.pool) or "simple", ",".join(h.pool) or "simple"),
            ("time", _time(g.move_ms, g.bank_ms), h.time_text),
        ]
        if h.gods == "none":
            settings.pop(1)
        for what, got, want in settings:
            if got != want:
                raise ResultRefused(f"played with {what} {got}; the event's games use {want}")
        done = self.results.get((board.round, board.number))
        if done is not None:
            if done.replay == g.sha256:
                return board, None
            raise ResultRefused(
                f"{where} already has its result, from another replay "
                f"(SHA-256 {done.replay.hex()[:16]}...)"
            )
        for r in self.results.values():
            if r.game_id == g.game_id:
                raise ResultRefused(
                    f"this game is already the result of round {r.round} board {r.board}"
                )
        paired = self.paired[board.round]
        if g.created_ms < paired - CLOCK_SKEW_MS:
            raise ResultRefused(
                f"the game was created {(paired - g.created_ms) // 60_000} minutes before "
                f"round {board.round} was paired: it is not that round's game"
            )
        winner = None if g.winner is None else self.index_of(g.winner)
        rec = ResultRecord(
            len(self.log.records),
            self.log.last_hash,
            board.round,
            board.number,
            a,
            winner,
            g.reason,
            g.game_id,
            g.sha256,
            0,
        )
        return board, rec

    def record(self, identity: Identity, g: GameFacts, now_ms: int) -> tuple[Board, bool]:
        """Append the result a verified game gives; ``(board, False)`` when already recorded.

        Raises:
            ResultRefused: as ``match``; SantoriniError: not the director.
        """
        self._check_director(identity)
        board, rec = self.match(g)
        if rec is None:
            return board, False
        rec = replace(rec, recorded_ms=now_ms)
        self.check(rec)
        self.log.append(identity, rec)
        self.apply(rec)
        return self._board(board.round, board.number) or board, True

    def table(self) -> list[Standing]:
        """The standings from the results so far."""
        return standings(len(self.header.players), self.boards, list(self.byes.values()))

    def status(self) -> str:
        """Where the event stands, in a few words."""
        h = self.header
        waiting = len(self.open_boards())
        if self.rounds_paired == 0:
            return f"{h.rounds} rounds, none paired yet"
        if waiting:
            return f"round {self.rounds_paired} of {h.rounds}, {waiting} board(s) to play"
        if self.rounds_paired == h.rounds:
            return f"final standings after {h.rounds} rounds"
        return f"after round {self.rounds_paired} of {h.rounds}"

    def save(self, directory: Path) -> None:
        """Write the event file whole, then rename it over the old one."""
        _write_atomic(event_path(directory), self.log.to_bytes())


def _time(move_ms: int, bank_ms: int) -> str:
    return "none" if not (move_ms or bank_ms) else f"{move_ms // 1000}+{bank_ms // 1000}"


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise SantoriniError(f"cannot write {path}: {e.strerror or e}") from None


def fold(log: EventLog) -> Event:
    """Fold a checked event file, checking each pairing and result against the rules.

    Raises:
        EventError: a record that is not what the rules give, by number.
    """
    event = Event(EventLog(list(log.envelopes[:1]), list(log.records[:1]), log.director))
    for i, r in enumerate(log.records[1:], 1):
        assert isinstance(r, PairingRecord | ResultRecord)
        try:
            event.check(r)
        except EventError as e:
            raise EventError(e.reason, i) from None
        event.log.envelopes.append(log.envelopes[i])
        event.log.records.append(r)
        event.apply(r)
    return event


def create_event(directory: Path, identity: Identity, header: EventHeader) -> Event:
    """Create the event directory with its signed event file (record 0).

    Raises:
        SantoriniError: the directory already holds an event, or cannot be written.
    """
    path = directory / EVENT_FILE
    if path.exists():
        raise SantoriniError(f"{directory} already holds an event ({path})")
    try:
        (directory / GAMES_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SantoriniError(f"cannot create {directory}: {e.strerror or e}") from None
    log = EventLog()
    log.append(identity, header)
    event = Event(log)
    event.save(directory)
    return event


def load_event(directory: Path) -> Event:
    """Read, check and fold the event file of ``directory``.

    Raises:
        SantoriniError: no event there, or the file does not verify (the record and why).
    """
    path = event_path(directory)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise SantoriniError(f"cannot read the event file {path}: {e.strerror or e}") from None
    try:
        return fold(read_event(data))
    except EventError as e:
        raise SantoriniError(f"{path}: {e}") from None


def keep_replay(directory: Path, board: Board, event: Event, source: Path) -> Path:
    """Copy an accepted replay into the event's ``games/`` directory; return the copy's path."""
    games = event_path(directory).parent / GAMES_DIR
    first, second = event.name_of(board.first), event.name_of(board.second)
    name = f"r{board.round}-b{board.number}-{first}-{second}"
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
    suffix = ".santorini.txt" if source.name.endswith(".santorini.txt") else ".sntr"
    out = games / (safe + suffix)
    try:
        games.mkdir(exist_ok=True)
        if not (out.exists() and out.read_bytes() == source.read_bytes()):
            shutil.copyfile(source, out)
    except OSError as e:
        raise SantoriniError(f"cannot copy {source} to {out}: {e.strerror or e}") from None
    return out


@dataclass(slots=True)
class Verification:
    """What ``verify_event`` found: the event re-derived, and each problem by record."""

    event: Event | None
    problems: list[str] = field(default_factory=list)
    checked: int = 0

    @property
    def ok(self) -> bool:
        """Whether every record and every result re-derived."""
        return self.event is not None and not self.problems


def _replays(directory: Path) -> Iterator[Path]:
    for path in sorted(directory.rglob("*")):
        if path.is_file() and (path.suffix == ".sntr" or path.name.endswith(".santorini.txt")):
            yield path


def verify_event(data: bytes, replay_dir: Path) -> Verification:
    """Re-derive an event from its file and the replays in ``replay_dir`` alone.

    Checks every record's signature and chain, that each pairing is the one the event's rules
    give after the results before it, and that each result is what a verifying replay in
    ``replay_dir`` (found by its SHA-256) says, on that board, under the event's settings.
    """
    try:
        log = read_event(data)
    except EventError as e:
        return Verification(None, [str(e)])
    found: dict[bytes, tuple[Path, GameFacts | str]] = {}
    for path in _replays(replay_dir):
        try:
            if path.stat().st_size > 2 * MAX_FILE_BYTES:
                continue
            raw = path.read_bytes()
        except OSError:
            continue
        try:
            g = read_game(raw)
        except GameError as e:
            found.setdefault(hashlib.sha256(raw).digest(), (path, str(e)))
            continue
        found.setdefault(g.sha256, (path, g))
    out = Verification(Event(EventLog(log.envelopes[:1], log.records[:1], log.director)))
    event = out.event
    assert event is not None
    for i, r in enumerate(log.records[1:], 1):
        assert isinstance(r, PairingRecord | ResultRecord)
        try:
            event.check(r)
        except EventError as e:
            out.problems.append(f"record {i}: {e.reason}")
            out.event = None
            return out
        if isinstance(r, ResultRecord):
            where = f"record {i} (round {r.round} board {r.board})"
            hit = found.get(r.replay)
            if hit is None:
                out.problems.append(
                    f"{where}: no replay in {replay_dir} has SHA-256 {r.replay.hex()[:16]}..."
                )
            elif isinstance(hit[1], str):
                out.problems.append(f"{where}: {hit[0]}: {hit[1]}")
            else:
                problem = _same_result(event, r, hit[1])
                if problem:
                    out.problems.append(f"{where}: {hit[0]}: {problem}")
                else:
                    out.checked += 1
        event.log.envelopes.append(log.envelopes[i])
        event.log.records.append(r)
        event.apply(r)
    return out


def _same_result(event: Event, r: ResultRecord, g: GameFacts) -> str:
    """Why a replay does not give result ``r`` (empty when it does)."""
    try:
        board, _ = event.match(g)
    except ResultRefused as e:
        return str(e)
    if (board.round, board.number) != (r.round, r.board):
        return f"the replay is the game of round {board.round} board {board.number}"
    winner = None if g.winner is None else event.index_of(g.winner)
    first = event.index_of(g.first)
    if (winner, g.reason, g.game_id, first) != (r.winner, r.reason, r.game_id, r.first):
        return "the replay's result is not the one recorded"
    return ""
