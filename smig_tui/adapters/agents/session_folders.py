"""Provides the project folders the agents' sessions ran in, as their listings last found them.

An agent that keeps its sessions in the project folders themselves (Aider's chat history) has no
home to list: the folders where the user ran any agent are where to look. Every reader keeps its
listing in `listing-<agent>.json`: a `DiscoveryCache` has each entry with the session's `cwd`, and a
reader of database rows (OpenCode's, Crush's) names its sessions' folders in the file's `folders`; this
reads those files, whoever wrote them, so no agent names another. What it learnt from each file is
kept in `known`, keyed by the file's size and mtime, so an unchanged listing costs one `stat`.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from smig_tui.adapters.fs import atomic_write

VERSION = 2


def session_folders(cache_dir: Path, known: Path, skip: str) -> set[str]:
    """The `cwd` of every session in the listing caches of `cache_dir` (but the agent `skip`'s own)."""
    try:
        names = sorted(name for name in os.listdir(cache_dir) if name.startswith("listing-") and name.endswith(".json"))
    except OSError:
        return set()
    old = _load(known)
    seen: dict[str, Any] = {}
    folders: set[str] = set()
    for name in names:
        if name == f"listing-{skip}.json":
            continue
        path = cache_dir / name
        try:
            stat = path.stat()
        except OSError:
            continue
        key = [stat.st_size, stat.st_mtime_ns]
        row = old.get(name)
        if isinstance(row, dict) and row.get("key") == key and isinstance(row.get("folders"), list):
            found = [folder for folder in row["folders"] if isinstance(folder, str)]
        else:
            found = _cwds(path)
        seen[name] = {"key": key, "folders": found}
        folders.update(found)
    if seen != old:
        with contextlib.suppress(OSError):  # only a lost speed-up
            atomic_write(known, json.dumps({"v": VERSION, "files": seen}, separators=(",", ":")))
    return folders


def _cwds(path: Path) -> list[str]:
    """The distinct `cwd` values of one listing cache (none when it is damaged)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    files = data.get("files") if isinstance(data, dict) else None
    rows = files.values() if isinstance(files, dict) else ()
    cwds = [row["info"].get("cwd") for row in rows if isinstance(row, dict) and isinstance(row.get("info"), dict)]
    named = data.get("folders") if isinstance(data, dict) else None  # a reader of database rows names them so
    cwds += named if isinstance(named, list) else []
    return sorted({cwd for cwd in cwds if isinstance(cwd, str) and os.path.isabs(cwd) and "\x00" not in cwd})


def _load(known: Path) -> dict[str, Any]:
    try:
        data = json.loads(known.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    ok = isinstance(data, dict) and data.get("v") == VERSION and isinstance(data.get("files"), dict)
    return data["files"] if ok else {}
