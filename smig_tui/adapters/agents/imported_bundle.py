"""Provides memory sync's rules for an agent that imports its bundle: Gemini CLI, and Qwen Code (its fork).

Such an agent keeps memory as global instruction files that cross whole (minus smig's own line) to
every other agent, and gets one bundle with the other agents' memory beside them (`smig_memory.md`),
inlined through an `@./smig_memory.md` import line in its global context file, which the client
reads into every request.
"""

from __future__ import annotations

import re

from smig_tui.core.memory_model import AgentMemory, MemoryFile, MemoryRules
from smig_tui.core.memory_render import instructions_bundle, instructions_section
from smig_tui.core.memory_sync import instruction_sources

BUNDLE_NAME = "smig_memory.md"
"""Beside the agent's global context file, which imports it with an `@./smig_memory.md` line."""
BUNDLE_MAX_BYTES = 32 * 1024
"""The client inlines its import into every request: held to the budget Codex gives its instruction files."""


def import_line() -> str:
    """The line smig adds to the agent's global context file: an import it inlines."""
    return f"@./{BUNDLE_NAME}"


_IMPORT = re.compile(r"(^|[ \t\r\n])@(?=[./A-Za-z])")
"""Where these clients see an import: `@` at a line start or after a space, then `.`, `/` or a letter."""


def without_imports(text: str) -> str:
    """Keep the client from reading `@path` in carried memory as an import (which would inline that file
    into every request, or swap the words for an "Import failed" comment): a zero-width space goes
    before each such `@`, so it reads the same and no longer follows whitespace."""
    return _IMPORT.sub(lambda match: f"{match.group(1)}\u200b@", text)


def _sources(memory: AgentMemory) -> tuple[MemoryFile, ...]:
    return instruction_sources(memory.files, import_line())


def imported_bundle_rules(memory_kind: str) -> MemoryRules:
    """The rules of an agent that takes its bundle through an import line in its global context file."""
    return MemoryRules(
        memory_kind,
        _sources,
        instructions_section,
        instructions_bundle,
        lambda memory: BUNDLE_MAX_BYTES,
        BUNDLE_MAX_BYTES,
        lambda memory: (import_line(), import_line()),
        escape=without_imports,
    )
