"""Provides the archive feature: smig's copies of session files, listed when the originals are gone (issue 20)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from smig_tui.adapters.paths import Paths
from smig_tui.core.ports import SessionSource
from smig_tui.plugins import agent_profiles

if TYPE_CHECKING:
    from smig_tui.adapters.agents.profile import AgentProfile
    from smig_tui.adapters.archive import Archive


def session_archive(paths: Paths, env: dict[str, str] | None = None) -> Archive:
    """smig's archive of session files, restoring into each agent's home (issue 20)."""
    from smig_tui.adapters.archive import Archive

    homes: dict[str, Path] = {
        entry.id: home for entry in agent_profiles() if entry.refs is None and (home := entry.home(env)) is not None
    }
    return Archive(paths.data_dir / "archive", homes)


def with_archive(paths: Paths, sources: list[SessionSource], env: dict[str, str] | None = None) -> list[SessionSource]:
    """Each reader wrapped so archived sessions whose originals are gone still list (issue 20)."""
    from smig_tui.adapters.archive import ArchivedSource

    archive = session_archive(paths, env)
    return [ArchivedSource(source, archive, paths.cache_dir / "archive-view") for source in sources]


def archived_readers(
    paths: Paths, agents: Sequence[AgentProfile], env: dict[str, str] | None = None
) -> list[SessionSource]:
    """One reader per agent, wrapped as `with_archive` wraps them. An agent whose profile names what its
    listing reads gets its reader built on first use: a search on a fresh index builds none."""
    from smig_tui.adapters.archive import ArchivedSource

    archive = session_archive(paths, env)
    view_root = paths.cache_dir / "archive-view"
    readers: list[SessionSource] = []
    for agent in agents:
        if agent.watched is not None:
            readers.append(ArchivedSource.deferred(agent, paths, env, archive, view_root))
        elif (source := agent.source(paths, env)) is not None:
            readers.append(ArchivedSource(source, archive, view_root))
    return readers
