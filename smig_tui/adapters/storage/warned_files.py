"""Provides the memory of warnings already shown, so one damaged file is reported once, not on every run.

A file discovery skips (an empty rollout, a folder that cannot be read) is skipped again on every
command, and its warning used to come back with it. Each warning is remembered with the file's
version (size and mtime_ns, as the listing cache keys files): while the file stays as it is, the
warning is not repeated; once it changes, or the problem does, it is reported again. `smig doctor`
lists every current problem whatever this memory holds.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from smig_tui.adapters.fs import atomic_write
from smig_tui.core.models import ReadWarning

MAX_FILES = 5_000
"""Files remembered at most; past it the oldest entries are forgotten (their warnings may show once more)."""


def file_version(path: str) -> list[int]:
    """The size and mtime_ns of `path` (of a symlink itself when it dangles); `[-1, -1]` when it is gone."""
    for stat in (os.stat, os.lstat):
        try:
            found = stat(path)
        except (OSError, ValueError):
            continue
        return [found.st_size, found.st_mtime_ns]
    return [-1, -1]


class WarnedFiles:
    """Which warnings were shown for which version of which file, kept in smig's cache folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._files: dict[str, Any] | None = None
        self._changed = False

    def first_time(self, warning: ReadWarning) -> bool:
        """True when `warning` was not shown for this version of its file before (and remember it now)."""
        files = self._load()
        version = file_version(warning.path)
        entry = files.get(warning.path)
        if isinstance(entry, dict) and entry.get("version") == version:
            shown = entry.setdefault("shown", [])
            if warning.message in shown:
                return False
            shown.append(warning.message)
        else:
            files.pop(warning.path, None)  # re-inserted last: the newest entries are kept longest
            files[warning.path] = {"version": version, "shown": [warning.message]}
        self._changed = True
        return True

    def save(self) -> None:
        """Write what changed; a failed write only means a warning may be shown once more."""
        if not self._changed or self._files is None:
            return
        files = self._files
        if len(files) > MAX_FILES:
            files = dict(list(files.items())[-MAX_FILES:])
        try:
            atomic_write(self.path, json.dumps({"v": 1, "files": files}, separators=(",", ":")))
        except OSError:
            return
        self._changed = False

    def _load(self) -> dict[str, Any]:
        if self._files is None:
            self._files = {}
            try:
                data = json.loads(self.path.read_text("utf-8"))
            except (OSError, ValueError):
                data = None
            if isinstance(data, dict) and data.get("v") == 1 and isinstance(data.get("files"), dict):
                self._files = data["files"]
        return self._files
