"""Runs the real Claude Code and Codex CLIs for the end-to-end tests: their binaries, environments and fixtures.

Shared by every test of tests/e2e that drives a real client; `.ci/run` installs the clients from npm
into SMIG_E2E_BIN, and a test skips when one is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from fake_model_server import FakeModelServer
from migration_builders import make_session

from smig_tui.core.migration import MigrationResult
from smig_tui.core.models import Agent, Kind, Role, Session
from smig_tui.services import build_services

_DEFAULT_BIN = Path(os.path.expanduser("~")) / ".cache" / "smig-e2e" / "node_modules" / ".bin"
CLIENT_TIMEOUT = 240


def client_binary(name: str) -> str:
    """The installed client binary, or skip."""
    for folder in (os.environ.get("SMIG_E2E_BIN"), str(_DEFAULT_BIN)):
        if folder and (Path(folder) / name).is_file():
            return str(Path(folder) / name)
    found = shutil.which(name)
    if not found:
        pytest.skip(f"{name} is not installed (set SMIG_E2E_BIN or run .ci/run)")
    return found


def base_env(homes: dict[str, Path]) -> dict[str, str]:
    """A clean environment: temp homes only, nothing from a real profile or a parent agent."""
    env = {key: os.environ[key] for key in ("PATH", "LANG", "TMPDIR") if key in os.environ}
    env.update(
        HOME=str(homes["home"]),
        CODEX_HOME=str(homes["codex"]),
        CLAUDE_CONFIG_DIR=str(homes["claude"]),
        NO_COLOR="1",
        CI="1",
    )
    return env


def install_fixture(
    kind: str, agent: Agent, shared: Path | None, homes: dict[str, Path], project: Path, tmp_path: Path
) -> Session:
    """Put a source session in the temp homes, its cwd pointed at a real folder, and read it."""
    services = build_services()
    if kind == "built":
        session = make_session(tmp_path / "src", agent=agent, cwd=str(project))
        return session
    assert shared is not None
    if agent == Agent("codex"):
        original = shared / "codex" / "jazzyalex__agent-sessions__stage0-codex-small.jsonl"
        text = original.read_text(encoding="utf-8").replace('"/tmp/repo', json.dumps(str(project))[:-1])
        thread = json.loads(text.splitlines()[0])["payload"]["id"]
        target = homes["codex"] / "sessions" / "2026" / "08" / "03" / f"rollout-2026-08-03T10-48-56-{thread}.jsonl"
    else:
        original = shared / "claude" / "marot__spotter__short.jsonl"
        old = "/home/marco/projects/spotter"
        text = original.read_text(encoding="utf-8").replace(json.dumps(old)[:-1], json.dumps(str(project))[:-1])
        sid = next(json.loads(line)["sessionId"] for line in text.splitlines() if '"sessionId"' in line)
        target = homes["claude"] / "projects" / "spotter" / f"{sid}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    info = services.find_session(str(target))
    return services.load_session(info)


def carries_prompt(body: dict, prompt: str) -> bool:
    """True when a user message anywhere in the request is the prompt (Claude Code 2.1.332 appends a
    `role: "system"` environment message after it, so the prompt is not always the last message)."""
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = [content] if isinstance(content, str) else content or []
        texts = [b if isinstance(b, str) else b.get("text", "") for b in blocks if isinstance(b, (str, dict))]
        if any(text.strip() == prompt for text in texts):
            return True
    return False


def distinctive_texts(result: MigrationResult) -> list[str]:
    """Texts from the migrated conversation the resumed request must carry."""
    texts = []
    for message in result.record.messages:
        if message["kind"] == Kind.TEXT.value and message["role"] in (Role.USER.value, Role.ASSISTANT.value):
            line = message["text"].strip().splitlines()[0] if message["text"].strip() else ""
            if len(line) >= 12:
                texts.append(line[:60])
    assert texts, "the fixture has no prose to look for"
    return [texts[0], texts[-1]]


def shared_fixtures_dir() -> Path:
    return Path(__file__).parents[1] / "fixtures" / "public"


def claude_env(homes: dict[str, Path], server: FakeModelServer) -> dict[str, str]:
    return base_env(homes) | {
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "test",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }


def codex_home_for(homes: dict[str, Path], server: FakeModelServer) -> None:
    homes["codex"].mkdir(parents=True, exist_ok=True)
    (homes["codex"] / "config.toml").write_text(
        'model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
        f'base_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "SMIG_FAKE_KEY"\n',
        encoding="utf-8",
    )


def run_client(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT, stdin=subprocess.DEVNULL
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run
