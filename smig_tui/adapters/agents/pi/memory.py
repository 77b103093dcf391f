"""Provides Pi's part in memory sync: its global context file, and the bundle it is pointed at.

Pi 0.73.1 puts one context file of its own folder in every system prompt (`~/.pi/agent/`: the first
of `AGENTS.md`, `AGENTS.MD`, `CLAUDE.md`, `CLAUDE.MD`), before the project's. That file crosses
whole (minus smig's line) to every other agent. Pi has no import syntax, so it gets one bundle
beside that file and a line in it naming the bundle, which its model opens with its `read` tool.
The line goes in the file Pi reads: creating an `AGENTS.md` beside a `CLAUDE.md` would hide it.
"""

from __future__ import annotations

from pathlib import Path

from smig_tui.adapters.agents.pi.home import agent_folder
from smig_tui.adapters.memory_files import MemoryContext, memory_file
from smig_tui.core.memory_model import AgentMemory, FileRole, MemoryFile, MemoryRules
from smig_tui.core.memory_render import instructions_bundle, instructions_section
from smig_tui.core.memory_sync import instruction_sources, pointer_line

AGENT = "pi"
CONTEXT_FILES = ("AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")
"""The names Pi takes its global context file by, in its order (`loadContextFileFromDir`)."""
BUNDLE_NAME = "smig_memory.md"
BUNDLE_MAX_BYTES = 32 * 1024
"""Pi's model reads the bundle on demand: held to the budget the other pointed-at bundles keep."""


def context_file(folder: Path) -> Path:
    """The context file Pi reads in `folder`: the first that exists, else where `AGENTS.md` would be."""
    names = _names(folder)
    return next((folder / name for name in CONTEXT_FILES if name in names), folder / CONTEXT_FILES[0])


def _names(folder: Path) -> set[str]:
    try:
        return {entry.name for entry in folder.iterdir()}
    except OSError:
        return set()


def read(context: MemoryContext) -> AgentMemory:
    """Pi's global context file and the two files smig may write, when Pi is set up here."""
    folder = agent_folder(context.env)
    if not folder.is_dir():
        return AgentMemory(AGENT)
    rules = context_file(folder)
    found = memory_file(rules, FileRole.INSTRUCTIONS, AGENT)
    return AgentMemory(
        AGENT, (found,) if found is not None else (), bundle=str(folder / BUNDLE_NAME), pointer=str(rules)
    )


def _sources(memory: AgentMemory) -> tuple[MemoryFile, ...]:
    return instruction_sources(memory.files, pointer_line(memory.bundle), memory.bundle)


RULES = MemoryRules(
    "Pi global context file (~/.pi/agent/AGENTS.md)",
    _sources,
    instructions_section,
    instructions_bundle,
    lambda memory: BUNDLE_MAX_BYTES,
    BUNDLE_MAX_BYTES,
    lambda memory: (memory.bundle, pointer_line(memory.bundle)),
)
