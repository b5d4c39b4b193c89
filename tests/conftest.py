"""Shared test set-up: each test's own ``$SANTORINI_HOME``, and the hypothesis profiles
(bounded, reproducible in CI)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: two test processes a core, at most 16.

    About half of the suite's time is spent waiting (peers over 127.0.0.1, subprocesses, a
    terminal drawing), not computing: with one process a core the cores sit half idle.
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still sets the number.
    """
    wanted = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if wanted:
        try:
            return int(wanted)
        except ValueError:
            raise pytest.UsageError(
                f"PYTEST_XDIST_AUTO_NUM_WORKERS: expected a number of processes, got {wanted!r}"
            ) from None
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else os.cpu_count() or 1
    return min(16, 2 * cores)


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
