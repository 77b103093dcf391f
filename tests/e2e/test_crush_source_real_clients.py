"""A Crush session migrated to each agent smig writes, resumed by that agent's real client.

Crush itself cannot be installed here (its npm package downloads its binary from GitHub), so the
source is a database built from Crush's schema (tests/fixtures/crush, not written by Crush): the
tool session, with a failed call, an interrupted one and a `!` shell command. `smig migrate --to
AGENT` writes it; the receiving real client (Codex, Claude Code, Gemini CLI, OpenCode) resumes it
against a local fake model server, and the request it sends must carry smig's handoff note and the
Crush session's own words. Crush as a receiver: see `drivers/crush.py` (no client to resume with).
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from client_env import client_binary
from crush_builders import install, make

sys.path.insert(0, str(Path(__file__).parent))
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer
from real_clients import OPENCODE_QUIET, escaped, prepare_receiver, prose, resume

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.handoff import NOTE_PREFIX

pytestmark = pytest.mark.e2e

TARGETS = {
    "codex": "gpt-5.5",
    "claude": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-pro",
    "opencode": "claude-sonnet-4-5",
}
"""The model each receiving client runs in these tests (OpenCode's fake provider speaks Anthropic)."""


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


@pytest.fixture(scope="module")
def gemini_server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as server:
        yield server


def _smig(*argv: str) -> dict[str, Any]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main([*argv, "--json"], Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    assert code == 0, out.stderr.getvalue()
    return dict(json.loads(out.stdout.getvalue()))


@pytest.mark.parametrize("receiver", list(TARGETS))
def test_a_migrated_crush_session_is_resumed_by_the_receiving_client(
    isolated_homes: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    model_server: FakeModelServer,
    gemini_server: FakeGeminiServer,
    receiver: str,
) -> None:
    client_binary(receiver)  # skips when the receiving client is not installed
    if receiver == "opencode":  # smig writes through `opencode import`
        monkeypatch.setenv("SMIG_OPENCODE_BIN", client_binary("opencode"))
        for key, value in OPENCODE_QUIET.items():
            monkeypatch.setenv(key, value)
    project = install(isolated_homes["home"])["alpha"]  # the Crush project the session ran in
    prepare_receiver(receiver, isolated_homes, model_server)
    result = _smig("migrate", make.TOOLS, "--target", TARGETS[receiver], "--to", receiver)
    record = result["record"]
    [written] = [entry for entry in result["files"] if entry["destination"] == receiver and entry.get("session_id")]

    sent = json.dumps(
        resume(receiver, written["session_id"], isolated_homes, project, model_server, gemini_server),
        ensure_ascii=False,
    )

    kept = prose(record["messages"])
    assert kept[0].startswith("read notes.txt") and kept[-1] == "notes.txt is modified."
    for text in [NOTE_PREFIX, result["migration_id"], kept[0], kept[-1], "codename: OSPREY", "git status --short"]:
        assert escaped(text) in sent, (receiver, text)
