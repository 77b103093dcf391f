"""Provides where Crush keeps its files: one database per project, found through its list of projects.

Crush (read from its source, docs/formats/crush.md) keeps each project's sessions in
`<project>/.crush/crush.db` (the data folder `-D` or `options.data_directory` can move), and records
every project it opened in `projects.json` beside its global data file: `$CRUSH_GLOBAL_DATA`, else
`$XDG_DATA_HOME/crush`, else `~/.local/share/crush`. smig reads that list rather than walk the disk.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from smig_tui.adapters.agents.profile import Env, environment, user_home

if TYPE_CHECKING:
    from smig_tui.core.ports import Watched

DATA_VARIABLE = "CRUSH_GLOBAL_DATA"
XDG_VARIABLE = "XDG_DATA_HOME"
DATABASE_FILE = "crush.db"
PROJECTS_FILE = "projects.json"
REF_SEPARATOR = "#"
"""Joins a database path and a session id into the one `SessionInfo.path` a session has."""
_OTHER_REF = re.compile(r"ses_")
"""The ids of OpenCode's database sessions, which share the `<database>#<id>` shape: never Crush's
(Crush's are UUIDs, `title-<id>` and a sub-agent's `<message id>$$<tool call id>`)."""


def global_data(env: Env = None) -> Path:
    """Crush's global data folder, as the client works it out."""
    values = environment(env)
    if values.get(DATA_VARIABLE):
        return Path(values[DATA_VARIABLE]).expanduser()
    if values.get(XDG_VARIABLE):
        return Path(values[XDG_VARIABLE]) / "crush"
    return user_home(env) / ".local" / "share" / "crush"


def projects_file(env: Env = None) -> Path:
    """The list of projects Crush has opened."""
    return global_data(env) / PROJECTS_FILE


@dataclass(frozen=True, slots=True)
class Project:
    """One project Crush opened: its folder and its database."""

    path: str
    database: Path


class ProjectsUnreadable(Exception):
    """`projects.json` is there but cannot be read; the message is one clause for a warning."""


def projects(env: Env = None) -> list[Project]:
    """Each database Crush's list names, once (the first project naming it), in the list's order
    (newest first); empty when Crush has never run here. ProjectsUnreadable when the list is damaged."""
    path = projects_file(env)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as error:
        raise ProjectsUnreadable(f"cannot read it ({error})") from error
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ProjectsUnreadable("it is not JSON") from error
    entries = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ProjectsUnreadable("it has no list of projects")
    found: dict[Path, Project] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) or not entry["path"]:
            continue
        folder = Path(entry["path"])
        data_dir = entry.get("data_dir")
        relative = Path(data_dir).expanduser() if isinstance(data_dir, str) and data_dir else Path(".crush")
        database = folder / relative / DATABASE_FILE
        found.setdefault(database, Project(str(folder), database))
    return list(found.values())


def watched(env: Env = None) -> list[Watched]:
    """What a listing reads: the list of projects, and each database it names with its write-ahead log
    (not its `-shm`, which readers touch); the list alone when it cannot be read."""
    from smig_tui.core.ports import Watched

    places = [Watched(str(projects_file(env)))]
    try:
        found = projects(env)
    except ProjectsUnreadable:
        return places
    for project in found:
        database = str(project.database)
        places += [Watched(database), Watched(database + "-wal")]
    return places


def session_ref(database: Path, session_id: str) -> str:
    """The `SessionInfo.path` of one session of a database."""
    return f"{database}{REF_SEPARATOR}{session_id}"


def split_ref(path: str) -> tuple[str, str] | None:
    """The database and session id of a `session_ref`, or None for anything else (a file path, or
    another agent's database reference)."""
    head, sep, tail = path.rpartition(REF_SEPARATOR)
    if not sep or not tail or not head.endswith(".db") or _OTHER_REF.match(tail):
        return None
    return head, tail
