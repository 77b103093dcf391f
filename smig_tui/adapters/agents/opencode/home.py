"""Provides where OpenCode keeps its sessions, with the overrides OpenCode itself honours.

OpenCode 1.18 keeps every session in one SQLite database, `$XDG_DATA_HOME/opencode/opencode.db`
(default `~/.local/share/opencode/opencode.db`); `OPENCODE_DB` names another file, absolute or
relative to that folder (as OpenCode 1.18.33 resolves it). Builds of other release channels than
latest/beta/prod keep `opencode-<channel>.db` instead; smig reads the released one. Installs from
before the database kept one JSON file per session, message and part under `storage/` beside it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from smig_tui.adapters.agents.opencode.variant import OPENCODE, Variant

if TYPE_CHECKING:
    from smig_tui.core.ports import Watched

REF_SEPARATOR = "#"
"""Joins the database path and a session id into the one `SessionInfo.path` a session has."""


@dataclass(frozen=True, slots=True)
class OpenCodeHome:
    """OpenCode's data folder and database file."""

    data_dir: Path
    database: Path
    variant: Variant = OPENCODE
    """Whose storage it is: OpenCode's, or a descendant's."""

    @property
    def storage(self) -> Path:
        """The legacy JSON tree (`storage/session/<project>/<id>.json`, `message/`, `part/`)."""
        return self.data_dir / "storage"


def resolve_home(env: Mapping[str, str] | None = None, variant: Variant = OPENCODE) -> OpenCodeHome:
    """Work out OpenCode's (or a descendant's) locations from the environment, as the client does."""
    env = os.environ if env is None else env
    xdg = env.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path(env.get("HOME") or Path.home()) / ".local" / "share"
    data_dir = base / variant.folder
    override = env.get(variant.database_env)
    database = Path(override).expanduser() if override else data_dir / variant.database_file
    if override and not database.is_absolute():
        database = data_dir / database
    return OpenCodeHome(data_dir, database, variant)


def watched(home: OpenCodeHome) -> list[Watched]:
    """What a listing reads: the database and its write-ahead log (where the client writes while it runs;
    not its `-shm`, which readers touch), and the legacy JSON tree where the variant has one."""
    from smig_tui.core.ports import Watched

    database = str(home.database)
    places = [Watched(database), Watched(database + "-wal")]
    return [*places, Watched(str(home.storage), tree=True)] if home.variant.legacy_tree else places


def session_ref(database: Path, session_id: str) -> str:
    """The `SessionInfo.path` of a session kept in the database: one string per session."""
    return f"{database}{REF_SEPARATOR}{session_id}"


def split_ref(path: str) -> tuple[str, str] | None:
    """The database path and session id of a `session_ref`, or None for a plain file path."""
    head, sep, tail = path.rpartition(REF_SEPARATOR)
    if not sep or not tail.startswith("ses_"):
        return None
    return head, tail
