"""The LAN announcement vectors (protocol/vectors/announcement.json, SPEC.md 10): obeyed."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest

from santorini_p2p.net.discovery import Offer, find_board, find_offer

PROTOCOL = Path(__file__).resolve().parent.parent.parent / "protocol"
DOC = json.loads((PROTOCOL / "vectors" / "announcement.json").read_text(encoding="utf-8"))
CASES = [pytest.param(t, id=t["id"]) for t in DOC["tests"]]


def test_announcement_vectors_match_their_schema():
    schema = json.loads((PROTOCOL / "schemas" / DOC["schema"]).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(DOC)
    for t in DOC["tests"]:
        assert set(t["flags"]) <= set(DOC["notes"])


def _read(case) -> Offer | None:
    props = {k.encode(): v.encode() for k, v in case["properties"].items()}
    return Offer.from_properties(case["name"], "192.168.1.20", 40517, props)


@pytest.mark.parametrize("case", CASES)
def test_a_browser_reads_each_announcement_as_the_vector_says(case):
    offer = _read(case)
    if case["result"] == "ignored":
        assert offer is None
        return
    assert offer is not None
    want = case["offer"]
    assert (offer.host_name, offer.fingerprint, offer.board) == (
        want["host"],
        want["fingerprint"],
        want["board"],
    )
    assert (offer.players, offer.gods, offer.time, offer.version, offer.pool) == (
        want["players"],
        want["gods"],
        want["time"],
        want["version"],
        want["pool"],
    )
    assert (offer.spectators, offer.playing, offer.spectator_chat) == (
        want["spectators"],
        want["playing"],
        want["spectator_chat"],
    )
    # A host announces exactly these properties for that offer.
    assert offer.properties() == case["properties"]


@pytest.mark.parametrize("case", [c for c in CASES if c.values[0].get("found_by")])
def test_a_board_is_found_by_its_name_and_its_hosts_key_only(case):
    offer = _read(case)
    other = dataclasses.replace(offer, board="", fingerprint="ffff-0000-ffff-0000")
    for name in case["found_by"]:
        assert find_offer([offer, other], name) == offer
    if not offer.playing:
        assert find_board([other, offer], offer.board, offer.fingerprint) == offer
    # The same name announced by another key is not the board's game.
    impostor = dataclasses.replace(offer, fingerprint="ffff-0000-ffff-0000")
    assert find_board([impostor], offer.board, offer.fingerprint) is None


def test_a_board_hosted_by_a_program_before_board_names_is_found_by_the_hosts_key():
    old = _read(DOC["tests"][0])
    assert old.board == ""
    assert find_board([old], "Friday club: round 2 board 3: alice-bob", old.fingerprint) == old
    # Two such offers of that key: which one is the board cannot be told.
    assert find_board([old, dataclasses.replace(old, port=1)], "x", old.fingerprint) is None
