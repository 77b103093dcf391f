"""`smig migrate … --continue` ends smig and starts the real receiving client on the migration.

smig runs as a user runs it, in a terminal (a pty whose screen `pyte` reads), from a folder other
than the project; it migrates a real recorded session, then the client it starts shows its
interactive UI in the project folder, the test types a prompt there, and the fake model server must
receive a request that carries smig's handoff note and the migrated text. Then the client is stopped.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from client_env import base_env, client_binary
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer
from gemini_client import MODEL as GEMINI_MODEL
from gemini_client import NO_RELAUNCH, prepare_home
from real_clients import OPENCODE_QUIET, install_source, prepare_receiver
from terminal import Terminal

from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Kind, Role

pytestmark = pytest.mark.e2e

PROMPT = "continue with the osprey fix"
SOURCES = {"claude": "gemini", "codex": "opencode", "gemini": "opencode", "opencode": "gemini"}
"""The recorded session each receiver continues: another agent's, from tests/fixtures (no ../shared needed)."""
NAMES = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI", "opencode": "OpenCode"}
READY = {"claude": "auto mode", "codex": "Ask Codex", "gemini": "Type your message", "opencode": "ctrl+p commands"}
"""What each client shows once its prompt takes input."""
TARGETS = {"codex": "gpt-5.5", "claude": "claude-sonnet-4-5", "gemini": GEMINI_MODEL, "opencode": "claude-sonnet-4-5"}


@pytest.fixture
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


@pytest.fixture
def gemini_server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as server:
        yield server


def _claude_ready(config_dir: Path, project: Path) -> None:
    """What a user of Claude Code has done once: onboarding, approving the API key, trusting the folder."""
    config_dir.mkdir(parents=True, exist_ok=True)
    state = {
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": ["test"], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}},
    }
    (config_dir / ".claude.json").write_text(json.dumps(state), encoding="utf-8")


def _env(
    agent: str, homes: dict[str, Path], project: Path, server: FakeModelServer, gemini: FakeGeminiServer
) -> dict[str, str]:
    """smig's environment, which the client it starts inherits: temp homes and the fake servers only."""
    folder = str(Path(client_binary(agent)).parent)
    env = base_env(homes) | {"SMIG_TUI_HOME": str(homes["smig"]), "PATH": f"{folder}:{os.environ['PATH']}"}
    env.pop("CI", None)  # an interactive run, as a user's
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        env["TIKTOKEN_CACHE_DIR"] = os.environ["TIKTOKEN_CACHE_DIR"]
    if agent == "claude":
        _claude_ready(homes["claude"], project)
        return env | {
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
    if agent == "codex":  # the user said no to Codex's offer of a newer model once (it asks before resuming)
        with (homes["codex"] / "config.toml").open("a", encoding="utf-8") as config:
            config.write(
                '\n[features]\ndaemon_auto_start = false\n\n[notice.model_migrations]\n"gpt-5.5" = "gpt-6-sol"\n'
            )
        return env | {"SMIG_FAKE_KEY": "test"}
    if agent == "gemini":
        prepare_home(homes["home"])
        return env | {
            "GEMINI_API_KEY": "smig-test",
            "GOOGLE_GEMINI_BASE_URL": gemini.url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            **NO_RELAUNCH,
        }
    return env | OPENCODE_QUIET


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "opencode"])
def test_continue_starts_the_client_on_the_migration_and_it_sends_the_history(
    agent: str,
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    model_server: FakeModelServer,
    gemini_server: FakeGeminiServer,
) -> None:
    client_binary(agent)  # skips when the client is not installed
    project = tmp_path / "osprey-app"
    project.mkdir()
    session_id = install_source(SOURCES[agent], isolated_homes, project, tmp_path)
    prepare_receiver(agent, isolated_homes, model_server)
    env = _env(agent, isolated_homes, project, model_server, gemini_server)
    argv = ["migrate", session_id, "--target", TARGETS[agent], "--to", agent, "--cwd", str(project), "--continue"]
    terminal = Terminal([sys.executable, "-m", "smig_tui", *argv], tmp_path, env)
    try:
        terminal.wait_for(terminal.prints("smig: starting"), "smig to start the client")
        record = _record(isolated_homes)
        _prompt_the_client(terminal, agent, project, record, model_server, gemini_server)
    finally:
        terminal.close()
    _assert_history_sent(agent, record, model_server, gemini_server)


def test_c_in_the_tui_commit_result_leaves_smig_for_the_client(
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    model_server: FakeModelServer,
    gemini_server: FakeGeminiServer,
) -> None:
    """`smig`, filter, open, commit, `c`: Textual gives the terminal back, then Codex runs in its place."""
    client_binary("codex")
    project = tmp_path / "osprey-app"
    project.mkdir()
    install_source("gemini", isolated_homes, project, tmp_path)  # Gemini CLI hands its sessions to Codex
    prepare_receiver("codex", isolated_homes, model_server)
    env = _env("codex", isolated_homes, project, model_server, gemini_server)
    terminal = Terminal([sys.executable, "-m", "smig_tui"], tmp_path, env)
    try:
        terminal.wait_for(terminal.shows("OSPREY-93"), "smig to list the session")
        terminal.type("/ospr")  # in one write, as a fast typist or tmux sends it: every letter reaches the filter
        terminal.wait_for(terminal.shows("│ ospr "), "the filter")
        terminal.type("\r")
        terminal.wait_for(terminal.shows("fits"), "the session to be measured")
        terminal.type("c")
        terminal.wait_for(terminal.shows("Codex session"), "the commit dialog")
        terminal.type("\r")
        terminal.wait_for(terminal.shows("c continues in Codex"), "the commit result")
        terminal.type("c")
        terminal.wait_for(terminal.prints("smig: starting Codex: "), "smig to start Codex")
        before_start = bytes(terminal.output).split(b"smig: starting", 1)[0]
        assert before_start.rfind(b"\x1b[?1049l") > before_start.rfind(b"\x1b[?1049h")  # left the alternate screen
        record = _record(isolated_homes)
        _prompt_the_client(terminal, "codex", project, record, model_server, gemini_server)
    finally:
        terminal.close()
    _assert_history_sent("codex", record, model_server, gemini_server)


def test_history_show_continue_starts_the_client_of_a_migration_committed_earlier(
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    model_server: FakeModelServer,
    gemini_server: FakeGeminiServer,
) -> None:
    """Committed one day, continued the next: `smig history show ID --continue` starts Claude Code on it."""
    client_binary("claude")  # skips when the client is not installed
    project = tmp_path / "osprey-app"
    project.mkdir()
    session_id = install_source(SOURCES["claude"], isolated_homes, project, tmp_path)
    prepare_receiver("claude", isolated_homes, model_server)
    env = _env("claude", isolated_homes, project, model_server, gemini_server)
    argv = ["migrate", session_id, "--target", TARGETS["claude"], "--to", "claude", "--cwd", str(project), "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "smig_tui", *argv], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    migration = json.loads(done.stdout)["migration_id"]
    terminal = Terminal(
        [sys.executable, "-m", "smig_tui", "history", "show", migration[:10], "--continue"], tmp_path, env
    )
    try:
        terminal.wait_for(terminal.prints("smig: starting"), "smig to start the client")
        record = _record(isolated_homes)
        assert record["id"] == migration
        _prompt_the_client(terminal, "claude", project, record, model_server, gemini_server)
    finally:
        terminal.close()
    _assert_history_sent("claude", record, model_server, gemini_server)


def _prompt_the_client(
    terminal: Terminal,
    agent: str,
    project: Path,
    record: dict[str, Any],
    server: FakeModelServer,
    gemini: FakeGeminiServer,
) -> None:
    """Check that smig showed the command and became the client in the project, then type PROMPT there."""
    [output] = record["outputs"]
    assert _start_line(terminal) == f"smig: starting {NAMES[agent]}: {output['resume_command']}"
    assert output["resume_command"] == f"cd {project} && {shlex.join(output['argv'])}"
    terminal.wait_for(terminal.shows(READY[agent]), "the client's prompt")
    last = _prose(record["messages"])[-1][:16]
    terminal.wait_for(terminal.shows(last), "the client to show the migrated conversation")
    # smig's process became the client (exec): same pid, the client's command line, the project folder
    assert os.readlink(f"/proc/{terminal.process.pid}/cwd") == str(project)
    command_line = Path(f"/proc/{terminal.process.pid}/cmdline").read_bytes().split(b"\0")
    assert output["session_id"].encode() in command_line and b"smig_tui" not in command_line
    terminal.type_until(PROMPT, terminal.shows(PROMPT), "the prompt to be typed")
    # Gemini CLI 0.61.0 takes an Enter within 30 ms of the key before for a newline (a paste's), not a send
    terminal.type_until("\r", lambda: bool(_sent(agent, server, gemini)), "the client's request", attempt=10.0)


def _assert_history_sent(agent: str, record: dict[str, Any], server: FakeModelServer, gemini: FakeGeminiServer) -> None:
    """The request the prompt went out in carries smig's note, the migration id and the kept text."""
    sent = _sent(agent, server, gemini)[-1]
    for text in [NOTE_PREFIX, record["id"], *_prose(record["messages"])]:
        assert _escaped(text) in sent, text


def _start_line(terminal: Terminal) -> str:
    """The line smig printed as it handed over to the client, once it has come whole: the terminal may
    have read its start and not yet its end (a CI run found it so)."""

    def whole() -> bool:
        output = bytes(terminal.output)
        start = output.find(b"smig: starting")
        return start >= 0 and output.find(b"\r\n", start) >= 0

    terminal.wait_for(whole, "smig's line starting the client to end")
    output = bytes(terminal.output)
    start = output.index(b"smig: starting")
    return output[start : output.index(b"\r\n", start)].decode()


def _record(homes: dict[str, Path]) -> dict[str, Any]:
    """The one migration smig has stored."""
    [path] = (homes["smig"]).rglob("migrations/*/*.json")
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _sent(agent: str, server: FakeModelServer, gemini: FakeGeminiServer) -> list[str]:
    """The model requests that carry the typed prompt, as JSON text."""
    if agent == "gemini":
        bodies = gemini.turns()
    elif agent == "codex":
        bodies = server.bodies("/responses")
    else:
        bodies = server.bodies("/messages")
    texts = [json.dumps(body, ensure_ascii=False) for body in bodies]
    return [text for text in texts if _escaped(PROMPT) in text]


def _escaped(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _prose(messages: list[dict[str, Any]]) -> list[str]:
    """The first and last distinctive user or assistant lines of the migrated conversation."""
    lines = [
        message["text"].strip().splitlines()[0][:60]
        for message in messages
        if message["kind"] == Kind.TEXT.value
        and message["role"] in (Role.USER.value, Role.ASSISTANT.value)
        and len(message["text"].strip()) >= 12
    ]
    assert lines, "the migration kept no prose to look for"
    return [lines[0], lines[-1]]
