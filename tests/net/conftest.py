"""Fixtures of the network tests."""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def no_fsync(monkeypatch):
    """Skip fsync in in-process session tests: the journal's bytes are what they check."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)
