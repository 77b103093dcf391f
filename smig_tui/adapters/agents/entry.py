"""Provides `AgentEntry`: what the rest of smig needs to know of one agent, and how to build its reader and writer.

Each agent's package defines its entry in its `__init__`; `registry.AGENTS` lists them, and
`build_services`, the source tree, the commit dialog, the CLI choices and the MCP schemas loop over
that list, so an agent is added with one package and one line there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from smig_tui.core.models import Agent

if TYPE_CHECKING:
    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource

Env = Mapping[str, str] | None
"""The environment an agent's settings come from (None: this process's)."""


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """One agent: its names, its defaults, and factories (imported lazily) for its reader and writer."""

    agent: Agent
    name: str
    """As its users write it: `Claude Code`, `Gemini CLI`."""
    hand_to: Agent
    """The agent its sessions go to unless the user picks another (Codex ↔ Claude Code)."""
    default_target: str
    """A model of another agent, to measure a session against before the user chooses one."""
    shown_when_empty: bool
    """Whether the source tree shows its node with no sessions (the others appear once they have some)."""
    home: Callable[[Paths, Env], Path | None]
    """Where its sessions are read from: a folder, or OpenCode's database file; None when unknown."""
    source: Callable[[Paths, Env], SessionSource | None]
    """Its reader (None when its home is unknown)."""
    writer: Callable[[Paths, Env], NativeWriter | None]
    """Its writer for `--to <agent>` (None when its home is unknown)."""
    home_variables: tuple[str, ...] = ()
    """The environment variables that move its home, as its own client reads them (read at launch)."""

    @property
    def id(self) -> str:
        """The agent's id as written on the command line and in records: `codex`, `claude`, …"""
        return self.agent.value

    def listing_cache(self, paths: Paths) -> Path:
        """Where its reader keeps what it learnt of each session file, so listing is fast next time."""
        return paths.cache_dir / f"listing-{self.id}.json"
