"""Provides the one table of what memory sync knows per agent: its label, its direction, its files.

Every front end (CLI flags, the TUI's tables, MCP) loops over `MEMORY_AGENTS`; the planner's rules for
how each agent takes its bundle (its size limits among them) are the `_RECEIVERS` table in
`core/memory_sync.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from smig_tui.core.memory_model import Direction, SyncTargets


@dataclass(frozen=True, slots=True)
class MemoryAgent:
    """One agent as memory sync sees it."""

    agent: str
    """The `Agent` value (`codex`, `claude`, `gemini`, `opencode`)."""
    label: str
    direction: Direction
    """The direction that writes this agent's bundle."""
    memory_kind: str
    """What smig reads from this agent, for the empty-memory note ("No …")."""

    def bundle_path(self, targets: SyncTargets) -> str:
        """The bundle smig owns for this agent ('' when the agent is not set up here)."""
        return {
            "codex": targets.codex_bundle,
            "claude": targets.claude_bundle,
            "gemini": targets.gemini_bundle,
            "opencode": targets.opencode_bundle,
        }[self.agent]

    def pointer_path(self, targets: SyncTargets) -> str:
        """The user's file smig appends its one line to: an index, rules or context file."""
        return {
            "codex": targets.codex_agents,
            "claude": targets.claude_index,
            "gemini": targets.gemini_memory,
            "opencode": targets.opencode_agents,
        }[self.agent]


MEMORY_AGENTS: tuple[MemoryAgent, ...] = (
    MemoryAgent(
        "claude",
        "Claude Code",
        Direction.TO_CLAUDE,
        "Claude Code memory files found under projects/*/memory/",
    ),
    MemoryAgent(
        "codex",
        "Codex",
        Direction.TO_CODEX,
        "Codex memory found (memories are off unless `[features] memories = true`)",
    ),
    MemoryAgent(
        "gemini",
        "Gemini CLI",
        Direction.TO_GEMINI,
        "Gemini CLI global context file (GEMINI.md)",
    ),
    MemoryAgent(
        "opencode",
        "OpenCode",
        Direction.TO_OPENCODE,
        "OpenCode global rules file (AGENTS.md)",
    ),
)
"""Every agent memory sync reads from and writes to (Claude first: the order reports keep)."""

ALL_DIRECTIONS: tuple[Direction, ...] = tuple(entry.direction for entry in MEMORY_AGENTS)


def memory_agent(key: str | Direction) -> MemoryAgent:
    """The entry of an agent, by its `Agent` value or by the direction that writes to it."""
    for entry in MEMORY_AGENTS:
        if key in (entry.agent, entry.direction):
            return entry
    raise KeyError(key)
