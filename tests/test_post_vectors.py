"""The correspondence block vectors (protocol/vectors/post.json, POST.md 9): obeyed."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.post import BlockError, Invitation, RecordsBlock, open_block, unarmour

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
DOC = json.loads((PROTOCOL / "vectors" / "post.json").read_text(encoding="utf-8"))


def test_post_vectors_match_their_schema():
    schema = json.loads((PROTOCOL / "schemas" / DOC["schema"]).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(DOC)
    for t in DOC["tests"]:
        assert set(t["flags"]) <= set(DOC["notes"])
    assert {t["result"] for t in DOC["tests"]} == {"valid", "invalid"}


@pytest.mark.parametrize("case", [pytest.param(t, id=t["id"]) for t in DOC["tests"]])
def test_post_vector_verdict(case):
    if case["result"] == "invalid":
        with pytest.raises(BlockError) as info:
            open_block(unarmour(case["text"]))
        assert case["error"] in str(info.value)
        return
    data = unarmour(case["text"])
    assert data.hex() == case["data"]
    block = open_block(data)
    alice = Identity.from_seed(bytes.fromhex(DOC["keys"]["alice"]), "alice")
    assert block.sender == alice.public_key
    assert isinstance(block, Invitation | RecordsBlock)
