"""Provides the reads of memory sync: one memory file, or any file's text, never following a pipe or device.

Each agent's plugin reads its own memory with these (`adapters/agents/<agent>/memory.py`).
"""

from __future__ import annotations

import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from smig_tui.core.errors import SmigError
from smig_tui.core.memory_model import FileRole, MemoryFile

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Only this much of a memory file is read: past it a bundle falls back to an index anyway."""


@dataclass(frozen=True, slots=True)
class MemoryContext:
    """What an agent's memory reader is given: the environment, the user's home, the `--project` asked for."""

    env: Mapping[str, str]
    home: Path
    project: str | None = None


def read_text(path: Path, limit: int = -1) -> str | None:
    """A file's text (its first `limit` bytes), None when absent; bad bytes are replaced."""
    try:
        kind = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise SmigError(f"Cannot read {path}: {error.strerror or error}.") from error
    if not stat.S_ISREG(kind) and not stat.S_ISDIR(kind):
        # A pipe or device would block the read or be written over: never smig's to touch.
        raise SmigError(f"Not reading {path}: it is not a regular file.")
    try:
        with path.open("rb") as handle:
            raw = handle.read(limit)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except IsADirectoryError as error:
        raise SmigError(f"Expected a file but found a folder at {path}.") from error
    except OSError as error:
        raise SmigError(f"Cannot read {path}: {error.strerror or error}.") from error
    return raw.decode("utf-8", errors="replace")


def memory_file(
    path: Path, role: FileRole, agent: str, project: str | None = None, home: bool = False
) -> MemoryFile | None:
    """Read one memory file (None when absent); raw notes only cross as a path, so only a head."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    text = read_text(path, 4096 if role is FileRole.RAW else MAX_FILE_BYTES)
    if text is None:
        return None
    return MemoryFile(str(path), role, text, size, project, home, agent)
