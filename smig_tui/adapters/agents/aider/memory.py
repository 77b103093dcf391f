"""Provides Aider's part in memory sync: the files its global config reads, and the bundle it is pointed at.

Aider 0.86.2 loads `.aider.conf.yml` from the home folder, the git root and the current folder (the
later ones win, key by key) and sends every file its `read:` names to the model as read-only content,
in every request. Those files (smig's bundle left out) are Aider's memory to the other agents; the
bundle of theirs is `~/.aider.smig_memory.md`, named by one `read:` line in `~/.aider.conf.yml`
(the file created when there is none). A config that has a `read` key already is left alone: smig
writes no YAML but a line, and a second `read` key would replace the user's list.
"""

from __future__ import annotations

import re
from pathlib import Path

from smig_tui.adapters.agents.profile import user_home
from smig_tui.adapters.memory_files import MemoryContext, memory_file
from smig_tui.core.memory_model import FOREIGN_GENERATED, AgentMemory, FileRole, MemoryFile, MemoryRules
from smig_tui.core.memory_render import instructions_bundle, instructions_section

AGENT = "aider"
CONFIG_NAME = ".aider.conf.yml"
BUNDLE_NAME = ".aider.smig_memory.md"
"""In the home folder, beside the global config whose `read:` names it."""
BUNDLE_MAX_BYTES = 32 * 1024
"""Aider sends the bundle in every request: held to the budget Codex gives its instruction files."""
MAX_FILES = 50
"""Files of a `read:` list read at most."""
_READ_KEY = re.compile(r"""^(["']?)read\1\s*:(.*)$""")
"""A top-level `read` key (YAML keys at column 0), its value after the colon."""


def _plain(value: str) -> str:
    """A YAML scalar as written on one line: its comment cut, its quotes taken off."""
    value = value.strip()
    if value[:1] in "\"'" and len(value) > 1 and value.endswith(value[0]):
        return value[1:-1]
    return value.split(" #", 1)[0].strip()


def read_entries(text: str) -> list[str] | None:
    """What the config's `read` key names (a string, a `[a, b]` list, a `- a` block list), or None when it has
    no `read` key. Shapes past these (anchors, multi-line strings) give what could be read of them."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        found = _READ_KEY.match(line)
        if found is None:
            continue
        value = _plain(found.group(2))
        if value.startswith("[") and value.endswith("]"):
            return [entry for part in value[1:-1].split(",") if (entry := _plain(part))]
        if value:
            return [value]
        entries = []
        for item in lines[number + 1 :]:
            if item.strip() and not item[:1].isspace() and not item.startswith("-"):
                break
            stripped = item.strip()
            if stripped.startswith("- "):
                entries.append(_plain(stripped[2:]))
        return [entry for entry in entries if entry]
    return None


def _read_files(text: str, bundle: Path) -> list[Path]:
    """The files the config's `read:` names, as Aider finds them (`~` expanded), smig's bundle left out.
    A relative path depends on the folder Aider runs in, and a folder stands for every file under it:
    neither is one file smig could carry, so both are left out."""
    chosen: list[Path] = []
    for entry in read_entries(text) or []:
        path = Path(entry).expanduser()
        if path.is_absolute() and path != bundle and path.name != BUNDLE_NAME and path.is_file():
            chosen.append(path)
    return chosen[:MAX_FILES]


def read(context: MemoryContext) -> AgentMemory:
    """The files Aider's global config reads and the two files smig may write, when Aider is set up here
    (its `~/.aider` folder, which every run makes, or its global config)."""
    home = user_home(context.env)
    config = home / CONFIG_NAME
    if not (home / ".aider").is_dir() and not config.is_file():
        return AgentMemory(AGENT)
    bundle = home / BUNDLE_NAME
    found = memory_file(config, FileRole.INSTRUCTIONS, AGENT)
    paths = _read_files(found.text, bundle) if found is not None else []
    files = tuple(entry for path in paths if (entry := memory_file(path, FileRole.INSTRUCTIONS, AGENT)) is not None)
    return AgentMemory(AGENT, files, bundle=str(bundle), pointer=str(config))


def _sources(memory: AgentMemory) -> tuple[MemoryFile, ...]:
    """The files Aider's config reads, as they are (smig adds no line to them), none a sync tool wrote."""
    return tuple(
        source
        for source in memory.files
        if source.text.strip() and not any(stamp in source.text for stamp in FOREIGN_GENERATED)
    )


def _pointer(memory: AgentMemory) -> tuple[str, str]:
    """The bundle's name anywhere in the config means Aider reads it already (the user may list it as
    `~/.aider.smig_memory.md`); else the one line that makes it."""
    return BUNDLE_NAME, f"read: {memory.bundle}"


def _second_read_key(memory: AgentMemory, path: str, after: str) -> str:
    """A config that has a `read` key already would get a second one, which replaces the first: say instead
    what the user adds to their list."""
    if sum(1 for line in after.splitlines() if _READ_KEY.match(line)) < 2:
        return ""
    return (
        f"Not adding a line to {path}: it has a `read` key already, and smig does not rewrite YAML; "
        f"add {memory.bundle} to its `read` list for Aider to load the other agents' memory."
    )


RULES = MemoryRules(
    "Aider read-only files (read: in ~/.aider.conf.yml)",
    _sources,
    instructions_section,
    instructions_bundle,
    lambda memory: BUNDLE_MAX_BYTES,
    BUNDLE_MAX_BYTES,
    _pointer,
    unseen=_second_read_key,
)
