#!/usr/bin/env python3
"""Regenerate the session vectors: frames and the handshake (protocol/SESSION.md 2-3).

Writes protocol/vectors/session.json from the installed package. Keys come from the fixed
seeds of the other vectors (``01`` x 32 the host alice, ``02`` x 32 the joiner bob, ``77`` x 32
mallory), and the nonces are fixed bytes here (a real peer draws them from a cryptographic
source), so a run gives the same bytes every time. ``--check`` compares instead of writing.

Each case is one frame: its exact bytes, and either what it decodes to with the bytes its
signature covers and whether that signature holds for the named key and nonce, or the error a
receiver raises (the frame is then dropped).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from santorini_p2p.engine.gods import GOD_NAMES
from santorini_p2p.errors import WireError
from santorini_p2p.net.frames import (
    SESSION_VERSION,
    Challenge,
    Hello,
    Proof,
    Proven,
    Refuse,
    Status,
    Watch,
    Welcome,
    Who,
    decode_frame,
    encode_frame,
    host_proof_bytes,
    joiner_proof_bytes,
    refuse_bytes,
    sign_audience,
    sign_cheer,
    sign_hello,
    sign_refuse,
    sign_refused,
    sign_rematch,
    sign_stop,
    version_refusal,
)
from santorini_p2p.wire.codec import encode
from santorini_p2p.wire.identity import Identity

PROTOCOL = Path(__file__).resolve().parent.parent
OUT = PROTOCOL / "vectors" / "session.json"

ALICE = Identity.from_seed(b"\x01" * 32, "alice")
BOB = Identity.from_seed(b"\x02" * 32, "bob")
MALLORY = Identity.from_seed(b"\x77" * 32, "mallory")
HOST_NONCE = bytes(range(32))
JOINER_NONCE = bytes(range(32, 64))
OTHER_NONCE = b"\xee" * 32
GAME = bytes(range(16))
SPECTATOR_NONCE = bytes(range(64, 96))
OTHER_SPECTATOR_NONCE = bytes(range(96, 128))
CAROL = Identity.from_seed(b"\x03" * 32, "carol")

NOTES = {
    "handshake": "a frame of the handshake: hello, challenge, proof, proven",
    "signed": "a frame whose signature binds it to one connection's nonce",
    "replay": "a frame captured from another connection: its signature does not hold here",
    "version": "a peer of another session protocol version",
    "pool": "the god pool a game draws from (session 3)",
    "spectator": "a spectator's watch, or what the host sends a spectator (SESSION.md 11)",
    "clock": "the status's clock ms: the move's clock as its sender reads it (SESSION.md 7)",
    "malformed": "bytes a receiver drops (a decode error)",
    "plain": "a frame with no signature",
    "rematch": "the vote on a rematch after a complete game (SESSION.md 10)",
    "cheer": "a spectator's chat line, to the host or relayed by it (SESSION.md 11); the bytes "
    "signed start with `santorini-p2p/3 spectator chat` when the signer is the frame's key, "
    "`santorini-p2p/3 relayed chat` when it is the host's",
    "refused": "a seat refuses a takeback (SESSION.md 5, session 4): signed by the refusing "
    "seat's key over `santorini-p2p/4 takeback refused` and the game id, the offer's record "
    "number and the key, bound to no connection; the host relays it unchanged",
    "audience": "who watches (SESSION.md 11, session 4): the host's list of its spectators, "
    "signed over the receiver's nonce with `santorini-p2p/4 audience`",
}


class Cases:
    """Collects cases with running tcIds."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def add(self, id_: str, comment: str, flags: list[str], **fields: Any) -> None:
        """Append a case; every flag must be defined in NOTES."""
        for f in flags:
            assert f in NOTES, f
        self.items.append(
            {"tcId": len(self.items) + 1, "id": id_, "comment": comment, "flags": flags, **fields}
        )


def _frame(
    c: Cases,
    id_: str,
    comment: str,
    flags: list[str],
    raw: bytes,
    *,
    signer: bytes = b"",
    nonce: bytes = b"",
    signed: bytes = b"",
    valid: bool = True,
) -> None:
    """A frame that decodes; with ``signed``, the bytes its signature covers and the verdict."""
    frame = decode_frame(raw)
    assert encode_frame(frame) == raw
    fields: dict[str, Any] = {"frame": raw.hex(), "tag": raw[1] if raw[1] < 0x80 else None}
    fields["kind"] = type(frame).__name__.lower()
    if signed:
        fields["signer"] = signer.hex()
        fields["nonce"] = nonce.hex()
        fields["signed"] = signed.hex()
        fields["valid"] = valid
    c.add(id_, comment, flags, **fields)


def _bad(c: Cases, id_: str, comment: str, raw: bytes) -> None:
    try:
        decode_frame(raw)
    except WireError as e:
        c.add(id_, comment, ["malformed"], frame=raw.hex(), error=type(e).__name__)
        return
    raise AssertionError(f"{id_} decodes")


def session_vectors() -> dict[str, Any]:
    """Every frame kind, the handshake worked through, and the frames a receiver drops."""
    c = Cases()
    hello = sign_hello(BOB, SESSION_VERSION, b"", 0)
    _frame(
        c,
        "hello-new-game",
        "a new joiner's hello: game id a bin of length 0, records held 0; the same bytes every "
        "time, so it proves nothing by itself",
        ["handshake", "signed"],
        encode_frame(hello),
        signer=BOB.public_key,
        signed=hello.signed_bytes(),
    )
    resumed = sign_hello(BOB, SESSION_VERSION, GAME, 17)
    _frame(
        c,
        "hello-resume",
        "a resuming joiner's hello: the game id and the records it holds",
        ["handshake", "signed"],
        encode_frame(resumed),
        signer=BOB.public_key,
        signed=resumed.signed_bytes(),
    )
    old = sign_hello(BOB, 1, b"", 0)
    _frame(
        c,
        "hello-version-1",
        "a hello of session protocol 1: the host answers with the refuse of the next case",
        ["handshake", "version"],
        encode_frame(old),
        signer=BOB.public_key,
        signed=old.signed_bytes(),
    )
    _frame(
        c,
        "refuse-version",
        "the answer to a hello of another version: [3, reason], unsigned, as every version "
        "reads it; the reason starts `protocol N is not M` and says which side must update",
        ["version", "plain"],
        encode_frame(version_refusal(1)),
    )
    _frame(
        c,
        "challenge",
        "the host's answer to a hello: its nonce for this connection and its key",
        ["handshake", "plain"],
        encode_frame(Challenge(HOST_NONCE, ALICE.public_key)),
    )
    signed = joiner_proof_bytes(HOST_NONCE, JOINER_NONCE, BOB.public_key, ALICE.public_key)
    proof = Proof(JOINER_NONCE, BOB.sign(signed))
    _frame(
        c,
        "proof",
        "the joiner's proof: its nonce, and its signature over both nonces and both keys",
        ["handshake", "signed"],
        encode_frame(proof),
        signer=BOB.public_key,
        nonce=HOST_NONCE,
        signed=signed,
    )
    replayed = joiner_proof_bytes(OTHER_NONCE, JOINER_NONCE, BOB.public_key, ALICE.public_key)
    _frame(
        c,
        "proof-replayed",
        "the proof of the case before, sent on a connection the host challenged with another "
        "nonce: the bytes its signature would have to cover, which it does not",
        ["handshake", "replay"],
        encode_frame(proof),
        signer=BOB.public_key,
        nonce=OTHER_NONCE,
        signed=replayed,
        valid=False,
    )
    signed = host_proof_bytes(JOINER_NONCE, HOST_NONCE, ALICE.public_key, BOB.public_key)
    _frame(
        c,
        "proven",
        "the host's answer to the proof: its signature over both nonces and both keys",
        ["handshake", "signed"],
        encode_frame(Proven(ALICE.sign(signed))),
        signer=ALICE.public_key,
        nonce=JOINER_NONCE,
        signed=signed,
    )
    w = Welcome(SESSION_VERSION, GAME, 2, "none", 60_000, 300_000, (), ALICE.public_key, "alice")
    _frame(
        c,
        "welcome",
        "the offer, sent once the joiner proved its key; a game with no gods has an empty pool",
        ["plain"],
        encode_frame(w),
    )
    _frame(
        c,
        "welcome-simple-pool",
        "a draft of the ten simple gods: the pool lists them in god order",
        ["plain", "pool"],
        encode_frame(
            Welcome(
                SESSION_VERSION, GAME, 2, "draft", 0, 0, (), ALICE.public_key, "alice", GOD_NAMES
            )
        ),
    )
    _frame(
        c,
        "welcome-pool",
        "a random deal from a pool of two advanced gods (SPEC.md 7: header protocol 2)",
        ["plain", "pool"],
        encode_frame(
            Welcome(
                SESSION_VERSION,
                GAME,
                2,
                "random",
                0,
                0,
                (),
                ALICE.public_key,
                "alice",
                ("chronus", "medusa"),
            )
        ),
    )
    _frame(
        c,
        "welcome-unknown-god",
        "a well-formed offer whose pool names a god the joiner does not know (odin): the joiner "
        "refuses the game with a signed refuse naming the god, before any record",
        ["plain", "pool"],
        encode_frame(
            Welcome(
                SESSION_VERSION,
                GAME,
                2,
                "random",
                0,
                0,
                (),
                ALICE.public_key,
                "alice",
                ("chronus", "odin"),
            )
        ),
    )
    _bad(
        c,
        "welcome-version-2",
        "a welcome of session protocol 2 (ten fields, no pool): malformed, dropped",
        encode((2, 2, GAME, 2, "none", 0, 0, (), ALICE.public_key, "alice")),
    )
    stop = sign_stop(BOB, "desync at record 9", 9, b"\x11" * 32, b"\x22" * 32, HOST_NONCE)
    _frame(
        c,
        "stop-from-joiner",
        "a joiner's stop: signed over the host's nonce for this connection",
        ["signed"],
        encode_frame(stop),
        signer=BOB.public_key,
        nonce=HOST_NONCE,
        signed=stop.signed_bytes(HOST_NONCE),
    )
    _frame(
        c,
        "stop-replayed",
        "the stop of the case before, sent on another connection: dropped",
        ["signed", "replay"],
        encode_frame(stop),
        signer=BOB.public_key,
        nonce=OTHER_NONCE,
        signed=stop.signed_bytes(OTHER_NONCE),
        valid=False,
    )
    forged = sign_stop(MALLORY, "any reason", 0, b"", b"", HOST_NONCE)
    _frame(
        c,
        "stop-by-a-stranger",
        "a stop signed by a key that holds no seat, checked against the seat's key: dropped",
        ["signed", "replay"],
        encode_frame(forged),
        signer=BOB.public_key,
        nonce=HOST_NONCE,
        signed=forged.signed_bytes(HOST_NONCE),
        valid=False,
    )
    host_stop = sign_stop(ALICE, "bob stopped the game", 3, b"", b"", JOINER_NONCE)
    _frame(
        c,
        "stop-from-host",
        "the host's stop to a joiner: signed over that joiner's nonce",
        ["signed"],
        encode_frame(host_stop),
        signer=ALICE.public_key,
        nonce=JOINER_NONCE,
        signed=host_stop.signed_bytes(JOINER_NONCE),
    )
    refuse = sign_refuse(ALICE, "the game is full", JOINER_NONCE)
    _frame(
        c,
        "refuse-signed",
        "a refusal after the handshake: [3, reason, signature] over the joiner's nonce",
        ["signed"],
        encode_frame(refuse),
        signer=ALICE.public_key,
        nonce=JOINER_NONCE,
        signed=refuse_bytes(refuse.reason, JOINER_NONCE),
    )
    _frame(
        c,
        "status",
        "records held 12, and no move's clock runs (clock ms 0)",
        ["plain", "clock"],
        encode_frame(Status(12)),
    )
    _frame(
        c,
        "status-clock",
        "the host's status while a move is due: 40 records held, the move has run 20.5 s by its "
        "clock; a reconnected joiner and a spectator show that clock from it",
        ["plain", "clock"],
        encode_frame(Status(40, 20_500)),
    )
    _bad(
        c,
        "status-version-2",
        "a status of session 2 (records held alone, no clock ms): malformed, dropped",
        encode((5, 12)),
    )
    _frame(
        c,
        "watch-new",
        "a spectator asks to watch whatever game the host has: its nonce, game id a bin of "
        "length 0, records held 0, the name it is shown by",
        ["spectator", "plain"],
        encode_frame(Watch(SESSION_VERSION, SPECTATOR_NONCE, b"", 0, "carol")),
    )
    _frame(
        c,
        "watch-catch-up",
        "a spectator that reconnects: the game id and the 57 records it holds; the host sends "
        "the welcome, a status and the records from 57 on",
        ["spectator", "plain"],
        encode_frame(Watch(SESSION_VERSION, SPECTATOR_NONCE, GAME, 57, "carol")),
    )
    no_seats = sign_refuse(ALICE, "this game takes no spectators", SPECTATOR_NONCE)
    _frame(
        c,
        "refuse-spectator",
        "a host that takes no spectators answers a watch: signed over the watch's nonce",
        ["spectator", "signed"],
        encode_frame(no_seats),
        signer=ALICE.public_key,
        nonce=SPECTATOR_NONCE,
        signed=refuse_bytes(no_seats.reason, SPECTATOR_NONCE),
    )
    to_spectator = sign_stop(ALICE, "desync at record 9", 9, b"", b"", SPECTATOR_NONCE)
    _frame(
        c,
        "stop-to-spectator",
        "the host's stop to a spectator: signed over the nonce of the spectator's latest watch",
        ["spectator", "signed"],
        encode_frame(to_spectator),
        signer=ALICE.public_key,
        nonce=SPECTATOR_NONCE,
        signed=to_spectator.signed_bytes(SPECTATOR_NONCE),
    )
    _bad(
        c,
        "watch-short-nonce",
        "a watch whose nonce is 16 bytes, not 32: malformed, dropped",
        encode((12, SESSION_VERSION, bytes(16), b"", 0, "carol")),
    )
    _frame(
        c, "who", "the host asks an unknown connection for a hello", ["plain"], encode_frame(Who())
    )
    _bad(
        c,
        "stop-unsigned",
        "a stop of version 1 (five fields, no signature): malformed, dropped",
        encode((6, "any reason", 0, b"", b"")),
    )
    _bad(
        c,
        "hello-game-id-text",
        "a hello whose empty game id is text, not a bin of length 0: malformed, dropped",
        encode((1, SESSION_VERSION, BOB.public_key, "bob", "", 0, bytes(64))),
    )
    spaced = Identity.from_seed(b"\x02" * 32, "bob")
    bad = Hello(SESSION_VERSION, spaced.public_key, " bob", b"", 0, b"")
    bad = Hello(bad.protocol, bad.public_key, bad.name, b"", 0, spaced.sign(bad.signed_bytes()))
    _frame(
        c,
        "hello-bad-name",
        "a hello whose name breaks the display-name rule (a space at the start): it decodes, "
        "and the host answers with the unsigned refuse of the next case",
        ["handshake", "signed"],
        encode_frame(bad),
        signer=spaced.public_key,
        signed=bad.signed_bytes(),
    )
    _frame(
        c,
        "refuse-bad-name",
        "the answer to a hello whose name breaks the rule: unsigned, naming the rule",
        ["plain"],
        encode_frame(Refuse("your display name is refused: name: no spaces at either end: ' bob'")),
    )
    _bad(
        c,
        "unknown-tag",
        "a frame whose array has an unknown tag (16; 11 is the rematch, 12 the watch and 13 a "
        "spectator's chat line since session 3, 14 a takeback refused and 15 the audience "
        "since session 4)",
        encode((16, b"")),
    )
    ask = sign_rematch(BOB, GAME, 0b10, 0, HOST_NONCE)
    _frame(
        c,
        "rematch-ask",
        "a joiner (slot 1) asks for a rematch of the finished game: its own bit in asking, "
        "signed over the host's nonce for this connection",
        ["rematch", "signed"],
        encode_frame(ask),
        signer=BOB.public_key,
        nonce=HOST_NONCE,
        signed=ask.signed_bytes(HOST_NONCE),
    )
    _frame(
        c,
        "rematch-replayed",
        "the ask of the case before, sent on another connection: dropped, never counted",
        ["rematch", "signed", "replay"],
        encode_frame(ask),
        signer=BOB.public_key,
        nonce=OTHER_NONCE,
        signed=ask.signed_bytes(OTHER_NONCE),
        valid=False,
    )
    tally = sign_rematch(ALICE, GAME, 0b11, 0, JOINER_NONCE)
    _frame(
        c,
        "rematch-tally",
        "the host's answer: every answer it holds (slots 0 and 1 ask), signed over the "
        "joiner's nonce; every slot asks, so both start the rematch",
        ["rematch", "signed"],
        encode_frame(tally),
        signer=ALICE.public_key,
        nonce=JOINER_NONCE,
        signed=tally.signed_bytes(JOINER_NONCE),
    )
    decline = sign_rematch(ALICE, GAME, 0, 0b01, JOINER_NONCE)
    _frame(
        c,
        "rematch-decline",
        "the host (slot 0) declines: no rematch; both peers end",
        ["rematch", "signed"],
        encode_frame(decline),
        signer=ALICE.public_key,
        nonce=JOINER_NONCE,
        signed=decline.signed_bytes(JOINER_NONCE),
    )
    _bad(
        c,
        "rematch-ask-and-decline",
        "a rematch frame in which slot 1 both asks and declines: malformed, dropped",
        encode((11, GAME, 0b10, 0b10, bytes(64))),
    )
    _bad(
        c,
        "rematch-slot-4",
        "a rematch frame naming slot 4 (bit 4): malformed, dropped",
        encode((11, GAME, 0b10000, 0, bytes(64))),
    )
    _cheers(c)
    _refusals(c)
    _audience(c)
    return {
        "schema": "session.schema.json",
        "version": SESSION_VERSION,
        "notes": NOTES,
        "tests": c.items,
    }


def _cheers(c: Cases) -> None:
    """A spectator's chat line: sent, forged, relayed, refused (SESSION.md 11)."""
    carol = CAROL.public_key
    said = sign_cheer(CAROL, "nice dome", "carol", carol, SPECTATOR_NONCE, relayed=False)
    _frame(
        c,
        "cheer-from-spectator",
        "a spectator's line to the host: its own key, signed over the nonce of its latest watch",
        ["cheer", "spectator", "signed"],
        encode_frame(said),
        signer=carol,
        nonce=SPECTATOR_NONCE,
        signed=said.signed_bytes(SPECTATOR_NONCE, relayed=False),
    )
    _frame(
        c,
        "cheer-replayed",
        "the line of the case before, sent on another connection (another watch's nonce): "
        "dropped and counted",
        ["cheer", "spectator", "signed", "replay"],
        encode_frame(said),
        signer=carol,
        nonce=OTHER_SPECTATOR_NONCE,
        signed=said.signed_bytes(OTHER_SPECTATOR_NONCE, relayed=False),
        valid=False,
    )
    forged = sign_cheer(MALLORY, "nice dome", "carol", carol, SPECTATOR_NONCE, relayed=False)
    _frame(
        c,
        "cheer-wrong-key",
        "a line naming carol's key but signed by another key: dropped and counted",
        ["cheer", "spectator", "signed"],
        encode_frame(forged),
        signer=carol,
        nonce=SPECTATOR_NONCE,
        signed=forged.signed_bytes(SPECTATOR_NONCE, relayed=False),
        valid=False,
    )
    to_player = sign_cheer(ALICE, "nice dome", "carol", carol, JOINER_NONCE, relayed=True)
    _frame(
        c,
        "cheer-relayed-to-player",
        "the host relays the line to a player: the spectator's name (from its watch) and key, "
        "signed by the host over the player's nonce (its proof's)",
        ["cheer", "signed"],
        encode_frame(to_player),
        signer=ALICE.public_key,
        nonce=JOINER_NONCE,
        signed=to_player.signed_bytes(JOINER_NONCE, relayed=True),
    )
    to_other = sign_cheer(ALICE, "nice dome", "carol", carol, OTHER_SPECTATOR_NONCE, relayed=True)
    _frame(
        c,
        "cheer-relayed-to-spectator",
        "the host relays the line to another spectator, signed over that spectator's latest "
        "watch's nonce",
        ["cheer", "spectator", "signed"],
        encode_frame(to_other),
        signer=ALICE.public_key,
        nonce=OTHER_SPECTATOR_NONCE,
        signed=to_other.signed_bytes(OTHER_SPECTATOR_NONCE, relayed=True),
    )
    for id_, text, why in (
        ("cheer-too-long", "x" * 201, "201 characters, not at most 200"),
        ("cheer-control", "bell\x07", "a control character"),
        ("cheer-empty", "", "no text"),
        ("cheer-spaced", " hi", "a space at an end"),
    ):
        _bad(
            c,
            id_,
            f"a spectator's line with {why} (the rules of SPEC.md 8.3): malformed, dropped",
            encode((13, text, "carol", carol, bytes(64))),
        )


def _refusals(c: Cases) -> None:
    """A takeback refused (SESSION.md 5): signed by the refusing seat, relayed unchanged."""
    no = sign_refused(BOB, GAME, 21)
    _frame(
        c,
        "refused-takeback",
        "bob refuses the takeback offer at record 21: signed by his key over the game id, the "
        "record number and his key, so the asker, the host and a spectator each check it",
        ["refused"],
        encode_frame(no),
        signer=BOB.public_key,
        signed=no.signed_bytes(),
    )
    forged = sign_refused(MALLORY, GAME, 21)
    _frame(
        c,
        "refused-wrong-key",
        "a refusal naming bob's key but signed by another: dropped and counted",
        ["refused"],
        encode_frame(type(no)(GAME, 21, BOB.public_key, forged.signature)),
        signer=BOB.public_key,
        signed=no.signed_bytes(),
        valid=False,
    )
    _bad(
        c,
        "refused-short-game-id",
        "a refusal whose game id is 8 bytes, not 16: malformed, dropped",
        encode((14, bytes(8), 21, BOB.public_key, bytes(64))),
    )


def _audience(c: Cases) -> None:
    """Who watches (SESSION.md 11): the host tells every player and spectator."""
    two = sign_audience(ALICE, ("carol", "eve"), 4, JOINER_NONCE)
    _frame(
        c,
        "audience-to-player",
        "the host tells a player that carol and eve watch (2 of the 4 it takes), signed over "
        "the player's nonce (its proof's)",
        ["audience", "signed"],
        encode_frame(two),
        signer=ALICE.public_key,
        nonce=JOINER_NONCE,
        signed=two.signed_bytes(JOINER_NONCE),
    )
    _frame(
        c,
        "audience-replayed",
        "the list of the case before, sent on another connection: dropped and counted",
        ["audience", "signed", "replay"],
        encode_frame(two),
        signer=ALICE.public_key,
        nonce=OTHER_NONCE,
        signed=two.signed_bytes(OTHER_NONCE),
        valid=False,
    )
    none = sign_audience(ALICE, (), 4, SPECTATOR_NONCE)
    _frame(
        c,
        "audience-empty-to-spectator",
        "nobody watches now (the last spectator left), told to a spectator over its watch's "
        "nonce; the receiver says who left",
        ["audience", "spectator", "signed"],
        encode_frame(none),
        signer=ALICE.public_key,
        nonce=SPECTATOR_NONCE,
        signed=none.signed_bytes(SPECTATOR_NONCE),
    )
    _bad(
        c,
        "audience-more-names-than-count",
        "a list of two names whose count is 1: malformed, dropped",
        encode((15, 1, 4, ("carol", "eve"), bytes(64))),
    )
    _bad(
        c,
        "audience-bad-name",
        "a list with a name that is not a display name (a line break): malformed, dropped",
        encode((15, 1, 4, ("car\nol",), bytes(64))),
    )


def main() -> int:
    """Write (or with ``--check`` compare) protocol/vectors/session.json."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    data = (json.dumps(session_vectors(), indent=2, ensure_ascii=False) + "\n").encode()
    if args.check:
        if not OUT.exists() or OUT.read_bytes() != data:
            print("stale: session.json", file=sys.stderr)
            return 1
        return 0
    OUT.write_bytes(data)
    print(f"wrote {OUT.relative_to(PROTOCOL.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
