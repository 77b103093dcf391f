"""Provides Gemini CLI's part in memory sync: its global `GEMINI.md`, and the bundle it imports.

Gemini CLI keeps memory as one global instruction file (`~/.gemini/GEMINI.md`, where its
`save_memory` tool writes): it crosses whole (minus smig's own line) to every other agent. Gemini CLI
gets one bundle with the other agents' memory, inlined through an `@./smig_memory.md` import line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from smig_tui.adapters.agents.gemini.home import resolve_home
from smig_tui.adapters.memory_files import MemoryContext, memory_file, read_text
from smig_tui.core.memory_model import AgentMemory, FileRole, MemoryFile, MemoryInputs, MemoryRules, Mode
from smig_tui.core.memory_render import instruction_sections, instructions_head, joined
from smig_tui.core.memory_sync import instruction_sources

AGENT = "gemini"
BUNDLE_NAME = "smig_memory.md"
"""Beside Gemini CLI's global `GEMINI.md`, which imports it with an `@./smig_memory.md` line."""
BUNDLE_MAX_BYTES = 32 * 1024
"""Gemini CLI inlines its import into every request: held to the budget Codex gives its instruction files."""


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


def import_line() -> str:
    """The line smig adds to Gemini CLI's global `GEMINI.md`: an import Gemini inlines."""
    return f"@./{BUNDLE_NAME}"


_IMPORT = re.compile(r"(^|[ \t\r\n])@(?=[./A-Za-z])")
"""Where Gemini CLI sees an import: `@` at a line start or after a space, then `.`, `/` or a letter."""


def without_imports(text: str) -> str:
    """Keep Gemini CLI from reading `@path` in carried memory as an import (which would inline that file
    into every request, or swap the words for an "Import failed" comment): a zero-width space goes
    before each such `@`, so it reads the same and no longer follows whitespace."""
    return _IMPORT.sub(lambda match: f"{match.group(1)}\u200b@", text)


def _sources(memory: AgentMemory) -> tuple[MemoryFile, ...]:
    return instruction_sources(memory.files, import_line())


def _section(
    _inputs: MemoryInputs, files: Sequence[MemoryFile], mode: Mode, _folders: bool, _headed: bool
) -> list[str]:
    return instruction_sections(files, mode)


def _render(
    _inputs: MemoryInputs,
    _sources: Sequence[MemoryFile],
    _mode: Mode,
    _folders: bool,
    sections: Callable[..., list[str]],
) -> str:
    """The bundle Gemini CLI imports: every other agent's memory."""
    return joined(instructions_head() + sections())


RULES = MemoryRules(
    "Gemini CLI global context file (GEMINI.md)",
    _sources,
    _section,
    _render,
    lambda memory: BUNDLE_MAX_BYTES,
    BUNDLE_MAX_BYTES,
    lambda memory: (import_line(), import_line()),
    escape=without_imports,
)
