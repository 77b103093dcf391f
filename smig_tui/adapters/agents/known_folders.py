"""Provides the project folders smig knows without walking the disk, for agents that keep sessions in them.

An agent whose sessions (or the settings saying where they are) live in project folders has no one
home to list. The folders to look in are the ones smig already knows: where the other agents'
sessions ran (`session_folders`), the folders smig wrote a session for (a small record per agent in
smig's data folder, `remember`), and the current folder with its parents up to the home folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from smig_tui.adapters.agents.session_folders import session_folders
from smig_tui.adapters.fs import atomic_write, file_lock

RAN_IN = "session-folders.json"
"""What the listing caches said of where sessions ran, by each cache's size and mtime: one record for
every reader that asks, so a changed cache is parsed once, not once per asking agent."""


def ran_in(cache_dir: Path) -> set[str]:
    """The folders the sessions of every agent's last listing ran in (`session_folders`)."""
    return session_folders(cache_dir, cache_dir / RAN_IN, "")


def remembered(data_dir: Path, record: str) -> list[str]:
    """The folders in the record `record` of smig's data folder (none when it is missing or damaged)."""
    try:
        data = json.loads((data_dir / record).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    folders = data.get("folders") if isinstance(data, dict) else None
    return [folder for folder in folders if isinstance(folder, str)] if isinstance(folders, list) else []


def remember(data_dir: Path, record: str, folder: str, what: str) -> None:
    """Add `folder` to the record `record` (atomic, locked; `what` names the record in a lock error)."""
    with file_lock(data_dir / f".{record}.lock", timeout=5.0, what=what):
        folders = remembered(data_dir, record)
        if folder in folders:
            return
        atomic_write(data_dir / record, json.dumps({"folders": [*folders, folder]}, indent=1), mode=0o600)


def here_to(home: Path) -> list[Path]:
    """The current folder and its parents up to the home folder, when it is inside it (a folder outside
    the home is looked in when another agent ran there or smig wrote there)."""
    try:
        here = Path.cwd()
    except OSError:
        return []
    if here != home and home not in here.parents:
        return []
    return [here, *[parent for parent in here.parents if parent == home or home in parent.parents]]
