"""Provides where Gemini CLI keeps its sessions, and which project folder a session belongs to.

Checked against Gemini CLI 0.61.0: its home is `$GEMINI_CLI_HOME/.gemini` (else `~/.gemini`); each
project has a folder under `tmp/` named by a short slug of the project folder's name (`my-repo`,
`my-repo-1`, …), recorded in `projects.json` (`{"projects": {path: slug}}`) and owned through a
`.project_root` file holding the project path. Older releases named the folder by the sha256 of
the path, which the client still migrates on start. Sessions are `tmp/<slug>/chats/session-*.jsonl`
(older: `.json`); a sub-agent's sit in `chats/<parent session id>/`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

PROJECT_ROOT_FILE = ".project_root"
REGISTRY_FILE = "projects.json"
SESSION_PREFIX = "session-"


def project_hash(cwd: str) -> str:
    """The `projectHash` Gemini CLI records in a session: the sha256 of the project path."""
    return hashlib.sha256(cwd.encode("utf-8")).hexdigest()


def normalize(path: str) -> str:
    """The project path as Gemini CLI keys it (Node's `path.resolve`: absolute, no symlink resolution)."""
    return os.path.normpath(os.path.abspath(path))


def read_registry(home: Path) -> dict[str, str]:
    """`projects.json` as {project path: slug}; empty when missing or unreadable (the client resets it then)."""
    try:
        data = json.loads((home / REGISTRY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {path: slug for path, slug in projects.items() if isinstance(path, str) and isinstance(slug, str)}


def read_owner(folder: Path) -> str | None:
    """The project path a project folder's `.project_root` names, if it has one."""
    try:
        owner = (folder / PROJECT_ROOT_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return owner or None


class ProjectFolders:
    """Maps the project folders under `tmp/` back to project paths, read once per listing."""

    def __init__(self, home: Path) -> None:
        self._registry = read_registry(home)
        self._by_slug = {slug: path for path, slug in self._registry.items()}
        self._by_hash = {project_hash(path): path for path in self._registry}

    def cwd_of(self, folder: Path, recorded_hash: str | None) -> str | None:
        """The project path of `tmp/<folder>`: its `.project_root`, else the registry by slug or hash."""
        owner = read_owner(folder)
        if owner:
            return owner
        name = folder.name
        return (
            self._by_slug.get(name)
            or self._by_hash.get(name)
            or (self._by_hash.get(recorded_hash) if recorded_hash else None)
        )


def slugify(name: str) -> str:
    """Gemini CLI's slug of a folder name: lower case, runs of other characters as one `-`."""
    slug = re.sub(r"-+", "-", re.sub(r"[^a-z0-9]", "-", name.lower())).strip("-")
    return slug or "project"


def chats_dir_for(home: Path, cwd: str) -> tuple[Path, bool]:
    """The `chats/` folder Gemini CLI will use for `cwd`, and whether its `.project_root` must be created.

    An existing folder is found the way the client finds it: the registry entry, else a folder whose
    `.project_root` names the path, else the folder an older release named by the path's hash. A project the client has never seen gets the slug it would
    claim (the first of `name`, `name-1`, … that no registry entry or folder holds); writing its
    `.project_root` is enough, since the client adopts a folder whose marker names the path.
    """
    cwd = normalize(cwd)
    tmp = home / "tmp"
    registry = read_registry(home)
    slug = registry.get(cwd)
    if slug and read_owner(tmp / slug) in (None, cwd):
        return tmp / slug / "chats", read_owner(tmp / slug) is None
    if tmp.is_dir():
        for folder in sorted(tmp.iterdir()):
            if folder.is_dir() and read_owner(folder) == cwd:
                return folder / "chats", False
    legacy = tmp / project_hash(cwd)
    if legacy.is_dir():
        # Sessions of a release that named folders by hash: the client copies this folder to the
        # project's slug folder on its next start, unless that folder already holds something.
        return legacy / "chats", False
    taken = set(registry.values())
    base = slugify(os.path.basename(cwd))
    counter = 0
    while True:
        candidate = base if counter == 0 else f"{base}-{counter}"
        counter += 1
        if candidate in taken or (tmp / candidate).exists() or (home / "history" / candidate).exists():
            continue
        return tmp / candidate / "chats", True
