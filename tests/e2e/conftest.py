"""Fixtures of the end-to-end tests that drive real clients."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from client_env import client_binary
from real_clients import OPENCODE_QUIET


@pytest.fixture(scope="session", autouse=True)
def clients_tmpdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The real clients' TMPDIR: a folder of this test run's, removed when it ends.

    OpenCode (a Bun executable) unpacks a native library into TMPDIR at each start
    (`.<hash>-00000000.so`, 5.5 MB) and never removes it; left in /tmp, every e2e run added hundreds
    of megabytes. Every client the tests start (and smig's writers, which run `opencode import` and
    `kilo import`) inherits this TMPDIR; nothing a test asserts is kept there.
    """
    folder = tmp_path_factory.mktemp("clients-tmp")
    tempfile.gettempdir()  # pytest's own temp files stay where they were (Python keeps the first answer)
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = before
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def opencode(monkeypatch: pytest.MonkeyPatch) -> str:
    """The real client, also named to smig's writer (which runs `opencode import`)."""
    binary = client_binary("opencode")
    monkeypatch.setenv("SMIG_OPENCODE_BIN", binary)
    for key, value in OPENCODE_QUIET.items():
        monkeypatch.setenv(key, value)
    return binary
