"""Fixtures of the end-to-end tests that drive real clients."""

from __future__ import annotations

import pytest
from client_env import client_binary
from real_clients import OPENCODE_QUIET


@pytest.fixture
def opencode(monkeypatch: pytest.MonkeyPatch) -> str:
    """The real client, also named to smig's writer (which runs `opencode import`)."""
    binary = client_binary("opencode")
    monkeypatch.setenv("SMIG_OPENCODE_BIN", binary)
    for key, value in OPENCODE_QUIET.items():
        monkeypatch.setenv(key, value)
    return binary
