"""Claude Code 2.1.332 in the real-client matrix: a published session as the source, `claude -p --resume` as the receiver."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from client_env import carries_prompt, claude_env, client_binary, install_fixture, run_client, shared_fixtures_dir

from drivers import PROMPT, Servers
from smig_tui.adapters.agents.claude.memory import project_name
from smig_tui.core.models import Agent

AGENT = "claude"
TARGET = "claude-sonnet-4-5"
PROVIDER = "anthropic"


def smig_env(homes: dict[str, Path]) -> dict[str, str]:
    return {}


def install_source(homes: dict[str, Path], project: Path, tmp_path: Path) -> str:
    if not shared_fixtures_dir().is_dir():
        pytest.skip("../shared/fixtures is not present (fresh clone)")
    return install_fixture("shared", Agent("claude"), shared_fixtures_dir(), homes, project, tmp_path).id


def prepare_receiver(homes: dict[str, Path], servers: Servers) -> None:
    """Nothing to write: Claude Code takes its server and key from the environment `resume` runs it in."""


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    servers.clear()
    run_client(
        [client_binary("claude"), "-p", "--resume", session_id, PROMPT], project, claude_env(homes, servers.model)
    )
    # its title and topic requests carry no prompt; the turn is the request whose user message is PROMPT
    bodies = [body for body in servers.model.bodies("/messages") if carries_prompt(body, PROMPT)]
    assert bodies, "Claude Code sent the model no request"
    return bodies[-1]


def seed_memory(homes: dict[str, Path], note: str) -> None:
    """A topic file in the home folder's project memory, as Claude Code's memory tool writes it."""
    path = homes["claude"] / "projects" / project_name(str(homes["home"])) / "memory" / "feedback_note.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: a rule\ndescription: {note}\ntype: feedback\n---\n\n{note}.\n", encoding="utf-8")


def memory_turn(homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    servers.clear()
    run_client([client_binary("claude"), "-p", PROMPT], project, claude_env(homes, servers.model))
    bodies = [body for body in servers.model.bodies("/messages") if body.get("tools")]
    assert bodies, "Claude Code sent the model no request"
    return bodies[-1]


def memory_carries(homes: dict[str, Path], notes: dict[str, str]) -> list[str]:
    """Claude Code inlines what its user-level CLAUDE.md imports (smig's bundle), in any folder."""
    return [note for agent, note in notes.items() if agent != AGENT]
