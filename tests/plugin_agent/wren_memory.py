"""Wren's part in memory sync: its memory is one global `notes.md`; smig's bundle sits beside it, named
by one line in `notes.md`."""

from __future__ import annotations

from plugin_agent import wren_home
from smig_tui.adapters.memory_files import MemoryContext, memory_file
from smig_tui.core.memory_model import AgentMemory, FileRole, MemoryRules
from smig_tui.core.memory_render import instructions_bundle, instructions_section
from smig_tui.core.memory_sync import instruction_sources

BUNDLE_NAME = "smig_memory.md"


def read(context: MemoryContext) -> AgentMemory:
    """Wren's notes and the two files smig may write, when Wren is set up here."""
    home = wren_home(context.env)
    if not home.is_dir():
        return AgentMemory("wren")
    notes = memory_file(home / "notes.md", FileRole.INSTRUCTIONS, "wren")
    return AgentMemory(
        "wren", (notes,) if notes else (), bundle=str(home / BUNDLE_NAME), pointer=str(home / "notes.md")
    )


def pointer_line(bundle: str) -> str:
    """The line smig adds to `notes.md`."""
    return f"- Also read {bundle}: memory from the user's other agents, synced by smig."


RULES = MemoryRules(
    "Wren notes (notes.md)",
    lambda memory: instruction_sources(memory.files, pointer_line(memory.bundle)),
    instructions_section,
    instructions_bundle,
    lambda memory: 16_000,
    16_000,
    lambda memory: (memory.bundle, pointer_line(memory.bundle)),
)
