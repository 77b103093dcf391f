"""Provides the one list of agents smig reads and writes: adding an agent is its package plus one line here.

Order matters: it is the order of the source tree, of listings, and of the commit dialog's choices.
"""

from __future__ import annotations

from smig_tui.adapters.agents import claude, codex, gemini, opencode
from smig_tui.adapters.agents.entry import AgentEntry

AGENTS: tuple[AgentEntry, ...] = (
    codex.ENTRY,
    claude.ENTRY,
    gemini.ENTRY,
    opencode.ENTRY,
)
