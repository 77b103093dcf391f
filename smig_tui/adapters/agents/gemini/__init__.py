"""Gemini CLI (`@google/gemini-cli`, checked with 0.61.0): its sessions read, and written for it to resume."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.entry import AgentEntry, Env
from smig_tui.core.models import Agent

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource


def _home(paths: Paths, _env: Env) -> Path | None:
    return paths.gemini_home


def _source(paths: Paths, _env: Env) -> SessionSource | None:
    if paths.gemini_home is None:
        return None
    from smig_tui.adapters.agents.gemini.source import GeminiSource

    return GeminiSource(paths.gemini_home, listing_cache=ENTRY.listing_cache(paths))


def _writer(paths: Paths, _env: Env) -> NativeWriter | None:
    if paths.gemini_home is None:
        return None
    from smig_tui.adapters.agents.gemini.writer import GeminiWriter

    return GeminiWriter(paths.gemini_home)


ENTRY = AgentEntry(
    Agent.GEMINI,
    "Gemini CLI",
    hand_to=Agent.CODEX,
    default_target="claude-sonnet-5-5",
    shown_when_empty=False,
    home=_home,
    source=_source,
    writer=_writer,
    home_variables=("GEMINI_CLI_HOME",),
)
