"""Shared pieces for running the real clients on a migrated session: sources and receivers, by agent.

What each agent does as a source and as a receiver lives in its driver (`drivers/<agent>.py`, the
interface in drivers/__init__.py); the functions here dispatch to it by agent id, so a test names
an agent and any driver present (the four original agents, Qwen Code, Kilo Code and the ones being
added) works. The Codex, Claude Code, OpenCode, Qwen Code and Kilo receivers share one
`FakeModelServer` (Responses, Messages and Chat Completions); Gemini CLI talks to a `FakeGeminiServer`.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_runner import smig
from client_env import CLIENT_TIMEOUT
from drivers import PROMPT, Servers, driver
from drivers.gemini import install_source as _gemini_source
from drivers.opencode import QUIET as OPENCODE_QUIET
from drivers.opencode import configure as configure_opencode
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer

from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Kind, Role

__all__ = ["OPENCODE_QUIET", "PROMPT", "configure_opencode"]


def install_gemini_source(homes: dict[str, Path], project: Path) -> str:
    """The recorded Gemini CLI session in the temp home, its project folder pointed at `project`; its id."""
    return _gemini_source(homes, project, project)


def install_source(agent: str, homes: dict[str, Path], project: Path, tmp_path: Path) -> str:
    """One agent's real recorded session in the temp homes; its id (skips when its fixture is absent)."""
    return str(driver(agent).install_source(homes, project, tmp_path))


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT, stdin=subprocess.DEVNULL
    )
    assert run.returncode == 0, (run.stdout[-1000:], run.stderr[-2000:])
    return run


def prepare_receiver(
    agent: str, homes: dict[str, Path], server: FakeModelServer, gemini_server: FakeGeminiServer | None = None
) -> None:
    """The receiving client's config, written before smig migrates (smig reads Codex's provider from it)."""
    driver(agent).prepare_receiver(homes, Servers(server, gemini_server))


def resume(
    agent: str,
    session_id: str,
    homes: dict[str, Path],
    project: Path,
    server: FakeModelServer,
    gemini_server: FakeGeminiServer,
) -> dict[str, Any]:
    """Resume `session_id` in the real client of `agent` with PROMPT; the model request of that turn."""
    servers = Servers(server, gemini_server)
    servers.clear()
    return dict(driver(agent).resume(session_id, homes, project, servers))


def run_opencode(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a client to completion; fails the test, with its output, on a non-zero exit."""
    run = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT, stdin=subprocess.DEVNULL
    )
    assert run.returncode == 0, (run.stdout[-1000:], run.stderr[-2000:])
    return run


def main_requests(server: FakeModelServer) -> list[dict[str, Any]]:
    """The agent's turns (requests offering tools), not its title requests."""
    return [body for body in server.bodies("/messages") if body.get("tools")]


def escaped(text: str) -> str:
    """`text` as it appears inside a JSON string."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def prose(messages: list[dict[str, Any]]) -> list[str]:
    """The first line (up to 60 characters) of every user or assistant text long enough to be distinctive."""
    lines = []
    for message in messages:
        if message["kind"] == Kind.TEXT.value and message["role"] in (Role.USER.value, Role.ASSISTANT.value):
            line = message["text"].strip().splitlines()[0] if message["text"].strip() else ""
            if len(line) >= 12:
                lines.append(line[:60])
    return lines


def smig_json(*argv: str) -> Any:
    """`smig ARGV --json` in-process; its parsed output (fails the test on a non-zero exit)."""
    code, out, err = smig(*argv, "--json")
    assert code == 0, err
    return json.loads(out)


def tool_turns(server: FakeModelServer) -> list[dict[str, Any]]:
    """The agent's turns: the requests offering tools (not its title or summary requests)."""
    return [body for _, _, body in server.requests if body.get("tools")]


def last_tool_turn(server: FakeModelServer, client: str) -> dict[str, Any]:
    """The last of the agent's turns (fails the test, naming the client, when it sent none)."""
    bodies = tool_turns(server)
    assert bodies, f"{client} sent the model no request"
    return bodies[-1]


def migrate_into_lived_in(
    agent: str,
    target: str,
    source: str,
    homes: dict[str, Path],
    project: Path,
    tmp_path: Path,
    lived_in: Callable[[Path, Path], None],
) -> dict[str, Any]:
    """`source`'s recorded session migrated as it is to `agent` in `project`, where `agent`'s client has
    just run (`lived_in`): a lived-in home whose user's own session is newer than the conversation migrated.
    smig's JSON result."""
    session_id = install_source(source, homes, project, tmp_path)
    lived_in(homes["home"], project)
    argv = ("migrate", session_id, "--target", target, "--strategy", "as-is", "--to", agent, "--cwd", str(project))
    return dict(smig_json(*argv))


def assert_continues(body: dict[str, Any], result: dict[str, Any], prompt: str) -> None:
    """The request carries the migration (note, id, first and last kept text, in order), the prompt last."""
    sent = json.dumps(body, ensure_ascii=False)
    kept = prose(result["record"]["messages"])
    assert kept, "the migration kept no prose to look for"
    places = [sent.find(escaped(text)) for text in (NOTE_PREFIX, result["migration_id"], kept[0], kept[-1])]
    places.append(sent.rfind(escaped(prompt)))  # a word like "continue" is in a system prompt too
    assert -1 not in places, places
    assert places[0] <= places[2] <= places[3] < places[4], places
    last = body["messages"][-1]
    content = last["content"] if isinstance(last["content"], str) else json.dumps(last["content"], ensure_ascii=False)
    assert last["role"] == "user" and prompt in content, last
