"""Chat between the seated players (SPEC.md 8.3), over the in-memory link of ``harness.py``."""

from __future__ import annotations

import pytest

from santorini_p2p.engine import Phase
from santorini_p2p.net.session import SessionError
from santorini_p2p.replay.export_html import export_html
from santorini_p2p.replay.export_json import export_json
from santorini_p2p.replay.export_text import export_text
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.replay.verify import verify_bytes, verify_text
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Chat
from tests.net.harness import Net

pytestmark = pytest.mark.usefixtures("no_fsync")


def _in_play(tmp_path, players: int = 2) -> Net:
    net = Net.create(tmp_path, players, seed=21, options=("chat", "takeback"))
    for _ in range(5_000):
        v = net.sessions[0].validator
        if v is not None and v.position is not None and v.position.phase is Phase.PLAY:
            return net
        net.step()
    raise AssertionError(net.summary())


def _chats(data: bytes) -> list[str]:
    return [r.message.text for r in read_log(data).records if isinstance(r.message, Chat)]


def test_chat_lines_reach_every_player_and_both_replays_and_exports_alike(tmp_path):
    net = _in_play(tmp_path)
    host, joiner = net.sessions
    host.say("good luck!")
    joiner.say("  you too  ")  # spaces at the ends are trimmed, not refused

    # Said in the same step as the moves: a chat line never stops the lockstep.
    def heard() -> bool:
        return all(len([n for n in s.notes if n.chat]) >= 2 for s in net.sessions)

    for _ in range(500):
        if heard():
            break
        net.step()
    for s in net.sessions:
        said = [n.text for n in s.notes if n.chat]
        # Each line once; one's own line shows when said, the others' as they come.
        assert sorted(said) == ["player0 says: good luck!", "player1 says: you too"], said
    net.run()
    data = net.journals()
    assert data[0] == data[1]
    assert verify_bytes(data[0]).ok
    assert _chats(data[0]) == ["good luck!", "you too"]
    t = read_timeline(data[0])
    text = export_text(t)
    assert ": says: good luck!\n" in text
    assert ": says: you too\n" in text
    assert verify_text(text.encode()).ok
    assert "says: good luck!" in export_html(t)
    assert '"text": "you too"' in export_json(t) or '"text":"you too"' in export_json(t)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("x" * 201, "1 to 200 characters, got 201"),
        ("line\nbreak", "is not printable"),
        ("tab\there", "is not printable"),
        ("   ", "1 to 200 characters, got 0"),
    ],
)
def test_a_chat_line_too_long_or_with_control_characters_is_refused_clearly(tmp_path, text, says):
    net = _in_play(tmp_path)
    count = len(net.sessions[0].records)
    with pytest.raises(SessionError, match=says):
        net.sessions[0].say(text)
    assert len(net.sessions[0].records) == count


def test_a_game_without_chat_says_so(tmp_path):
    net = Net.create(tmp_path, 2, seed=4)
    for _ in range(200):
        net.step()
    with pytest.raises(SessionError, match="no chat"):
        net.sessions[1].say("hello")


def test_chat_lines_racing_each_other_and_the_moves_are_all_kept_in_order(tmp_path):
    net = _in_play(tmp_path, players=3)
    for k in range(6):
        for i, s in enumerate(net.sessions):
            s.say(f"line {k} from {i}")
        net.step()
    net.run()
    data = net.journals()
    assert all(d == data[0] for d in data), net.summary()
    said = _chats(data[0])
    assert sorted(said) == sorted(f"line {k} from {i}" for k in range(6) for i in range(3))
    for i in range(3):  # each player's own lines in the order said
        mine = [x for x in said if x.endswith(f"from {i}")]
        assert mine == [f"line {k} from {i}" for k in range(6)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_chat_over_a_lossy_reordering_link_still_ends_identical(tmp_path, seed):
    from tests.net.harness import Policy

    net = Net.create(
        tmp_path,
        3,
        seed=seed,
        options=("chat", "takeback"),
        policy=Policy(drop=0.2, dup=0.2, delay=5, reorder=True),
    )
    for k in range(400):
        if k % 7 == 0:
            for i, s in enumerate(net.sessions):
                if s.can_chat:
                    s.say(f"step {k} from {i}")
        if net.done():
            break
        net.step()
    net.run(limit=60_000)
    assert not any(s.stopped for s in net.sessions), net.summary()
    data = net.journals()
    assert all(d == data[0] for d in data), net.summary()
    assert verify_bytes(data[0]).ok
    assert _chats(data[0])


def test_chatting_during_ones_move_does_not_restart_its_clock(tmp_path):
    from santorini_p2p.engine import legal_actions
    from santorini_p2p.net.clock import TimeControl
    from santorini_p2p.wire.messages import Act

    net = Net.create(tmp_path, 2, seed=5, time=TimeControl(60_000, 300_000), options=("chat",))
    for _ in range(5_000):
        v = net.sessions[0].validator
        if v is not None and v.position is not None and v.position.phase is Phase.PLAY:
            break
        net.step()
    net.bots = False
    for _ in range(20):
        net.step()
    mover = next(s for s in net.sessions if s.awaiting is not None)
    net.tick_all(3_000)
    mover.say("let me think")
    for _ in range(10):
        net.step()
    net.tick_all(3_000)
    mover.submit(legal_actions(mover.position)[0])
    act = mover.records[-1].message
    assert isinstance(act, Act)
    assert act.clock_ms >= 6_000, act.clock_ms


def test_a_line_right_after_ones_own_reveal_that_loses_its_race_is_asked_for_not_refused(
    tmp_path,
):
    """The last to reveal says a line at once while the host writes its own there: a record
    chained on the host's line reaches it first. Its own reveal before the line is no lost
    race, but the line is: it asks for the host's records rather than stop the game."""
    from santorini_p2p.net.frames import RecordFrame, encode_frame
    from santorini_p2p.net.session import HOST_ID

    net = Net.create(tmp_path, 2, seed=4, options=("chat",))
    net.bots = False
    host, joiner = net.sessions
    for _ in range(500):
        if len(host.records) == 5 and len(joiner.records) == 5:
            break
        net.step()
    assert joiner.records[-1].signer == joiner.identity.public_key  # its reveal, the last
    net.down.add(1)
    host.say("hello")  # record 5 at the host
    joiner.say("hi")  # record 5 here: the race the host's line wins
    host.say("again")  # record 6, chained on the host's 5
    assert len(host.records) == 7
    assert len(joiner.records) == 6
    joiner.outgoing()  # what it sent while cut off is lost
    joiner.receive(HOST_ID, encode_frame(RecordFrame(6, host.records[6].raw)))
    assert joiner.stopped is None
    net.down.clear()
    net.bots = True
    net.run()
    data = net.journals()
    assert data[0] == data[1], net.summary()
    assert _chats(data[0]) == ["hello", "again", "hi"]
