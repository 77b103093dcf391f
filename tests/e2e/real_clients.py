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
from pathlib import Path
from typing import Any

from client_env import CLIENT_TIMEOUT
from drivers import PROMPT, Servers, driver
from drivers.gemini import install_source as _gemini_source
from drivers.opencode import QUIET as OPENCODE_QUIET
from drivers.opencode import configure as configure_opencode
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer

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
