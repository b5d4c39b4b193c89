"""``post new --to NAME``: an invitation kept for one remembered player, named as that player."""

from __future__ import annotations

import json

import pytest

from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.wire.identity import load_or_create_identity
from tests.net.test_post import run_cli

pytestmark = pytest.mark.timeout(120)


def test_an_invitation_for_one_player_is_named_for_them_and_refused_by_another(tmp_path):
    alice, bob, carol = (tmp_path / n for n in ("alice", "bob", "carol"))
    load_or_create_identity(alice, "alice")
    bob_id = load_or_create_identity(bob, "bob")
    load_or_create_identity(carol, "carol")
    KnownPeers(alice).check("bob", bob_id.public_key)
    code, out, err = run_cli(
        alice, "post", "new", "--to", "bob", "--time", "3d", "-o", str(tmp_path / "inv")
    )
    assert code == 0, err
    assert f"block for bob written to {tmp_path / 'inv'}" in out
    code, out, _ = run_cli(alice, "post", "list", "--json")
    (game,) = json.loads(out)
    assert (game["opponent"], game["turn"], game["days_a_move"]) == ("bob", "invited", 3)
    # Someone else cannot take it; nothing of carol's changes.
    code, _, err = run_cli(carol, "post", "read", str(tmp_path / "inv"), "-o", str(tmp_path / "c"))
    assert code == 1
    assert f"this invitation is for the key {bob_id.fingerprint}, not yours" in err
    assert not (tmp_path / "c").exists()
    code, out, err = run_cli(bob, "post", "read", str(tmp_path / "inv"), "-o", str(tmp_path / "b"))
    assert code == 0, err
    assert "you accept alice's invitation" in out


def test_an_invitation_for_a_player_never_met_is_refused_with_the_way_out(tmp_path):
    load_or_create_identity(tmp_path / "alice", "alice")
    code, _, err = run_cli(tmp_path / "alice", "post", "new", "--to", "zed")
    assert code == 2
    assert "to: no remembered key for 'zed'" in err
