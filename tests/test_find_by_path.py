"""`smig plan PATH` and friends resolve a session file by listing only the agent whose home holds it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from smig_tui.core.models import Agent
from smig_tui.services import build_services

FIXTURES = Path(__file__).parent / "fixtures" / "real"
CLAUDE = FIXTURES / "claude" / "projects" / "-tmp-smig-real-claude-work-tools"
CODEX = FIXTURES / "codex" / "fork_lineage" / "codex_home" / "sessions"


@pytest.fixture
def both_homes(isolated_homes: dict[str, Path]) -> dict[str, Path]:
    shutil.copytree(CLAUDE, isolated_homes["claude"] / "projects" / CLAUDE.name)
    shutil.copytree(CODEX, isolated_homes["codex"] / "sessions")
    return isolated_homes


def _listed_agents(services, monkeypatch: pytest.MonkeyPatch) -> list[Agent]:
    """Record which agents' readers are asked to list sessions."""
    asked: list[Agent] = []
    for source in services.sources:
        original = source.discover

        def discover(warn, original=original, agent=source.agent):  # type: ignore[no-untyped-def]
            asked.append(agent)
            return original(warn)

        monkeypatch.setattr(source, "discover", discover)
    return asked


def test_a_claude_path_lists_only_claude(both_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    path = next((both_homes["claude"] / "projects").rglob("*.jsonl"))
    services = build_services()
    asked = _listed_agents(services, monkeypatch)
    info = services.find_session(str(path))
    assert info.agent is Agent.CLAUDE and info.path == str(path)
    assert set(asked) == {Agent.CLAUDE}


def test_a_codex_path_lists_only_codex(both_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    path = next((both_homes["codex"] / "sessions").rglob("rollout-*.jsonl"))
    services = build_services()
    asked = _listed_agents(services, monkeypatch)
    assert services.find_session(str(path)).agent is Agent.CODEX
    assert set(asked) == {Agent.CODEX}


def test_a_path_through_a_symlink_resolves_into_its_home(both_homes: dict[str, Path], tmp_path: Path) -> None:
    """A path through a symlinked folder resolves into a home: it is found the same."""
    link = tmp_path / "elsewhere"
    link.symlink_to(both_homes["claude"] / "projects" / CLAUDE.name)
    path = next(link.glob("*.jsonl"))
    info = build_services().find_session(str(path))
    assert info.agent is Agent.CLAUDE
