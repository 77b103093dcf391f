"""Provides Gemini CLI's part in memory sync: its global `GEMINI.md`, and the bundle it imports.

Gemini CLI keeps memory as one global instruction file (`~/.gemini/GEMINI.md`, where its
`save_memory` tool writes): it crosses whole (minus smig's own line) to every other agent. Gemini CLI
gets one bundle with the other agents' memory, inlined through an `@./smig_memory.md` import line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from smig_tui.adapters.agents.gemini.home import resolve_home
from smig_tui.adapters.agents.imported_bundle import BUNDLE_NAME, imported_bundle_rules
from smig_tui.adapters.memory_files import MemoryContext, memory_file, read_text
from smig_tui.core.memory_model import AgentMemory, FileRole, MemoryFile

AGENT = "gemini"


def context_names(home: Path) -> list[str]:
    """The context file names Gemini CLI loads: `context.fileName` (a name or a list), else GEMINI.md.

    Gemini's `save_memory` tool writes to the first, so smig's import line goes there too.
    """
    text = read_text(home / "settings.json")
    try:
        settings = json.loads(text) if text else {}
    except ValueError:
        settings = {}
    context = settings.get("context") if isinstance(settings, dict) else None
    names = context.get("fileName") if isinstance(context, dict) else None
    if isinstance(names, str):
        names = [names]
    chosen = [name for name in names or () if isinstance(name, str) and name and "/" not in name]
    return chosen or ["GEMINI.md"]


def read(context: MemoryContext) -> AgentMemory:
    """Gemini CLI's global context files and the two files smig may write, when Gemini is set up here."""
    home = resolve_home(context.env)
    if not home.is_dir():
        return AgentMemory(AGENT)
    names = context_names(home)
    return AgentMemory(AGENT, tuple(_files(home, names)), bundle=str(home / BUNDLE_NAME), pointer=str(home / names[0]))


def _files(home: Path, names: list[str]) -> Iterator[MemoryFile]:
    for name in names:
        found = memory_file(home / name, FileRole.INSTRUCTIONS, AGENT)
        if found is not None:
            yield found


RULES = imported_bundle_rules("Gemini CLI global context file (GEMINI.md)")
