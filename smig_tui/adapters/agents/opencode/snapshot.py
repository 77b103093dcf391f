"""Provides one OpenCode session's rows as a database of its own: what smig's archive keeps of it."""

from __future__ import annotations

from pathlib import Path

from smig_tui.adapters.agents.opencode.database import OpenCodeDbError, read_only
from smig_tui.adapters.session_rows import rows_snapshot

SNAPSHOT_TABLES = (("session", "id"), ("message", "session_id"), ("part", "session_id"))


def session_snapshot(database: Path, session_id: str, target: Path, name: str = "OpenCode") -> None:
    """Write one OpenCode session's rows as a database file of its own at `target` (an empty file of
    smig's), read in one read transaction.

    The tables keep OpenCode's own definitions, so OpenCode's reader reads the copy as it reads
    the original; the source is opened read-only and never written.
    """
    with read_only(database, name=name) as source:
        made = rows_snapshot(source, SNAPSHOT_TABLES, session_id, target)
    if not made:
        raise OpenCodeDbError(f"The {name} database {database} lacks the session tables.")
