"""The session vectors in protocol/vectors/session.json: schema-valid and obeyed."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from santorini_p2p.errors import WireError
from santorini_p2p.net.frames import (
    Audience,
    Cheer,
    Hello,
    Proof,
    Proven,
    Refuse,
    Refused,
    Rematch,
    Stop,
    decode_frame,
    encode_frame,
    host_proof_bytes,
    joiner_proof_bytes,
    refuse_bytes,
)
from santorini_p2p.wire.identity import verify

PROTOCOL = Path(__file__).resolve().parents[2] / "protocol"
DOC = json.loads((PROTOCOL / "vectors" / "session.json").read_text(encoding="utf-8"))
CASES = [pytest.param(t, id=t["id"]) for t in DOC["tests"]]


def test_the_file_matches_its_schema():
    schema = json.loads((PROTOCOL / "schemas" / DOC["schema"]).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(DOC)


def _signature(frame: object) -> bytes:
    match frame:
        case (
            Hello()
            | Proof()
            | Proven()
            | Refuse()
            | Stop()
            | Rematch()
            | Cheer()
            | Refused()
            | Audience()
        ):
            return frame.signature
    raise AssertionError(f"{frame} carries no signature")


def _covered(frame: object, nonce: bytes, signer: bytes) -> bytes:
    """What this program signs for ``frame`` (the vector gives the keys and nonce)."""
    match frame:
        case Hello():
            return frame.signed_bytes()
        case Stop() | Rematch() | Audience():
            return frame.signed_bytes(nonce)
        case Refused():
            return frame.signed_bytes()
        case Refuse():
            return refuse_bytes(frame.reason, nonce)
        case Cheer():
            # Signed by the key it names: the spectator's own; by another: the host's relay.
            return frame.signed_bytes(nonce, relayed=signer != frame.key)
    return b""


@pytest.mark.parametrize("case", CASES)
def test_session_vector(case):
    raw = bytes.fromhex(case["frame"])
    if "error" in case:
        with pytest.raises(WireError) as e:
            decode_frame(raw)
        assert type(e.value).__name__ == case["error"]
        return
    frame = decode_frame(raw)
    assert encode_frame(frame) == raw
    assert type(frame).__name__.lower() == case["kind"]
    if "signed" not in case:
        return
    signed = bytes.fromhex(case["signed"])
    nonce = bytes.fromhex(case["nonce"])
    if not isinstance(frame, Proof | Proven):
        assert _covered(frame, nonce, bytes.fromhex(case["signer"])) == signed
    ok = verify(bytes.fromhex(case["signer"]), _signature(frame), signed)
    assert ok is case["valid"]


def test_the_proof_vectors_cover_what_a_peer_computes():
    by_id = {t["id"]: t for t in DOC["tests"]}
    proof = by_id["proof"]
    proven = by_id["proven"]
    host_key = bytes.fromhex(proven["signer"])
    joiner_key = bytes.fromhex(proof["signer"])
    host_nonce = bytes.fromhex(proof["nonce"])
    joiner_nonce = decode_frame(bytes.fromhex(proof["frame"]))
    assert isinstance(joiner_nonce, Proof)
    n = joiner_nonce.nonce
    assert joiner_proof_bytes(host_nonce, n, joiner_key, host_key).hex() == proof["signed"]
    assert host_proof_bytes(n, host_nonce, host_key, joiner_key).hex() == proven["signed"]


def test_the_rematch_vectors_give_both_answers_and_a_tally():
    kinds = {
        t["id"]: decode_frame(bytes.fromhex(t["frame"]))
        for t in DOC["tests"]
        if t["id"].startswith("rematch") and "error" not in t
    }
    assert kinds["rematch-ask"] == Rematch(
        bytes(range(16)), 0b10, 0, kinds["rematch-ask"].signature
    )
    assert kinds["rematch-tally"].asking == 0b11
    assert kinds["rematch-decline"].declining == 0b01
