"""The wire vectors in protocol/vectors/: schema-valid, covering every error, and obeyed."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import jsonschema
import pytest

from santorini_p2p.engine.gods import GOD_NAMES
from santorini_p2p.errors import ReplayError, WireError
from santorini_p2p.wire.codec import decode, encode
from santorini_p2p.wire.draw import DrawStream, commitment, draw_seed, draw_setup
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import chain_hash, read_log, seal, signing_input, verify_envelope
from santorini_p2p.wire.messages import Offer

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
VECTORS = PROTOCOL / "vectors"
FILES = ("codec", "envelope", "draw", "replays")
ALL_ERRORS = {
    "DecodeError",
    "NonCanonicalError",
    "TooLargeError",
    "SignatureError",
    "ChainError",
    "VersionError",
    "RecordError",
    "IllegalTurnError",
    "DesyncError",
}


def load(name):
    return json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))


def cases(name):
    return [pytest.param(t, id=t["id"]) for t in load(name)["tests"]]


@pytest.mark.parametrize("name", FILES)
def test_vector_file_matches_its_schema(name):
    doc = load(name)
    schema = json.loads((PROTOCOL / "schemas" / doc["schema"]).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["version"] == 1
    assert doc["tests"]
    for t in doc["tests"]:
        assert set(t["flags"]) <= set(doc["notes"])


def test_vectors_cover_every_error_kind():
    seen = {t.get("error") for name in FILES for t in load(name)["tests"]}
    assert seen - {None} == ALL_ERRORS


def _untyped(v):
    ((kind, x),) = v.items()
    if kind == "int":
        return int(x)
    if kind == "bin":
        return bytes.fromhex(x)
    if kind == "array":
        return tuple(_untyped(i) for i in x)
    return x


@pytest.mark.parametrize("case", cases("codec"))
def test_codec_vector(case):
    data = bytes.fromhex(case["input"])
    if case["result"] == "valid":
        value = _untyped(case["value"])
        assert decode(data) == value
        assert encode(value) == data
    else:
        with pytest.raises(WireError) as info:
            decode(data)
        assert type(info.value).__name__ == case["error"]


@pytest.mark.parametrize("case", cases("envelope"))
def test_envelope_vector(case):
    raw = bytes.fromhex(case["input"])
    if case["result"] == "valid":
        env, msg = verify_envelope(raw)
        assert env.signer.hex() == case["signer"]
        assert env.body.hex() == case["body"]
        assert type(msg).__name__.lower() == case["type"]
    else:
        with pytest.raises(WireError) as info:
            verify_envelope(raw)
        assert type(info.value).__name__ == case["error"]


@pytest.mark.parametrize("case", cases("draw"))
def test_draw_vector(case):
    game_id = bytes.fromhex(case["game_id"])
    keys = [bytes.fromhex(k) for k in case["public_keys"]]
    nonces = tuple(bytes.fromhex(n) for n in case["nonces"])
    for k, n, c in zip(keys, nonces, case["commitments"], strict=True):
        assert commitment(game_id, k, n).hex() == c
    seed = draw_seed(game_id, nonces)
    assert seed.hex() == case["seed"]
    stream = DrawStream(seed)
    assert bytes(stream.byte() for _ in range(len(case["stream"]) // 2)).hex() == case["stream"]
    pool = tuple(case.get("pool", GOD_NAMES))
    start, drawn = draw_setup(seed, case["players"], case["gods"], pool)
    assert start == case["start_slot"]
    assert list(drawn) == case["drawn"]


@pytest.mark.parametrize("case", cases("replays"))
def test_replay_vector(case):
    if "file" in case:
        data = (VECTORS / case["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == case["sha256"]
    else:
        data = bytes.fromhex(case["input"])
    if case["result"] == "valid":
        v = read_log(data)
        assert v.next_seq == case["records"]
        assert v.turns == case["turns"]
        assert v.result == (case["winner"], case["reason"])
        assert v.state_hash.hex() == case["state_hash"]
        assert [k.hex() for k in v.seats] == case["seats"]
        assert v.position is not None
        assert list(v.position.gods) == case["gods"]
        assert v.header is not None
        assert list(v.header.pool) == case.get("pool", [])
        assert v.header.protocol == case.get("protocol", 2 if "pool" in case else 1)
        assert list(v.header.options) == case.get("options", list(v.header.options))
    else:
        with pytest.raises(ReplayError) as info:
            read_log(data)
        assert type(info.value.__cause__).__name__ == case["error"]
        assert info.value.record_index == case["record"]


# -- the examples worked by hand in SPEC.md ---------------------------------------------------


def _spec_block(heading: str) -> str:
    text = (PROTOCOL / "SPEC.md").read_text(encoding="utf-8")
    section = text.split(heading, 1)[1]
    return section.split("```", 2)[1]


def test_spec_worked_envelope_is_what_the_code_produces():
    block = _spec_block("### 6.1 A worked envelope")
    # The annotated hex: the first column of each line, comments dropped.
    hexed = ""
    for line in block.splitlines():
        first = re.split(r"\s{2,}", line.strip())[0].replace(" ", "")
        if re.fullmatch(r"([0-9a-f]{2})+", first):
            hexed += first
    me = Identity.from_seed(b"\x01" * 32, "alice")
    raw = seal(me, Offer(5, b"\x11" * 32, "draw"))
    assert hexed == raw.hex()
    assert len(raw) == 146
    spec = (PROTOCOL / "SPEC.md").read_text(encoding="utf-8")
    assert chain_hash(raw).hex() in spec
    assert signing_input(b"")[: -0 or None].hex() in spec
    envelope = load("envelope")["tests"][0]
    assert envelope["id"] == "spec-6.1-offer"
    assert envelope["input"] == raw.hex()


def test_spec_worked_draw():
    block = _spec_block("All BLAKE2b here is unkeyed")
    seed = draw_seed(bytes(range(16)), (b"\xaa" * 32, b"\xbb" * 32))
    assert seed.hex() in block
    assert draw_setup(seed, 2, "draft") == (0, ("hephaestus", "hermes", "pan", "minotaur"))
    assert "pool (god order): hephaestus, hermes, minotaur, pan" in block
