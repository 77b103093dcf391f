"""Provides Copilot CLI's part in memory sync: its global instructions, and a bundle it reads by itself.

Copilot CLI 1.0.102 puts its global instructions in every request, each in a `<custom_instruction>`
element: `~/.copilot/copilot-instructions.md` and every `~/.copilot/instructions/**/*.instructions.md`
(under `$COPILOT_HOME` when set; seen in its requests, docs/formats/copilot.md). Those files cross
to every other agent, and the bundle of the other agents' memory is one more such file smig owns,
`instructions/smig_memory.instructions.md`: the client reads it with no line in the user's files.
"""

from __future__ import annotations

import os
from pathlib import Path

from smig_tui.adapters.agents.copilot.home import resolve_home
from smig_tui.adapters.memory_files import MemoryContext, memory_file
from smig_tui.core.memory_model import (
    FOREIGN_GENERATED,
    AgentMemory,
    FileRole,
    MemoryFile,
    MemoryRules,
)
from smig_tui.core.memory_render import instructions_bundle, instructions_section

AGENT = "copilot"
GLOBAL_FILE = "copilot-instructions.md"
FOLDER = "instructions"
SUFFIX = ".instructions.md"
BUNDLE_NAME = "smig_memory.instructions.md"
"""In Copilot's global instructions folder, which it reads whole into every request."""
BUNDLE_MAX_BYTES = 32 * 1024
"""Copilot puts the bundle in every request: held to the budget Codex gives its instruction files."""
MAX_FILES = 200
"""Instruction files read at most (a folder holding more is not one a user keeps by hand)."""


def _instruction_files(folder: Path) -> list[Path]:
    """Every `*.instructions.md` under `folder`, in name order, smig's bundle left out."""
    found: list[Path] = []
    for root, folders, names in os.walk(folder):
        folders.sort()
        found += [Path(root) / name for name in sorted(names) if name.endswith(SUFFIX) and name != BUNDLE_NAME]
        if len(found) >= MAX_FILES:
            break
    return found[:MAX_FILES]


def read(context: MemoryContext) -> AgentMemory:
    """Copilot's global instructions and the bundle smig may write, when Copilot CLI is set up here."""
    home = resolve_home(context.env)
    if not home.is_dir():
        return AgentMemory(AGENT)
    paths = [home / GLOBAL_FILE, *_instruction_files(home / FOLDER)]
    files = tuple(found for path in paths if (found := memory_file(path, FileRole.INSTRUCTIONS, AGENT)) is not None)
    return AgentMemory(AGENT, files, bundle=str(home / FOLDER / BUNDLE_NAME))


def _sources(memory: AgentMemory) -> tuple[MemoryFile, ...]:
    """The user's instruction files as they are (smig adds no line to them), none a sync tool wrote."""
    return tuple(
        source
        for source in memory.files
        if source.text.strip() and not any(stamp in source.text for stamp in FOREIGN_GENERATED)
    )


RULES = MemoryRules(
    "Copilot CLI global instructions (copilot-instructions.md, instructions/*.instructions.md)",
    _sources,
    instructions_section,
    instructions_bundle,
    lambda memory: BUNDLE_MAX_BYTES,
    BUNDLE_MAX_BYTES,
    lambda memory: ("", ""),  # no pointer: Copilot reads every file of its instructions folder
)
