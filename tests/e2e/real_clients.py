"""Shared pieces for running the four real clients on a migrated session: sources and receivers.

A source puts one agent's real recorded session into the temp homes; a receiver configures one real
client against a local fake model server, resumes a session by id and returns the request the
client sent the model for that turn. The Codex, Claude Code and OpenCode receivers share one
`FakeModelServer` (Responses and Messages APIs); Gemini CLI talks to a `FakeGeminiServer`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from client_env import (
    CLIENT_TIMEOUT,
    base_env,
    carries_prompt,
    claude_env,
    client_binary,
    codex_home_for,
    install_fixture,
    shared_fixtures_dir,
)
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer
from gemini_client import run_gemini
from opencode_builders import install_database

from smig_tui.core.models import Agent, Kind, Role
from smig_tui.services import build_services

GEMINI_FIXTURE = Path(__file__).parents[1] / "fixtures" / "gemini"
OPENCODE_QUIET = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
}
PROMPT = "continue"
CODEX_ROLLOUT = "madshn__localpush__rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"


def install_gemini_source(homes: dict[str, Path], project: Path) -> str:
    """The recorded Gemini CLI session in the temp home, its project folder pointed at `project`; its id."""
    home = homes["home"] / ".gemini"
    shutil.copytree(GEMINI_FIXTURE / "home" / ".gemini", home, dirs_exist_ok=True)
    (home / "tmp" / "osprey-app" / ".project_root").write_text(str(project), encoding="utf-8")
    [info] = build_services().list_sessions(agent=Agent("gemini"))
    return info.id


def install_source(agent: str, homes: dict[str, Path], project: Path, tmp_path: Path) -> str:
    """One agent's real recorded session in the temp homes; its id (skips when ../shared is absent)."""
    if agent in ("codex", "claude") and not shared_fixtures_dir().is_dir():
        pytest.skip("../shared/fixtures is not present (fresh clone)")
    if agent == "codex":  # a real rollout whose prose (redacted by its publisher) is distinct in every message
        rollout = shared_fixtures_dir() / "codex" / CODEX_ROLLOUT
        folder = homes["codex"] / "sessions" / "2026" / "02" / "23"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(rollout, folder / rollout.name.removeprefix("madshn__localpush__"))
        return "019c8bfe-ec25-79e0-97d7-bda6a9c575ff"
    if agent == "claude":
        return install_fixture("shared", Agent("claude"), shared_fixtures_dir(), homes, project, tmp_path).id
    if agent == "gemini":
        return install_gemini_source(homes, project)
    install_database(homes["home"] / ".local" / "share" / "opencode")
    [info] = build_services().list_sessions(agent=Agent("opencode"))
    return info.id


def configure_opencode(homes: dict[str, Path], server: FakeModelServer) -> dict[str, str]:
    """OpenCode's config in the temp home: a provider `fake` at the server; the env to run it with."""
    folder = homes["home"] / ".config" / "opencode"
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "$schema": "https://opencode.ai/config.json",
        "model": "fake/claude-sonnet-4-5",
        "autoupdate": False,
        "share": "disabled",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/anthropic",
                "name": "fake",
                "options": {"baseURL": f"{server.url}/v1", "apiKey": "test"},
                "models": {"claude-sonnet-4-5": {"name": "fake", "limit": {"context": 200000, "output": 8000}}},
            }
        },
    }
    (folder / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
    return base_env(homes) | OPENCODE_QUIET


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT, stdin=subprocess.DEVNULL
    )
    assert run.returncode == 0, (run.stdout[-1000:], run.stderr[-2000:])
    return run


def prepare_receiver(agent: str, homes: dict[str, Path], server: FakeModelServer) -> None:
    """The receiving client's config, written before smig migrates (smig reads Codex's provider from it)."""
    if agent == "codex":
        codex_home_for(homes, server)
    elif agent == "opencode":
        configure_opencode(homes, server)


def resume(
    agent: str,
    session_id: str,
    homes: dict[str, Path],
    project: Path,
    server: FakeModelServer,
    gemini_server: FakeGeminiServer,
) -> dict[str, Any]:
    """Resume `session_id` in the real client of `agent` with PROMPT; the model request of that turn."""
    server.requests.clear()
    gemini_server.requests.clear()
    if agent == "codex":
        _run(
            [client_binary("codex"), "exec", "--skip-git-repo-check", "resume", session_id, PROMPT],
            project,
            base_env(homes) | {"SMIG_FAKE_KEY": "test"},
        )
        bodies = server.bodies("/responses")
    elif agent == "claude":
        _run([client_binary("claude"), "-p", "--resume", session_id, PROMPT], project, claude_env(homes, server))
        bodies = [body for body in server.bodies("/messages") if carries_prompt(body, PROMPT)]
    elif agent == "gemini":
        run_gemini(homes["home"], project, gemini_server, "--resume", session_id, "-p", PROMPT)
        bodies = gemini_server.turns()
    else:
        _run([client_binary("opencode"), "run", "-s", session_id, PROMPT], project, configure_opencode(homes, server))
        bodies = [body for body in server.bodies("/messages") if body.get("tools")]
    assert bodies, f"{agent} sent the model no request"
    return bodies[-1]


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
