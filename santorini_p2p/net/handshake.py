"""The handshake and proofs of protocol/SESSION.md 3, for the host and for a joiner.

A hello is a claim: the host answers it with a challenge, the joiner proves its key over both
nonces, the host proves its own; only then does a connection count, and the host seats it,
refuses it (signed over the joiner's nonce) or answers with what it lacks. A joiner acts on a
welcome only from a proven host, checks its text at the door (SESSION.md 2) and its keys
against ``known_peers``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import cast

from santorini_p2p.engine import (
    GodMode,
)
from santorini_p2p.engine.gods import ALL_GOD_NAMES
from santorini_p2p.engine.setup import pool_name
from santorini_p2p.errors import StorageError
from santorini_p2p.net.frames import (
    NONCE_BYTES,
    SESSION_VERSION,
    Challenge,
    Hello,
    Proof,
    Proven,
    Refuse,
    Welcome,
    Who,
    host_proof_bytes,
    joiner_proof_bytes,
    sign_hello,
    sign_refuse,
    version_refusal,
    versions_differ,
)
from santorini_p2p.net.sessionbase import (
    HOST_ID,
    PeerState,
    ProvenLink,
    SessionBase,
    header_pool,
)
from santorini_p2p.net.trust import ChangedKeyError
from santorini_p2p.net.views import NoteKind
from santorini_p2p.wire.identity import check_name, fingerprint, verify
from santorini_p2p.wire.log import (
    make_header,
    seal,
)

KNOWN_GODS: frozenset[str] = frozenset(ALL_GOD_NAMES)
"""The gods this program plays: a joiner refuses a pool with any other."""

LOG = logging.getLogger(__name__)


class Handshake(SessionBase):
    """The handshake and proofs of protocol/SESSION.md 3, for the host and for a joiner."""

    def offer(self) -> Welcome:
        """The welcome this host sends (its spectators get it too)."""
        return self._welcome()

    def proven_links(self) -> tuple[ProvenLink, ...]:
        """The connections proven for a seated key, with their nonces (``net.rematch``).

        The host: one per seated joiner's connection. A joiner: the host's, whose ``nonce``
        is the host's challenge and ``theirs`` every nonce of this joiner's hello rounds.
        """
        if not self.is_host:
            key = self._expected_host_key()
            if not key or not self._host_challenge:
                return ()
            mine = tuple(sorted(self._my_nonces))
            return (ProvenLink(HOST_ID, 0, key, self._host_challenge, mine),)
        return tuple(
            ProvenLink(pid, p.slot, p.proven, p.their_nonce, (p.challenge,))
            for pid, p in self._peers.items()
            if p.slot is not None and p.proven and p.their_nonce
        )

    def _on_unknown(self, peer: bytes) -> None:
        """A frame from a connection not yet tied to a seat (after a restart): ask who it is."""
        self._send(peer, Who())

    def _new_round(self) -> None:
        """A joiner starts a hello round: a fresh nonce, and the host unproven until it answers."""
        self._round_nonce = self.sources.entropy(NONCE_BYTES)
        self._my_nonces.add(self._round_nonce)
        self._host_challenge = b""
        self._host_proven = False

    def _expected_host_key(self) -> bytes:
        """The host key a joiner already knows (the header's slot 0, or the offer's), or b''."""
        v = self.validator
        if v is not None and v.header is not None:
            return v.header.seats[0].public_key
        return self.welcome.host_key if self.welcome is not None else b""

    def _on_challenge(self, c: Challenge) -> None:
        known = self._expected_host_key()
        if known and c.host_key != known:
            self._drop(HOST_ID, c, "a challenge naming another host key")
            return
        if c.nonce != self._host_challenge or c.host_key != self._host_key:
            self._host_challenge, self._host_key = c.nonce, c.host_key
            self._host_proven = False
        self._send_proof()

    def _send_proof(self) -> None:
        signed = joiner_proof_bytes(
            self._host_challenge, self._round_nonce, self.identity.public_key, self._host_key
        )
        self._send(HOST_ID, Proof(self._round_nonce, self.identity.sign(signed)))

    def _on_proven(self, pr: Proven) -> None:
        if not self._host_challenge:
            self._drop(HOST_ID, pr, "no challenge to answer")
            return
        signed = host_proof_bytes(
            self._round_nonce, self._host_challenge, self._host_key, self.identity.public_key
        )
        if not verify(self._host_key, pr.signature, signed):
            self._drop(HOST_ID, pr, "the host's proof does not verify")
            return
        self._host_proven = True

    def _on_hello(self, peer: bytes, state: PeerState, hello: Hello) -> None:
        """A hello is a claim: answer it with a challenge."""
        if hello.protocol != SESSION_VERSION:
            # Unsigned and in the shape every version reads: the peers share no handshake.
            self._send(peer, version_refusal(hello.protocol))
            return
        try:
            check_name(hello.name)
        except ValueError as e:
            # Before any handshake too: the joiner has no game yet, and must pick another name.
            self._send(peer, Refuse(f"your display name is refused: {e}"))
            return
        # Even a proven connection's hello gets a challenge (the same nonce): the joiner may be
        # a new process behind it, which proves its key again before anything is answered.
        state.claim = hello
        if not state.challenge:
            state.challenge = self.sources.entropy(NONCE_BYTES)
        self._send(peer, Challenge(state.challenge, self.identity.public_key))

    def _on_proof(self, peer: bytes, state: PeerState, proof: Proof) -> None:
        claim = state.claim
        if claim is None or not state.challenge:
            self._drop(peer, proof, "a proof with no hello and challenge before it")
            return
        key = claim.public_key
        host_key = self.identity.public_key
        signed = joiner_proof_bytes(state.challenge, proof.nonce, key, host_key)
        if not verify(key, proof.signature, signed):
            self._drop(peer, proof, "the proof does not verify")
            return
        state.proven, state.their_nonce = key, proof.nonce
        answer = host_proof_bytes(proof.nonce, state.challenge, host_key, key)
        self._send(peer, Proven(self.identity.sign(answer)))
        self._answer_hello(peer, state, claim)

    def _refuse(self, peer: bytes, state: PeerState, reason: str) -> None:
        """Refuse a proven connection, signed over its nonce, and forget it."""
        self._send(peer, sign_refuse(self.identity, reason, state.their_nonce))
        if state.slot is None:
            self._peers.pop(peer, None)

    def _answer_hello(self, peer: bytes, state: PeerState, hello: Hello) -> None:
        """Answer the hello of a connection that proved its key: seat it, or refuse it."""
        v = self.validator
        if v is not None and v.header is not None:
            keys = [s.public_key for s in v.header.seats]
            # An empty game id is a hello sent before the header reached that peer.
            if hello.public_key not in keys:
                self._refuse(
                    peer,
                    state,
                    f"this game has started without you: {hello.name} "
                    f"({fingerprint(hello.public_key)}) holds no seat in it; its seats are "
                    + ", ".join(f"{s.name} ({fingerprint(s.public_key)})" for s in v.header.seats),
                )
                return
            if hello.game_id not in (b"", self._game_id):
                self._refuse(peer, state, "this game is not the one you resume")
                return
            back = state.slot is None  # a seated player on a new connection, not a resend
            self._bind_peer(peer, state, keys.index(hello.public_key), hello.name)
            if back:
                self._say(f"{hello.name} is back.")
            state.have = hello.have
            if not hello.game_id:
                # It holds no header yet: it checks the header against the offer.
                self._send(peer, self._welcome())
            self._send(peer, self._status())
            self._send_missing(peer, state)
            return
        if hello.game_id and hello.game_id != self._game_id:
            self._refuse(peer, state, "no such game here")
            return
        for i, (k, n, _) in enumerate(self._lobby.seats):
            if k == hello.public_key and i > 0:
                self._lobby.seats[i] = (k, n, peer)
                self._bind_peer(peer, state, i, n)
                self._send(peer, self._welcome())
                if self._lobby.reserved and all(pid for _, _, pid in self._lobby.seats[1:]):
                    self._start()
                return
        if self._lobby.reserved:
            names = ", ".join(n for _, n, _ in self._lobby.seats)
            self._refuse(peer, state, f"this game is a rematch between {names}")
            return
        if any(n == hello.name for _, n, _ in self._lobby.seats):
            self._refuse(peer, state, f"the name {hello.name!r} is taken in this game")
            return
        assert self.settings is not None
        if len(self._lobby.seats) >= self.settings.players:
            self._refuse(peer, state, "the game is full")
            return
        try:
            # Checked now, remembered when the game starts (``_start``): a stranger who
            # takes a seat in the lobby and leaves changes nothing in known_peers.
            self._known.check(hello.name, hello.public_key, remember=False)
        except ChangedKeyError as e:
            self._say(str(e), NoteKind.ERROR)
            self._refuse(peer, state, e.refusal(self.identity.name))
            return
        self._lobby.seats.append((hello.public_key, hello.name, peer))
        self._bind_peer(peer, state, len(self._lobby.seats) - 1, hello.name)
        self._say(f"{hello.name} ({fingerprint(hello.public_key)}) joined as a player.")
        self._send(peer, self._welcome())
        if len(self._lobby.seats) == self.settings.players:
            self._start()

    def _bind_peer(self, peer: bytes, state: PeerState, slot: int, name: str) -> None:
        """Attach proven connection ``peer`` to ``slot``; an older one is told and forgotten."""
        for other_id, other in list(self._peers.items()):
            if other.slot == slot and other_id != peer:
                LOG.info("seat %d moved to a new connection; the old one is forgotten", slot)
                if other.their_nonce:
                    self._send(
                        other_id,
                        sign_refuse(
                            self.identity,
                            "this seat is now played from another connection",
                            other.their_nonce,
                        ),
                    )
                del self._peers[other_id]
        state.slot, state.name = slot, name
        # Who watches is told to every seated connection once proven (SESSION.md 11).
        self._tell_audience(peer, state)

    def _tell_audience(self, peer: bytes, p: PeerState, *, again: bool = False) -> None:
        """Defined by ``net.watched.Watched``."""
        raise NotImplementedError

    def _welcome(self) -> Welcome:
        """The offer: from the header once it exists (a resumed host has no settings)."""
        v = self.validator
        if v is not None and v.header is not None:
            h = v.header
            players, gods, move_ms, bank_ms, options = (
                h.players,
                h.gods,
                h.move_ms,
                h.bank_ms,
                h.options,
            )
            pool = header_pool(h)
        else:
            s = self.settings
            assert s is not None
            tc = s.time
            players, gods, options = s.players, s.gods, s.options
            move_ms, bank_ms = (tc.move_ms, tc.bank_ms) if tc else (0, 0)
            pool = s.god_pool
        return Welcome(
            SESSION_VERSION,
            self._game_id,
            players,
            gods,
            move_ms,
            bank_ms,
            options,
            self.identity.public_key,
            self.identity.name,
            pool,
        )

    def _start(self) -> None:
        """The host's lobby is full: write the header and start the log."""
        s = self.settings
        assert s is not None
        tc = s.time
        header = make_header(
            self._game_id,
            [(k, n) for k, n, _ in self._lobby.seats],
            gods=cast(GodMode, s.gods),
            move_ms=tc.move_ms if tc else 0,
            bank_ms=tc.bank_ms if tc else 0,
            options=s.options,
            created_ms=self._created_ms,
            pool=s.god_pool,
        )
        raw = seal(self.identity, header)
        try:
            self.journal = self.store.create_journal(self._game_id, raw)
        except StorageError as e:
            self._not_started(e)
            return
        for key, name, _ in self._lobby.seats[1:]:
            try:
                self._known.check(name, key)  # the game starts: its players are remembered
            except (ChangedKeyError, StorageError) as e:
                LOG.error("known_peers: %s", e)
        self._say("All seats are taken; drawing the start player.")
        self._broadcast(0, raw)
        self._advance()

    def _not_started(self, e: StorageError) -> None:
        """The host could not create the journal (a full disk): nothing of the game exists.

        The header was never sent, so no one holds a record: the joiners are told at once
        (signed) that this game is gone and why, rather than left waiting for a game that the
        same command cannot resume; that command offers a new game, which they join again.
        """
        LOG.error("%s", e)
        reason = (
            f"{self.identity.name} cannot start the game: {e}; nothing of this game was kept: "
            "join the new game its host offers when it runs again"
        )
        for pid, p in list(self._peers.items()):
            if p.slot is not None and p.their_nonce:
                self._tell_last(pid, sign_refuse(self.identity, reason, p.their_nonce))
        self.stopped = f"{e}; nothing of this game was kept (its journal could not be created)"
        self.store.drop_note(self._game_id)
        self._say(
            f"{self.stopped}: the same command offers a new game, which the others join again.",
            NoteKind.ERROR,
        )
        self._changed()

    def _on_welcome(self, w: Welcome) -> None:
        if self.welcome is not None:
            return
        if not self._host_proven or w.host_key != self._host_key:
            self._drop(HOST_ID, w, "an offer from a connection whose host key is not proven")
            return
        if w.protocol != SESSION_VERSION:
            self._stop(f"the host speaks protocol {w.protocol}, not {SESSION_VERSION}", index=0)
            return
        try:
            check_name(w.host_name)
        except ValueError as e:
            # Checked at the door: this name would be shown, and written to known_peers.
            reason = f"the host's display name is refused: {e}"
            self._send(HOST_ID, sign_refuse(self.identity, reason, self._host_challenge))
            self._stop(reason, index=0, notify=False)
            return
        unknown = [g for g in w.pool if g not in KNOWN_GODS]
        if unknown:
            # Refused before any record: a god this program cannot play would otherwise stop
            # the game at the header, or worse, at the first turn of that god.
            reason = (
                f"{w.host_name}'s game draws its gods from a pool with "
                + ", ".join(repr(g[:32]) for g in unknown[:3])
                + (" and more" if len(unknown) > 3 else "")
                + f", {'a god' if len(unknown) == 1 else 'gods'} this program does not know; "
                "a newer santorini-p2p may play it"
            )
            self._send(HOST_ID, sign_refuse(self.identity, reason, self._host_challenge))
            self._stop(reason, index=0, notify=False)
            return
        try:
            # Checked, not yet remembered: the host is remembered with the header's seats.
            self._known.check(w.host_name, w.host_key, remember=False)
        except ChangedKeyError as e:
            self._send(
                HOST_ID,
                sign_refuse(self.identity, e.refusal(self.identity.name), self._host_challenge),
            )
            self._stop(str(e), index=0, notify=False)
            return
        self.welcome = w
        self._peers[HOST_ID].name = w.host_name
        self._game_id = w.game_id
        self._save_note()
        tc = f"{w.move_ms // 1000}+{w.bank_ms // 1000}" if w.move_ms else "untimed"
        gods = w.gods if w.gods == "none" else f"{w.gods} from {pool_name(w.pool, w.players)}"
        if "secret" in w.options:
            gods = f"dealt secretly, {gods}"
        self._say(
            f"Joined {w.host_name}'s {w.players}-player game as a player (gods: {gods}, "
            f"time: {tc}); "
            f"host fingerprint {fingerprint(w.host_key)}."
        )

    def _on_refuse(self, peer: bytes, state: PeerState, r: Refuse) -> None:
        if self.is_host:
            if not r.is_signed_by(state.proven, state.challenge):
                self._drop(peer, r, "a refusal that is not signed for this connection")
                return
        elif not self._from_host(r.signature, r.is_signed_by) and self.journal is not None:
            # Unsigned: the answer of whoever listens at the address. Before the game exists
            # there is nothing to lose; once it does, only the host's signed word counts.
            self._drop(peer, r, "an unsigned refusal once the game has started")
            return
        if not self.is_host and not r.signature:
            r = Refuse(versions_differ(r.reason))  # an earlier host names its version alone
        if self.is_host and self.validator is None:
            self._say(f"{state.name or 'a peer'} refused: {r.reason}", NoteKind.ERROR)
            if self._lobby.reserved:
                # A rematch's seat stays reserved for its key: it may come back.
                self._lobby.seats = [
                    (k, n, b"" if p == peer else p) for k, n, p in self._lobby.seats
                ]
                del self._peers[peer]
                return
            self._lobby.seats = [s for s in self._lobby.seats if s[2] != peer or s[2] == b""]
            del self._peers[peer]
            # Seats after the one given up move down a place.
            for i, (_, _, pid) in enumerate(self._lobby.seats):
                if pid in self._peers:
                    self._peers[pid].slot = i
            return
        self._stop(f"refused by {state.name or 'the host'}: {r.reason}", index=0, notify=False)

    def _from_host(self, signature: bytes, signed_by: Callable[[bytes, bytes], bool]) -> bool:
        """Whether the host signed a frame for one of this joiner's nonces (any round)."""
        key = self._expected_host_key() or (self._host_key if self._host_proven else b"")
        return bool(signature) and bool(key) and any(signed_by(key, n) for n in self._my_nonces)

    def _say_hello(self, now: int) -> None:
        """Say hello again, or, once challenged in this round, answer the challenge again."""
        self._hello_sent_ms = now
        if self._host_challenge and not self._host_proven:
            self._send_proof()
            return
        gid = self._game_id if self.journal is not None else b""
        hello = sign_hello(self.identity, SESSION_VERSION, gid, self._count())
        self._send(HOST_ID, hello)
