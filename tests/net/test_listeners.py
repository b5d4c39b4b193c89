"""The change listeners every game object uses to tell its screen."""

from __future__ import annotations

from santorini_p2p.net.listeners import Listeners


def test_listeners_are_called_in_order_until_stopped_even_from_inside_a_call():
    calls: list[str] = []
    ls = Listeners()
    stop_a = ls.add(lambda: calls.append("a"))

    def b() -> None:
        calls.append("b")
        stop_b()

    stop_b = ls.add(b)
    ls.add(lambda: calls.append("c"))
    ls.notify()
    assert calls == ["a", "b", "c"]
    ls.notify()
    assert calls == ["a", "b", "c", "a", "c"]
    stop_a()
    stop_a()  # stopping twice is harmless
    ls.notify()
    assert calls[-2:] == ["c", "c"]
    assert calls.count("a") == 2
