"""Reads and writes Codex CLI sessions: rollouts under CODEX_HOME, their lineage, and new rollouts Codex resumes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.entry import AgentEntry, Env
from smig_tui.core.models import Agent

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource


def _home(paths: Paths, _env: Env) -> Path:
    return paths.codex_home


def _source(paths: Paths, _env: Env) -> SessionSource:
    from smig_tui.adapters.agents.codex.source import CodexSource

    return CodexSource(paths, listing_cache=ENTRY.listing_cache(paths))


def _writer(paths: Paths, env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.codex.writer import CodexWriter

    return CodexWriter(paths, env)


ENTRY = AgentEntry(
    Agent.CODEX,
    "Codex",
    hand_to=Agent.CLAUDE,
    default_target="claude-sonnet-5-5",
    shown_when_empty=True,
    home=_home,
    source=_source,
    writer=_writer,
    home_variables=("CODEX_HOME",),
)
