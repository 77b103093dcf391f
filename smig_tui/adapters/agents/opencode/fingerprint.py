"""Provides the fingerprint of one OpenCode session, the database's stand-in for a file's sha256.

A migration pins its source by hash and size so a later change can be noticed. An OpenCode session
is rows in a shared database, so the hash runs over its rows in order (each message, then its
parts), read-only. Rows only ever get appended as a session goes on, so a session that only grew
still hashes to the recorded value over its first `size` bytes, as an appended-to file does.
"""

from __future__ import annotations

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
    of a 500 MB session, while `migrate` read the session beside it)."""
    with read_only(database, name=name) as connection:
        connection.execute("BEGIN")  # one snapshot: a session the client writes meanwhile stays consistent
        try:
            parts = connection.cursor()
            for message_id, data in connection.execute(
                "SELECT id, data FROM message WHERE session_id = ? ORDER BY id", (session_id,)
            ):
                yield f"{message_id}\t{data}\n".encode("utf-8", "surrogatepass")
                for part_id, part in parts.execute(
                    "SELECT id, data FROM part WHERE message_id = ? AND session_id = ? ORDER BY id",
                    (message_id, session_id),
                ):
                    yield f"{part_id}\t{part}\n".encode("utf-8", "surrogatepass")
        finally:
            connection.execute("ROLLBACK")


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
