"""Provides the fingerprint of one OpenCode session, the database's stand-in for a file's sha256.

A migration pins its source by hash and size so a later change can be noticed. An OpenCode session
is rows in a shared database, so the hash runs over its rows in order (each message, then its
parts), read-only. Rows only ever get appended as a session goes on, so a session that only grew
still hashes to the recorded value over its first `size` bytes, as an appended-to file does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from smig_tui.adapters.agents.opencode.database import OpenCodeDbError, read_only
from smig_tui.adapters.session_rows import digest_of, status_of
from smig_tui.adapters.source_check import MISSING
from smig_tui.core.errors import SessionReadError


def _chunks(database: Path, session_id: str, name: str) -> Iterator[bytes]:
    """The session's rows as bytes, in a stable order (each message by id, then its parts by id); nothing
    when the session is gone. Read as they are hashed, in one read transaction: each message's parts come
    from OpenCode's index on (message_id, id), so no more than one row is held (all of them were, 570 MB
    of a 500 MB session, while `migrate` read the session beside it). A database without such an index
    has its parts grouped first, as before: a query per message would scan the session's parts each time."""
    with read_only(database, name=name) as connection:
        connection.execute("BEGIN")  # one snapshot: a session the client writes meanwhile stays consistent
        try:
            grouped = None if _parts_indexed(connection) else _parts_by_message(connection, session_id)
            parts = connection.cursor()
            for message_id, data in connection.execute(
                "SELECT id, data FROM message WHERE session_id = ? ORDER BY id", (session_id,)
            ):
                yield f"{message_id}\t{data}\n".encode("utf-8", "surrogatepass")
                rows = (
                    parts.execute(
                        "SELECT id, data FROM part WHERE message_id = ? AND session_id = ? ORDER BY id",
                        (message_id, session_id),
                    )
                    if grouped is None
                    else grouped.get(message_id, ())
                )
                for part_id, part in rows:
                    yield f"{part_id}\t{part}\n".encode("utf-8", "surrogatepass")
        finally:
            connection.execute("ROLLBACK")


def _parts_indexed(connection: sqlite3.Connection) -> bool:
    """Whether the `part` table has an index led by `message_id` (OpenCode creates `part_message_id_id_idx`)."""
    for row in connection.execute("PRAGMA index_list(part)").fetchall():
        quoted = '"' + str(row[1]).replace('"', '""') + '"'
        if [column[2] for column in connection.execute(f"PRAGMA index_info({quoted})")][:1] == ["message_id"]:
            return True
    return False


def _parts_by_message(connection: sqlite3.Connection, session_id: str) -> dict[str, list[tuple[str, str]]]:
    """Every part of the session by its message, each message's by id."""
    parts: dict[str, list[tuple[str, str]]] = {}
    for part_id, message_id, data in connection.execute(
        "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id", (session_id,)
    ):
        parts.setdefault(message_id, []).append((part_id, data))
    return parts


def session_fingerprint(database: Path, session_id: str, name: str = "OpenCode") -> tuple[str, int, float]:
    """sha256 and size of the session's rows, and the database's mtime (`name`: whose database it is)."""
    try:
        sha256, size = digest_of(_chunks(database, session_id, name))
        mtime = database.stat().st_mtime
    except (OpenCodeDbError, OSError) as error:
        raise SessionReadError(f"Cannot read the source {name} session {session_id} ({error}).") from error
    return sha256, size, mtime


def session_status(database: Path, session_id: str, sha256: str, size: int, name: str = "OpenCode") -> str:
    """Whether the session is `unchanged`, only `grown`, `changed` or `missing` since it was pinned."""
    try:
        return status_of(_chunks(database, session_id, name), sha256, size)
    except (OpenCodeDbError, OSError):
        return MISSING
