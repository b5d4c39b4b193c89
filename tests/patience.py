"""How long a test waits for an event before it fails: each bound, stretched on a slow machine.

A wait ends as soon as its event happens, so a long bound costs nothing when the program
works; it only bounds how long a broken one takes to fail. Every bound a test gives in seconds
goes through :func:`patient`, which multiplies it by ``SANTORINI_TEST_PATIENCE`` (3 unless
set), so that the suite still passes on a machine whose cores another process keeps busy.
"""

from __future__ import annotations

import os
from typing import Final

PATIENCE: Final = float(os.environ.get("SANTORINI_TEST_PATIENCE", "3"))
"""The factor on every bound a test gives for a wait (``SANTORINI_TEST_PATIENCE``)."""


def patient(seconds: float) -> float:
    """The bound to wait for an event expected within ``seconds`` on an idle machine."""
    return seconds * PATIENCE
