"""Proves the handoff without leaving the agent in the real Claude Code and Gemini CLI: the
`continue_from_agent` prompt, run as a slash command, puts another agent's session from this folder
into the conversation, fitted and redacted; and the same session read as the resource
`smig://session/<id>` (through each client's own resource-reading tool) arrives the same way.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from codex_rollouts import write_rollout
from fake_gemini_server import FakeGeminiServer, request_texts
from fake_model_server import FakeModelServer
from gemini_client import MODEL as GEMINI_MODEL
from mcp_clients import claude_env, client_binary, gemini_env, install, run_client

pytestmark = pytest.mark.e2e

SESSION = "019aa00c-0000-7000-8000-00000000c0de"
MARKER = "MARKER-OSPREY the login test flakes because the clock is mocked twice"
SECRET = "sk-proj-Qx8vT2mN5kL9pR3sW7yZ1aB4cD6eF0gH"


@pytest.fixture
def project(isolated_homes: dict[str, Path], tmp_path: Path) -> Path:
    """A folder where a Codex session ran, its last prompt holding a key."""
    folder = tmp_path / "project"
    folder.mkdir()
    turns = ["Please fix the flaky login test.", MARKER, f"Use OPENAI_API_KEY={SECRET} for the run.", "Done."]
    write_rollout(isolated_homes["codex"], folder, SESSION, turns)
    return folder


def check_handoff(text: str) -> None:
    """The session arrived as smig's fitted, redacted handoff."""
    assert f"Codex session {SESSION}" in text or f"`{SESSION}`" in text
    assert "# Handoff:" in text and "MARKER-OSPREY" in text
    assert SECRET not in text and "[REDACTED" in text


def test_claude_code_runs_the_prompt_as_a_slash_command(isolated_homes: dict[str, Path], project: Path) -> None:
    with FakeModelServer() as server:
        # Claude Code connects MCP servers in the background by default: on a loaded machine smig's server
        # was not up when `-p` read the slash command, which went to the model as plain text
        env = claude_env(isolated_homes, server) | {"MCP_CONNECTION_NONBLOCKING": "false"}
        install("claude")(env)
        run_client([client_binary("claude"), "-p", "/mcp__smig__continue_from_agent"], project, env)
        [first, *_] = [body for body in server.bodies("/messages") if body.get("tools")]
    texts = [
        block["text"]
        for message in first["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "text"
    ]
    [handoff] = [text for text in texts if "handed over by smig" in text]
    check_handoff(handoff)


def test_claude_code_reads_a_session_resource(isolated_homes: dict[str, Path], project: Path) -> None:
    results = _claude_resource(isolated_homes, project)
    check_handoff(results)


def _claude_resource(homes: dict[str, Path], project: Path) -> str:
    steps: list[dict[str, Any]] = [
        {"name": "ToolSearch", "args": {"query": "select:ReadMcpResourceTool", "max_results": 5}},
        {"name": "ReadMcpResourceTool", "args": {"server": "smig", "uri": f"smig://session/{SESSION}"}},
    ]
    with FakeModelServer(steps) as server:
        env = claude_env(homes, server)
        install("claude")(env)
        run_client(
            [client_binary("claude"), "-p", "go", "--allowedTools", "mcp__smig__*,ReadMcpResourceTool"], project, env
        )
        last = [body for body in server.bodies("/messages") if body.get("tools")][-1]
    return json.dumps(last["messages"], ensure_ascii=False).replace("\\n", "\n").replace('\\"', '"')


def test_gemini_cli_runs_the_prompt_as_a_slash_command(isolated_homes: dict[str, Path], project: Path) -> None:
    with FakeGeminiServer() as server:
        env = gemini_env(isolated_homes, server)
        install("gemini")(env)
        run_client([client_binary("gemini"), "-p", "/continue_from_agent", "-m", GEMINI_MODEL], project, env)
        [first, *_] = server.turns()
    [handoff] = [text for _, text in request_texts(first) if "handed over by smig" in text]
    check_handoff(
        json.loads(handoff) if handoff.startswith('"') else handoff
    )  # Gemini CLI quotes a prompt message as JSON


def test_gemini_cli_reads_a_session_resource(isolated_homes: dict[str, Path], project: Path) -> None:
    steps = [{"name": "read_mcp_resource", "args": {"uri": f"smig://session/{SESSION}"}}]
    with FakeGeminiServer(steps) as server:
        env = gemini_env(isolated_homes, server)
        install("gemini")(env)
        run_client([client_binary("gemini"), "-p", "go", "-m", GEMINI_MODEL], project, env)
        last = server.turns()[-1]
    check_handoff(json.dumps(last["contents"], ensure_ascii=False).replace("\\n", "\n").replace('\\"', '"'))


def test_opencode_runs_the_prompt_as_a_command(isolated_homes: dict[str, Path], project: Path) -> None:
    """OpenCode names the command `smig:continue_from_agent` and sends `$1`, `$2`, ... for arguments not given."""
    from mcp_clients import configure_opencode_provider

    with FakeModelServer() as server:
        env = configure_opencode_provider(isolated_homes, server)
        install("opencode")(env)
        run_client([client_binary("opencode"), "run", "--command", "smig:continue_from_agent"], project, env)
        [first, *_] = [body for body in server.bodies("/messages") if body.get("tools")]
    texts = [
        block["text"] for message in first["messages"] for block in message["content"] if block.get("type") == "text"
    ]
    [handoff] = [text for text in texts if "handed over by smig" in text]
    check_handoff(handoff)
