"""The rule vectors in protocol/vectors/session-rules.json: schema-valid and obeyed.

Text (SESSION.md 2), the bounds on chat (SESSION.md 5) and the judgement of a timeout claim
(SESSION.md 7), each checked against the package itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from santorini_p2p.errors import WireError
from santorini_p2p.net.bounds import bound_fault
from santorini_p2p.net.frames import decode_frame
from santorini_p2p.net.moveclock import DueTimes
from santorini_p2p.net.session import GRACE_MS
from santorini_p2p.wire.envelope import seal
from santorini_p2p.wire.identity import MAX_NAME_BYTES, check_name
from santorini_p2p.wire.messages import MAX_CHAT_CHARS, Ack, Chat, Offer
from santorini_p2p.wire.text import MAX_REASON_CHARS, line_fault
from santorini_p2p.wire.validator import check_chat
from tests.net.harness import identity

PROTOCOL = Path(__file__).resolve().parents[2] / "protocol"
DOC = json.loads((PROTOCOL / "vectors" / "session-rules.json").read_text(encoding="utf-8"))
SEATS = {"A": identity(0, "alice"), "B": identity(1, "bob")}


def test_the_file_matches_its_schema():
    schema = json.loads((PROTOCOL / "schemas" / DOC["schema"]).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(DOC)


@pytest.mark.parametrize("case", DOC["text"], ids=lambda c: c["id"])
def test_text_vectors(case):
    text = case["text"]
    assert bytes.fromhex(case["utf8"]).decode("utf-8") == text
    assert (line_fault(text, max_bytes=MAX_NAME_BYTES) or "ok") == case["display name"]
    assert (line_fault(text, max_chars=MAX_CHAT_CHARS) or "ok") == case["chat line"]
    assert (line_fault(text, max_chars=MAX_REASON_CHARS) or "ok") == case["reason"]
    # The package's own checks agree: a name and a chat line pass exactly when they are ok.
    for rule, check in (("display name", check_name), ("chat line", check_chat)):
        if case[rule] == "ok":
            assert check(text) == text
        else:
            with pytest.raises(ValueError, match=r"^(name|chat): "):
                check(text)


@pytest.mark.parametrize("case", DOC["frames"], ids=lambda c: c["id"])
def test_frames_with_bad_text_are_malformed(case):
    with pytest.raises(WireError) as e:
        decode_frame(bytes.fromhex(case["frame"]))
    assert f"{type(e.value).__name__}: {e.value.reason}" == case["error"]


class _Log:
    """What ``bound_fault`` reads of a log: its count, and each key's current chat run."""

    def __init__(self) -> None:
        self.next_seq = 0
        self.runs: dict[bytes, int] = {}
        self.names = ("alice", "bob")

    def chat_run(self, key: bytes) -> int:
        return self.runs.get(key, 0)

    def seat_of(self, key: bytes) -> int:
        return 0 if key == SEATS["A"].public_key else 1

    def add(self, kind: str, key: bytes) -> None:
        self.next_seq += 1
        if kind == "chat":
            self.runs[key] = self.runs.get(key, 0) + 1
        else:
            self.runs = {}


@pytest.mark.parametrize("case", DOC["chat"], ids=lambda c: c["id"])
def test_chat_bound_vectors(case):
    log = _Log()
    refused = None
    for i, record in enumerate(case["records"]):
        kind, seat = record.split()
        who = SEATS[seat]
        prev = bytes(32)
        message = {
            "chat": Chat(log.next_seq + 20, prev, "hi"),
            "ack": Ack(log.next_seq + 20, prev, 1, bytes(32)),
            "offer": Offer(log.next_seq + 20, prev, "takeback"),
        }[kind]
        if bound_fault(log, seal(who, message)):  # type: ignore[arg-type]
            refused = i
            break
        log.add(kind, who.public_key)
    assert refused == case["refused"]


@pytest.mark.parametrize("case", DOC["claims"], ids=lambda c: c["id"])
def test_claim_vectors(case):
    clock = [0]
    due = DueTimes(lambda: clock[0])

    class Log:
        kinds: list[str] = []  # noqa: RUF012

        @property
        def lockstep_count(self) -> int:
            n = len(self.kinds)
            while n > 0 and self.kinds[n - 1].endswith("chat"):
                n -= 1
            return n

    log = Log()
    log.kinds = []
    for step in case["events"]:
        clock[0] = step["at_ms"]
        what = step["event"]
        if what in ("record", "own record", "chat", "own chat"):
            log.kinds.append(what)
            due.reached(log, own=what.startswith("own"))  # type: ignore[arg-type]
        elif what == "taken back":
            del log.kinds[-step["records"] :]
            due.taken_back(log)  # type: ignore[arg-type]
        elif what == "heard after silence":
            due.heard(step["last_heard_ms"])
        elif what == "caught up":
            due.caught_up()
        else:
            log.kinds.append("record")
            due.resumed(log, step["journal_written_ms_ago"], behind=True)  # type: ignore[arg-type]
    clock[0] = case["claim_at_ms"]
    seen = due.since(log)  # type: ignore[arg-type]
    assert seen == case["seen_ms"]
    verdict = "accept" if seen + GRACE_MS >= case["need_ms"] else "refuse"
    assert verdict == case["verdict"]


def test_wire_vectors_of_the_answered_silences():
    from santorini_p2p.net.frames import Stop, Welcome

    stop_case, welcome_case = DOC["wire"]
    stop = decode_frame(bytes.fromhex(stop_case["frame"]))
    assert isinstance(stop, Stop)
    assert stop.mine.hex() == stop_case["state hash here"]
    assert stop.theirs.hex() == stop_case["state hash claimed"] == ""
    signer, nonce = bytes.fromhex(stop_case["signer"]), bytes.fromhex(stop_case["signed over"])
    assert stop.is_signed_by(signer, nonce)
    welcome = decode_frame(bytes.fromhex(welcome_case["frame"]))
    assert isinstance(welcome, Welcome)
    assert list(welcome.options) == welcome_case["options"]
    assert sorted(welcome.options) == welcome_case["header options"]
    assert welcome.options[-1].startswith("start=")
