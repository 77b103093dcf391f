"""Provides one OpenCode session's rows as a database of its own: what smig's archive keeps of it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from smig_tui.adapters.agents.opencode.database import OpenCodeDbError, read_only

SNAPSHOT_TABLES = ("session", "message", "part")


def session_snapshot(database: Path, session_id: str, name: str = "OpenCode") -> bytes:
    """One OpenCode session's rows as a database file of its own, read in one read transaction.

    The tables keep OpenCode's own definitions, so OpenCode's reader reads the copy as it reads
    the original; the source is opened read-only and never written.
    """
    with read_only(database, name=name) as source:
        source.execute("BEGIN")  # one snapshot: a session OpenCode writes meanwhile stays consistent
        try:
            definitions = dict(
                source.execute(
                    "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?)", SNAPSHOT_TABLES
                ).fetchall()
            )
            if set(definitions) != set(SNAPSHOT_TABLES):
                raise OpenCodeDbError(f"The {name} database {database} lacks the session tables.")
            copy = sqlite3.connect(":memory:")
            try:
                for table in SNAPSHOT_TABLES:
                    copy.execute(definitions[table])
                    column = "id" if table == "session" else "session_id"
                    cursor = source.execute(f"SELECT * FROM {table} WHERE {column} = ?", (session_id,))
                    marks = ", ".join("?" * len(cursor.description))
                    copy.executemany(f"INSERT INTO {table} VALUES ({marks})", cursor)
                copy.commit()
                return copy.serialize()
            finally:
                copy.close()
        finally:
            source.execute("ROLLBACK")
