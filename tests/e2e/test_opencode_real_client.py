"""Proves smig's OpenCode reader and writer against the real OpenCode CLI (opencode-ai 1.18.33).

OpenCode runs offline in a temp home against the local fake model server, through a custom
provider on its bundled Anthropic SDK (`options.baseURL`); no provider package is downloaded.
- a session the real client recorded reads, in smig, as the history OpenCode sends on resume;
- a built Codex session migrated to OpenCode as it is, and a built Claude Code one truncated, resume in
  the real `opencode run -s ID` with the migrated history in its request, the placeholder's exact
  sentence, and smig lists them (a built session is the same messages whichever agent it names);
- a task's sub-session the real client writes is hidden from the list but reachable.

The recorded OpenCode session going to Codex, Claude Code and OpenCode itself, and the public Codex
and Claude Code sessions going to OpenCode, as they are and truncated, are the real-client matrix's
cases (tests/e2e/test_matrix_real_clients.py, drivers/opencode.py: the same recorded database).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_model_server import REPLY, FakeModelServer
from migration_builders import make_plan, make_session
from real_clients import configure_opencode as _configure
from real_clients import main_requests, run_opencode

from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent, Kind
from smig_tui.core.native import Destination
from smig_tui.services import build_services

pytestmark = pytest.mark.e2e


def _history(body: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """An Anthropic request's messages as (role, kind, content), tool inputs parsed."""
    out: list[tuple[str, str, Any]] = []
    for message in body["messages"]:
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            if block["type"] == "text":
                out.append((message["role"], "text", block["text"]))
            elif block["type"] == "tool_use":
                out.append(("assistant", "tool_call", block["input"]))
            elif block["type"] == "tool_result":
                body_ = block["content"]
                out.append(
                    (
                        "tool",
                        "tool_result",
                        body_ if isinstance(body_, str) else "".join(b.get("text", "") for b in body_),
                    )
                )
    return out


def test_smig_reads_a_real_opencode_session_as_opencode_sends_it(
    isolated_homes: dict[str, Path], tmp_path: Path, opencode: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    steps = [
        {"name": "bash", "args": {"command": "printf 'héllo ✓ 日本語\\n'", "description": "Print"}},
        {"name": "bash", "args": {"command": "seq 1 3", "description": "Count"}},
    ]
    with FakeModelServer(steps) as server:
        env = _configure(isolated_homes, server)
        run_opencode([opencode, "run", "first turn: run two commands"], project, env)
        [info] = build_services().list_sessions(agent=Agent("opencode"))
        read = build_services().load_session(info)
        run_opencode([opencode, "run", "-s", info.id, "second turn"], project, env)
        resumed = main_requests(server)[-1]
    mine = [
        (m.role.value, m.kind.value, json.loads(m.text) if m.kind is Kind.TOOL_CALL else m.text) for m in read.messages
    ]
    sent = _history(resumed)
    assert sent[-1] == ("user", "text", '"second turn"')  # `opencode run` quotes an argument with spaces
    assert mine == sent[:-1]
    assert [kind for _, kind, _ in mine].count("tool_call") == 2
    assert info.cwd == str(project) and info.model == "claude-sonnet-4-5"
    assert read.measured_context_tokens  # the fake server reports usage; OpenCode logged it


@pytest.mark.parametrize(
    ("agent", "truncated"), [(Agent("codex"), False), (Agent("claude"), True)], ids=["codex-as-is", "claude-truncated"]
)
def test_opencode_resumes_a_migrated_built_session(
    isolated_homes: dict[str, Path], tmp_path: Path, opencode: str, agent: Agent, truncated: bool
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    session = make_session(tmp_path / "src", agent=agent, cwd=str(project))
    with FakeModelServer() as server:
        env = _configure(isolated_homes, server)
        services = build_services()
        plan = make_plan(session, target="claude-sonnet-4-5", keep_last=2 if truncated else None)
        result = services.migrate(session, plan, {Destination("opencode")})
        [output] = result.outputs
        run = run_opencode([opencode, "run", "-s", output.session_id, "continue"], project, env)
        sent = json.dumps(main_requests(server), ensure_ascii=False)
    assert REPLY in run.stdout
    assert NOTE_PREFIX in sent and result.migration_id in sent and "OSPREY-93" in sent
    if truncated:
        assert "9 earlier messages (90 tokens) were left out" in sent
        assert "PELICAN-77" not in sent  # dropped by the plan, so never sent
    else:
        assert "PELICAN-77" in sent
    listed = {info.id for info in build_services().list_sessions(agent=Agent("opencode"))}
    assert output.session_id in listed


def test_a_task_sub_session_of_the_real_client_is_hidden_but_reachable(
    isolated_homes: dict[str, Path], tmp_path: Path, opencode: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    steps = [
        {
            "name": "task",
            "args": {"description": "Look around", "prompt": "List the files here.", "subagent_type": "general"},
        }
    ]
    with FakeModelServer(steps) as server:
        env = _configure(isolated_homes, server)
        run_opencode([opencode, "run", "delegate-a-task"], project, env)
    services = build_services()
    shown = services.list_sessions(agent=Agent("opencode"))
    every = services.list_sessions(agent=Agent("opencode"), include_subagents=True)
    [parent] = shown
    children = [info for info in every if info.id != parent.id]
    assert children and all(child.parent_id == parent.id and child.is_subagent for child in children)
    child = services.load_session(services.find_session(children[0].id))
    assert any("List the files here." in m.text for m in child.messages)
    calls = [m for m in services.load_session(parent).messages if m.tool_name == "task"]
    assert [m.kind for m in calls] == [Kind.TOOL_CALL, Kind.TOOL_RESULT]
