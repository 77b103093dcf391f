"""Provides what the readers of one-file-per-session agents share: listing a folder, newest first, and
the one warning a file with damaged lines gets (Gemini CLI, Qwen Code, Copilot CLI, Pi, Aider)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from smig_tui.core.models import ReadWarning
from smig_tui.core.ports import WarningSink
from smig_tui.core.words import plural


def folder_entries(folder: Path, warn: WarningSink) -> list[Path]:
    """The entries of `folder`; a folder that cannot be listed is one warning and no entry."""
    try:
        return [Path(entry.path) for entry in os.scandir(folder)]
    except OSError as error:
        warn(ReadWarning(str(folder), None, f"skipped: cannot list it ({error.strerror or error})"))
        return []


def newest_first(path: Path) -> float:
    """A sort key: the most recently changed file first (a file gone meanwhile last)."""
    try:
        return -path.stat().st_mtime
    except OSError:
        return 0.0


def warn_damaged(path: Path, damaged: Sequence[int], warn: WarningSink) -> None:
    """One warning naming the first damaged lines of a session file that was otherwise read."""
    if damaged:
        lines = ", ".join(str(n) for n in damaged[:5]) + ("…" if len(damaged) > 5 else "")
        warn(
            ReadWarning(
                str(path),
                damaged[0],
                f"skipped {plural(len(damaged), 'damaged line')} ({lines}); the rest of the session is read",
            )
        )
