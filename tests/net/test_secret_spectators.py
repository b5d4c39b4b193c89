"""A spectator of a secret-gods or Party game is told what the players are told, less their
secrets (protocol/SECRET.md 7 to 12): the deal, each reveal and objection, the audit, the cards
passing. Over the in-memory link of ``tests.net.harness``."""

from __future__ import annotations

from santorini_p2p.engine.party import PARTY_POOL
from santorini_p2p.wire.messages import Object, Open
from santorini_p2p.wire.secretgame import DEFAULT_POOL
from tests.net.harness import Net


def _watch_to_the_end(net: Net):
    w = net.watch("carol")
    net.run()
    for _ in range(1_000):
        if w.is_complete or w.stopped:
            break
        net.step()
    assert w.stopped is None, w.stopped
    assert w.is_complete
    return w


def test_a_spectator_is_told_the_deal_each_reveal_and_objection_and_the_audit(tmp_path):
    net = Net.create(tmp_path, 2, "random", pool=DEFAULT_POOL, options=("chat", "secret"), seed=3)
    w = _watch_to_the_end(net)
    said = [n.text for n in w.notes]
    v = w.validator
    g = v.secret
    assert g is not None
    names = v.names
    deal = said.index(
        "The deal is done (4 signed steps): every god is hidden until it is revealed."
    )
    assert said[deal + 1] == f"gods: {names[0]} ?, {names[1]} ?"
    # Each opening and objection, as the players are told it, in the log's order.
    told = []
    for r in v.records:
        m = r.message
        if isinstance(m, Object):
            act = v.record(m.objected)
            mover = names[act.seat]
            told.append(
                f"{names[r.seat]} objects and reveals {m.god}: {mover}'s turn "
                f"{act.message.action} breaks it and is void; {mover} plays again."
            )
        elif isinstance(m, Open):
            told.append(f"{names[r.seat]} reveals {m.god} ")
    assert any(isinstance(r.message, Object) for r in v.records)  # this seed's game objects
    shown = [s for s in said if " reveals " in s]
    assert len(shown) == len(told)
    for s, t in zip(shown, told, strict=True):
        assert s.startswith(t)
    # No note names a god before the record that opens it.
    first = next(i for i, s in enumerate(said) if " reveals " in s)
    for s in said[:first]:
        assert not any(god in s.split() for god in DEFAULT_POOL), s
    assert f"The audit: {g.result[1]}." in said
    # A player is told the same of the other's reveals and objections (and its own god).
    host = [n.text for n in net.sessions[0].notes]
    me = v.seat_of(net.sessions[0].identity.public_key)
    others = [s for s in shown if not s.startswith(f"{names[me]} ")]
    assert others
    assert all(s in host for s in others)


def test_a_spectator_of_party_is_told_when_the_cards_pass(tmp_path):
    net = Net.create(tmp_path, 3, "random", pool=PARTY_POOL, options=("party", "pass=2"), seed=5)
    w = _watch_to_the_end(net)
    said = [n.text for n in w.notes if n.text.startswith("The cards pass on")]
    host = [n.text for n in net.sessions[0].notes if n.text.startswith("The cards pass on")]
    assert said
    assert said == host
