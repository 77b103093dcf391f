"""Provides where Aider's chat histories are: in project folders, found without a walk of the disk.

Aider (0.86.2) keeps one `.aider.chat.history.md` per project, at the git root (else in the folder
it ran in), and smig writes its own `.aider.smig-<id>.chat.history.md` beside it. There is no home
to list, so smig looks in these folders (each, inside a git repository, with its parents up to the
git root):

- the folders the agents' sessions ran in (`known_folders.ran_in`, from their listing caches);
- the folders smig wrote an Aider history for (`aider-folders.json` in smig's data folder);
- `[agents.aider] folders = [...]` in smig's config (a folder, or a history file of another name);
- the current folder and its parents up to the home folder (when it is inside it).

Each is a `stat` or a directory listing of one folder, never a walk below it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents import known_folders
from smig_tui.adapters.agents.profile import Env, user_home

AGENT = "aider"
DEFAULT_NAME = ".aider.chat.history.md"
SMIG_PREFIX = ".aider.smig-"
SUFFIX = ".chat.history.md"
HISTORY_PREFIX = ".aider."
"""What the name of every history smig lists begins with (Aider's own and the ones smig writes)."""
REMEMBERED = "aider-folders.json"
"""The folders smig wrote an Aider history for, in its data folder."""
_ID_SPACE = "5f0f6a52-3a1e-4c52-9d7e-6a1d3c0a1de7"
"""The namespace of the ids of histories smig did not write (uuid5 of the path)."""


def written_name(session_id: str) -> str:
    """The file name of a history smig writes: `.aider.smig-<id>.chat.history.md` (Aider's `.aider*`
    ignore line covers it)."""
    return f"{SMIG_PREFIX}{session_id}{SUFFIX}"


def session_id_of(path: Path) -> str:
    """A history's id: the one in the name of a file smig wrote, else a stable id of its full path."""
    name = path.name
    if name.startswith(SMIG_PREFIX) and name.endswith(SUFFIX) and len(name) > len(SMIG_PREFIX) + len(SUFFIX):
        return name[len(SMIG_PREFIX) : -len(SUFFIX)]
    import uuid  # with `platform`, a few ms of every search that only checks the folders

    return str(uuid.uuid5(uuid.UUID(_ID_SPACE), os.path.abspath(path)))


def is_history_name(name: str) -> bool:
    """Whether a file name is an Aider chat history smig lists (Aider's own, or one smig wrote)."""
    return name == DEFAULT_NAME or (name.startswith(SMIG_PREFIX) and name.endswith(SUFFIX))


def configured(config: dict[str, Any], env: Env) -> list[Path]:
    """`[agents.aider] folders` of smig's config, `~` expanded; none when the config refuses them
    (`smig doctor` and the other readers of the table say why)."""
    if "agents" not in config:
        return []  # no table to check (the check's patterns compile on import)
    from smig_tui.core.config_schema import table_of
    from smig_tui.core.errors import ConfigError

    try:
        table = table_of(config, "agents", "config.toml").get(AGENT, {})
    except ConfigError:
        return []
    home = user_home(env)
    out = []
    for entry in table.get("folders", ()):
        text = entry.strip()
        if "\x00" not in text:
            out.append(home / text[2:] if text == "~" or text.startswith("~/") else Path(text))
    return out


def remembered(data_dir: Path) -> list[str]:
    """The folders smig wrote an Aider history for (none when the record is missing or damaged)."""
    return known_folders.remembered(data_dir, REMEMBERED)


def remember(data_dir: Path, folder: str) -> None:
    """Record a folder smig wrote an Aider history for, so it lists from anywhere (atomic, locked)."""
    known_folders.remember(data_dir, REMEMBERED, folder, "the list of Aider folders")


def upward(folder: Path, stop: Path) -> list[Path]:
    """A folder and, inside a git repository, its parents up to the git root (where Aider keeps the
    history of a repository whichever folder it ran in); none above `stop`, the user's home."""
    chain = []
    current = folder
    for _ in range(64):
        chain.append(current)
        if os.path.lexists(current / ".git"):
            return chain
        if current == stop or current.parent == current:
            break
        current = current.parent
    return chain[:1]  # no repository: Aider wrote in the folder it ran in


def candidate_folders(cache_dir: Path, data_dir: Path, extra: Iterable[Path], env: Env) -> list[Path]:
    """Every folder to look in, each once, in a stable order."""
    home = user_home(env)
    ran = known_folders.ran_in(cache_dir)
    starts: list[Path] = [Path(folder) for folder in sorted(ran)]
    starts += [Path(folder) for folder in remembered(data_dir)]
    starts += [path for path in extra if not path.is_file()]
    seen: set[Path] = set()
    out: list[Path] = []
    for start in starts:
        for folder in upward(start, home):
            if folder not in seen:
                seen.add(folder)
                out.append(folder)
    for folder in known_folders.here_to(home):
        if folder not in seen:
            seen.add(folder)
            out.append(folder)
    return out


def history_files(folders: Iterable[Path], extra_files: Iterable[Path]) -> Iterator[Path]:
    """The chat histories in these folders (one directory listing each), then the files named in config."""
    seen: set[str] = set()
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # gone, or not a folder: nothing of Aider's there
        for entry in entries:
            if is_history_name(entry.name) and entry.path not in seen:
                try:
                    regular = entry.is_file()
                except OSError:
                    continue
                if regular:
                    seen.add(entry.path)
                    yield Path(entry.path)
    for path in extra_files:
        if str(path) not in seen and path.is_file():
            seen.add(str(path))
            yield path
