"""Shared test set-up: each test's own ``$SANTORINI_HOME``, and the hypothesis profiles
(bounded, reproducible in CI)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings


@pytest.fixture(autouse=True)
def _own_santorini_home(tmp_path_factory, monkeypatch):
    """A fresh ``$SANTORINI_HOME`` for every test: none reads or writes the user's games, keys
    or known peers, and no two tests share one (a test may still set its own)."""
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path_factory.mktemp("santorini-home")))


settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
