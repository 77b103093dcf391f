"""Every direction between the four agents, as-is and truncated, proven by the receiving real client.

Each source is a real recorded session (the shared Codex and Claude Code fixtures, the recorded
Gemini CLI and OpenCode sessions in tests/fixtures). `smig migrate --to AGENT` writes it for the
receiving agent; that agent's real client resumes it against a local fake model server, and the
request it sent must carry smig's handoff note, the kept text and, when truncated, the placeholder
instead of the text the plan dropped. One fake server of each kind serves the whole module.
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

sys.path.insert(0, str(Path(__file__).parent))
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer
from real_clients import OPENCODE_QUIET, escaped, install_source, prepare_receiver, prose, resume

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Strategy
from smig_tui.services import build_services

pytestmark = pytest.mark.e2e

AGENTS = ["codex", "claude", "gemini", "opencode"]
TARGETS = {
    "codex": "gpt-5.5",
    "claude": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-pro",
    "opencode": "claude-sonnet-4-5",
}
"""The model each receiving client runs in these tests (OpenCode's fake provider speaks Anthropic)."""
PROVIDERS = {"codex": "openai", "claude": "anthropic", "gemini": "google", "opencode": "anthropic"}


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


@pytest.fixture(scope="module")
def gemini_server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as server:
        yield server


def _smig(*argv: str) -> dict[str, Any]:
    """`smig ARGV --json` in-process; its parsed output (fails the test on a non-zero exit)."""
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main([*argv, "--json"], Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    assert code == 0, out.stderr.getvalue()
    return dict(json.loads(out.stdout.getvalue()))


def _half_target(homes: dict[str, Path], session_id: str, receiver: str) -> str:
    """A model in smig's config, of the receiver's provider, whose room holds about half of the session."""
    config = homes["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)

    def write(window: int) -> None:
        config.write_text(
            f'[models."half-{receiver}"]\ncontext_window = {window}\nmax_output = 500\n'
            f'provider = "{PROVIDERS[receiver]}"\nencoding = "o200k_base"\n',
            encoding="utf-8",
        )

    write(10**7)
    services = build_services()
    session = services.load_session(services.find_session(session_id))
    decision = services.plan(session, f"half-{receiver}", Strategy.AS_IS).decision
    write(decision.session_tokens // 2 + decision.overhead + decision.reserve)
    return f"half-{receiver}"


@pytest.mark.parametrize("truncated", [False, True], ids=["as-is", "truncated"])
@pytest.mark.parametrize("receiver", AGENTS)
@pytest.mark.parametrize("source", AGENTS)
def test_the_receiving_client_resumes_the_migrated_session(
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    model_server: FakeModelServer,
    gemini_server: FakeGeminiServer,
    source: str,
    receiver: str,
    truncated: bool,
) -> None:
    client_binary(receiver)  # skips when the receiving client is not installed
    if receiver == "opencode":  # smig writes through `opencode import`
        monkeypatch.setenv("SMIG_OPENCODE_BIN", client_binary("opencode"))
        for key, value in OPENCODE_QUIET.items():
            monkeypatch.setenv(key, value)
    project = tmp_path / "osprey-app"
    project.mkdir()
    session_id = install_source(source, isolated_homes, project, tmp_path)
    target = _half_target(isolated_homes, session_id, receiver) if truncated else TARGETS[receiver]
    strategy = "truncate" if truncated else "as-is"
    prepare_receiver(receiver, isolated_homes, model_server)
    result = _smig(
        "migrate", session_id, "--target", target, "--strategy", strategy, "--to", receiver, "--cwd", str(project)
    )
    record = result["record"]
    [written] = [entry for entry in result["files"] if entry["destination"] == receiver and entry.get("session_id")]

    sent = json.dumps(
        resume(receiver, written["session_id"], isolated_homes, project, model_server, gemini_server),
        ensure_ascii=False,
    )

    kept = prose(record["messages"])
    assert kept, "the migration kept no prose to look for"
    for text in [NOTE_PREFIX, result["migration_id"], kept[0], kept[-1]]:
        assert escaped(text) in sent, text
    assert (record["left_out"] > 0) is truncated  # as-is leaves out only harness context
    if truncated:
        placeholder = record["placeholder"]
        assert placeholder and escaped(placeholder.split("«")[0]) in sent
        services = build_services()
        original = services.load_session(services.find_session(session_id))
        dropped = set(record["dropped_ids"])
        kept_text = placeholder + "".join(message["text"] for message in record["messages"])
        gone = [
            line
            for line in prose(
                [
                    {"kind": m.kind.value, "role": m.role.value, "text": m.text}
                    for m in original.messages
                    if m.id in dropped and not m.injected
                ]
            )
            if line not in kept_text
        ]
        assert gone, "the truncation left out no distinctive text"
        assert not [line for line in gone if escaped(line) in sent]
