"""Provides Qwen Code's part in memory sync: its global `QWEN.md`, and the bundle it imports.

Qwen Code (a Gemini CLI fork) keeps memory as global instruction files (`~/.qwen/QWEN.md`, and
`~/.qwen/AGENTS.md` beside it, both in every request) and inlines `@./file` imports as Gemini CLI
does: so it takes its bundle as Gemini CLI does (`imported_bundle`: an `@./smig_memory.md` line in
`QWEN.md`), and both files cross to every other agent.
"""

from __future__ import annotations

from smig_tui.adapters.agents.imported_bundle import BUNDLE_NAME, imported_bundle_rules
from smig_tui.adapters.agents.qwen.home import resolve_home
from smig_tui.adapters.memory_files import MemoryContext, memory_file
from smig_tui.core.memory_model import AgentMemory, FileRole

AGENT = "qwen"
CONTEXT_FILES = ("QWEN.md", "AGENTS.md")
"""The global files Qwen Code 0.24.4 puts in its system prompt; smig's import line goes in the first."""


def read(context: MemoryContext) -> AgentMemory:
    """Qwen Code's global context files and the two files smig may write, when Qwen Code is set up here."""
    home = resolve_home(context.env)
    if not home.is_dir():
        return AgentMemory(AGENT)
    files = tuple(
        found for name in CONTEXT_FILES if (found := memory_file(home / name, FileRole.INSTRUCTIONS, AGENT)) is not None
    )
    return AgentMemory(AGENT, files, bundle=str(home / BUNDLE_NAME), pointer=str(home / CONTEXT_FILES[0]))


RULES = imported_bundle_rules("Qwen Code global context file (QWEN.md)")
