"""Codex CLI 0.171.0 in the real-client matrix: a published rollout as the source, `codex exec resume` as the receiver."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from client_env import base_env, client_binary, codex_home_for, run_client, shared_fixtures_dir

from drivers import PROMPT, Servers, last_turn, write_note

AGENT = "codex"
TARGET = "gpt-5.5"
PROVIDER = "openai"
ROLLOUT = "madshn__localpush__rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"
"""A real rollout whose prose (redacted by its publisher) is distinct in every message."""
SESSION = "019c8bfe-ec25-79e0-97d7-bda6a9c575ff"


def smig_env(homes: dict[str, Path]) -> dict[str, str]:
    return {}


def install_source(homes: dict[str, Path], project: Path, tmp_path: Path) -> str:
    if not shared_fixtures_dir().is_dir():
        pytest.skip("../shared/fixtures is not present (fresh clone)")
    rollout = shared_fixtures_dir() / "codex" / ROLLOUT
    folder = homes["codex"] / "sessions" / "2026" / "02" / "23"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(rollout, folder / rollout.name.removeprefix("madshn__localpush__"))
    return SESSION


def prepare_receiver(homes: dict[str, Path], servers: Servers) -> None:
    """Codex's provider `fake` at the server (smig's writer reads the provider from this config)."""
    codex_home_for(homes, servers.model)


def _turn(homes: dict[str, Path], project: Path, servers: Servers, *args: str) -> dict[str, Any]:
    """`codex exec [ARGS] PROMPT`; the request of that turn."""
    servers.clear()
    argv = [client_binary("codex"), "exec", "--skip-git-repo-check", *args, PROMPT]
    run_client(argv, project, base_env(homes) | {"SMIG_FAKE_KEY": "test"})
    return last_turn(servers.model.bodies("/responses"), "Codex")


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    return _turn(homes, project, servers, "resume", session_id)


def seed_memory(homes: dict[str, Path], note: str) -> None:
    """A memory summary, as Codex's memory consolidation writes it."""
    write_note(homes["codex"] / "memories" / "memory_summary.md", f"# Summary\n\n- {note}\n")


def memory_turn(homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    return _turn(homes, project, servers)


def memory_carries(homes: dict[str, Path], notes: dict[str, str]) -> list[str]:
    """Codex loads its global AGENTS.md, where smig names the bundle of Claude Code's memory."""
    return [f"also read {homes['codex'] / 'memories' / 'claude_code_smig.md'}"]
