"""Reads and writes Claude Code sessions: transcripts under CLAUDE_CONFIG_DIR/projects, and new ones Claude Code resumes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.entry import AgentEntry, Env
from smig_tui.core.models import Agent

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource


def _home(paths: Paths, _env: Env) -> Path:
    return paths.claude_home


def _source(paths: Paths, _env: Env) -> SessionSource:
    from smig_tui.adapters.agents.claude.source import ClaudeSource

    return ClaudeSource(paths, listing_cache=ENTRY.listing_cache(paths))


def _writer(paths: Paths, _env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.claude.writer import ClaudeWriter

    return ClaudeWriter(paths)


ENTRY = AgentEntry(
    Agent.CLAUDE,
    "Claude Code",
    hand_to=Agent.CODEX,
    default_target="gpt-5.5",
    shown_when_empty=True,
    home=_home,
    source=_source,
    writer=_writer,
    home_variables=("CLAUDE_CONFIG_DIR",),
)
