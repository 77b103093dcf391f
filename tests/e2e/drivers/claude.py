"""Claude Code 2.1.332 in the real-client matrix: a published session as the source, `claude -p --resume` as the receiver."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from client_env import carries_prompt, claude_env, client_binary, install_fixture, run_client, shared_fixtures_dir

from drivers import PROMPT, Servers, last_turn, write_note
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


def _turn(homes: dict[str, Path], project: Path, servers: Servers, *args: str) -> dict[str, Any]:
    """`claude -p [ARGS] PROMPT`; the request of that turn (its title and topic requests carry no prompt)."""
    servers.clear()
    run_client([client_binary("claude"), "-p", *args, PROMPT], project, claude_env(homes, servers.model))
    return last_turn(
        [body for body in servers.model.bodies("/messages") if carries_prompt(body, PROMPT)], "Claude Code"
    )


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    return _turn(homes, project, servers, "--resume", session_id)


def seed_memory(homes: dict[str, Path], note: str) -> None:
    """A topic file in the home folder's project memory, as Claude Code's memory tool writes it."""
    write_note(
        homes["claude"] / "projects" / project_name(str(homes["home"])) / "memory" / "feedback_note.md",
        f"---\nname: a rule\ndescription: {note}\ntype: feedback\n---\n\n{note}.\n",
    )


def memory_turn(homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    return _turn(homes, project, servers)


def memory_carries(homes: dict[str, Path], notes: dict[str, str]) -> list[str]:
    """Claude Code inlines what its user-level CLAUDE.md imports (smig's bundle), in any folder."""
    return [note for agent, note in notes.items() if agent != AGENT]
