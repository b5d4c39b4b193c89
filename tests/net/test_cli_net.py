"""The network subcommands' usage errors and the resume command, without a network."""

from __future__ import annotations

import pytest

from santorini_p2p.cli import main


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    return tmp_path


def test_resume_with_no_unfinished_game_fails(home, capsys):
    assert main(["resume"]) == 1
    assert "no unfinished network game" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["soon", "0+0", "100000+0"])
def test_host_with_a_bad_time_control_is_a_usage_error(home, capsys, text):
    assert main(["host", "--time", text, "--bind", "127.0.0.1", "--no-advertise"]) == 2
    assert "santorini: error: time: " in capsys.readouterr().err


@pytest.mark.parametrize("port", ["-1", "65536", "99999"])
def test_host_port_out_of_range_is_a_usage_error(home, capsys, port):
    assert main(["host", "--port", port, "--bind", "127.0.0.1", "--no-advertise"]) == 2
    assert f"port: expected 0 (any free port) to 65535, got {port}" in capsys.readouterr().err


def test_host_on_a_port_in_use_fails_naming_it(home, capsys):
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        argv = ["host", "--port", str(port), "--bind", "127.0.0.1", "--no-advertise"]
        assert main([*argv, "--bot", "random"]) == 1
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}: the port is in use" in err
    assert "Traceback" not in err


def test_games_wait_must_be_seconds(home, capsys):
    assert main(["games", "--wait", "-1"]) == 2
    assert "wait: expected a number of seconds" in capsys.readouterr().err


def test_unknown_bot_level_is_a_usage_error(home, capsys):
    assert main(["join", "127.0.0.1:1", "--bot", "grandmaster"]) == 2
    assert "bot" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["join", "127.0.0.1:1", "--bot", "hard", "--think", "0"],
        ["host", "--bot", "hard", "--think", "-1"],
        ["play", "--bot", "hard", "--think", "0"],
        ["watch", "--think", "-2"],
    ],
)
def test_think_must_be_seconds_above_zero(home, capsys, argv):
    assert main(argv) == 2
    assert "think: expected a number of seconds above 0" in capsys.readouterr().err


def test_think_reaches_the_computer_player(monkeypatch):
    import random
    import threading

    import santorini_p2p.ai as ai
    import santorini_p2p.ai.worker as worker
    from santorini_p2p.engine import new_game
    from santorini_p2p.net.game import ai_bot
    from santorini_p2p.ui.local import ai_chooser

    seen = []

    def spy(position, level, **kwargs):
        seen.append((level, kwargs.get("think")))
        return "chosen"

    monkeypatch.setattr(ai, "choose_action", spy)
    # Setting up runs in the calling thread, through the search process's own reference.
    monkeypatch.setattr(worker, "choose_action", spy)
    p = new_game(2)
    assert ai_bot("hard", 7.5)(p, random.Random(1), threading.Event()) == "chosen"
    assert ai_chooser(3.0)(p, "medium", random.Random(1), threading.Event()) == "chosen"
    assert ai_bot("easy")(p, random.Random(1), threading.Event()) == "chosen"
    assert seen == [("hard", 7.5), ("medium", 3.0), ("easy", None)]


def test_first_use_gives_a_name_with_the_fingerprint(home):
    from santorini_p2p.wire.identity import load_identity

    main(["resume"])
    me = load_identity(home)
    assert me.name.endswith("-" + me.fingerprint[:4])


def test_help_lists_the_network_commands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for name in ("host", "join", "resume", "games"):
        assert name in out


def test_save_into_a_missing_directory_is_a_usage_error(home, capsys):
    assert main(["join", "127.0.0.1:1", "--save", str(home / "nowhere" / "r.sntr")]) == 2
    assert "save" in capsys.readouterr().err


def test_a_resumed_host_shows_the_address_it_gave_out_not_the_wildcard(monkeypatch):
    from santorini_p2p.net import game, transport

    monkeypatch.setattr(transport, "lan_address", lambda: "192.168.1.20")
    # A host bound to every interface gave out its LAN address; resumed, it shows that again.
    assert game.resumed_title({"role": "host", "address": "0.0.0.0:34567"}) == (
        "LAN game at 192.168.1.20:34567 (resumed)"
    )
    assert game.resumed_title({"role": "host", "address": "127.0.0.1:5"}) == (
        "LAN game at 127.0.0.1:5 (resumed)"
    )
    # A joiner shows the host's address it joined.
    assert game.resumed_title({"role": "join", "address": "10.0.0.2:34567"}) == (
        "LAN game at 10.0.0.2:34567 (resumed)"
    )


def test_join_where_nothing_listens_fails_at_once_naming_the_address(home, capsys):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["join", f"127.0.0.1:{port}", "--bot", "random"]) == 1
    err = capsys.readouterr().err
    # Said by the probe before the game starts, not after the 30 s wait for a first answer.
    assert f"nothing listens at 127.0.0.1:{port} (connection refused)" in err
    assert "no answer" not in err


@pytest.mark.parametrize("command", ["join 127.0.0.1:1", "host", "resume"])
def test_save_to_a_directory_is_refused_before_any_game(home, capsys, command):
    argv = [*command.split(), "--save", str(home)]
    if command == "host":
        argv += ["--bind", "127.0.0.1", "--no-advertise"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"santorini: error: save: {str(home)!r} is a directory; give a file name" in err
    assert "Traceback" not in err


def test_save_where_nothing_can_be_written_is_refused_before_any_game(home, capsys):
    assert main(["join", "127.0.0.1:1", "--save", "/proc/game.sntr"]) == 2
    err = capsys.readouterr().err
    assert "santorini: error: save: cannot write '/proc/game.sntr'" in err


def test_the_save_check_leaves_no_file_behind(home, capsys):
    target = home / "later.sntr"
    # The check passes; the connection is then refused (exit 1): no game, and no empty file.
    assert main(["join", "127.0.0.1:1", "--save", str(target)]) == 1
    assert not target.exists()


def test_a_save_that_fails_at_the_end_keeps_the_game_and_says_where(tmp_path, capsys):
    from santorini_p2p.cli.common import save_target

    replay = tmp_path / "games" / "abc.sntr"
    replay.parent.mkdir()
    replay.write_bytes(b"SNTR\x01records")
    (tmp_path / "out").mkdir()
    target = save_target(str(tmp_path / "out" / "game.sntr"))
    assert target is not None
    (tmp_path / "out").rmdir()  # the directory went away during the game
    assert not target.copy_from(replay)
    err = capsys.readouterr().err
    assert f"santorini: error: cannot save the replay to {target.path}" in err
    assert f"it is kept at {replay}" in err
    assert replay.read_bytes() == b"SNTR\x01records"


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("127.0.0.1:99999", "address: port must be 1 to 65535, got 99999"),
        ("::1", "looks like an IPv6 address; write it in brackets with the port, like [::1]:"),
        ("fe80::1:2", "looks like an IPv6 address"),
    ],
)
def test_join_says_what_is_wrong_with_an_address_instead_of_searching_the_lan(
    home, capsys, monkeypatch, address, said
):
    from santorini_p2p.net import discovery

    async def browse(wait):
        raise AssertionError("searched the LAN for a game named like an address")

    monkeypatch.setattr(discovery, "browse", browse)
    assert main(["join", address]) == 2
    assert said in capsys.readouterr().err


def test_an_ipv6_host_address_is_shown_in_brackets():
    from santorini_p2p.net.game import shown_address

    assert shown_address("::1") == "[::1]"
    assert shown_address("127.0.0.1") == "127.0.0.1"


def _disk_full(monkeypatch, after: int = 0):
    """Make every os.write after the first ``after`` fail as on a full disk."""
    import errno
    import os

    real = os.write
    count = [0]

    def write(fd, data):
        count[0] += 1
        if count[0] > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)


def test_a_full_disk_writing_the_key_is_a_plain_error(home, capsys, monkeypatch):
    _disk_full(monkeypatch)
    argv = ["host", "--bind", "127.0.0.1", "--no-advertise", "--bot", "random"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "santorini: error: cannot write the key file " in err
    assert "identity.key: No space left on device; free some space" in err
    assert "Traceback" not in err


def test_a_full_disk_writing_the_games_note_is_a_plain_error(home, capsys, monkeypatch):
    from santorini_p2p.wire.identity import load_or_create_identity

    load_or_create_identity(home, "alice")
    _disk_full(monkeypatch)
    argv = ["host", "--bind", "127.0.0.1", "--no-advertise", "--bot", "random"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "santorini: error: cannot write the game's note " in err
    assert ".json: No space left on device" in err
    assert "Traceback" not in err
    assert not list((home / "games").glob("*.json"))
