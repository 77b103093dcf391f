"""Provides what two agents share about project folders of JSON-lines sessions: the folder's name, the newest file.

Claude Code and Qwen Code both keep a project's sessions as `<id>.jsonl` in a folder named after
the project's path, and both continue the one modified last.
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def sanitize_project(cwd: str) -> str:
    """A project folder name as Claude Code and Qwen Code make it from `cwd`: every character but a letter
    or digit becomes `-` (Claude Code's long-name rule aside, FORMATS.md 2.1)."""
    return re.sub(r"[^a-zA-Z0-9]", "-", cwd)


def newest_transcript(project: Path) -> str | None:
    """The id of the most recently modified `<id>.jsonl` in a project folder: what "continue the latest"
    picks in the clients that go by file time (`claude -c`, `qwen -c`)."""
    newest: tuple[float, str] | None = None
    try:
        entries = list(os.scandir(project))
    except OSError:
        return None
    for entry in entries:
        if entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
            try:
                stamp = (entry.stat().st_mtime, entry.name[: -len(".jsonl")])
            except OSError:
                continue
            newest = max(newest, stamp) if newest else stamp
    return newest[1] if newest else None
