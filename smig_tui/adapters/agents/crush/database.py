"""Provides read-only access to one Crush database: its rows, a session's snapshot and its fingerprint.

A project's `crush.db` is in WAL mode while Crush runs (Crush holds `crush.lock` beside it). smig
opens it through a `mode=ro` URI with `query_only` on, so it never writes, never takes a write lock
and never checkpoints, and reads the last committed state while Crush writes; with no `-wal` or
`-shm` beside it (Crush is not running) it adds `immutable=1`, so reading creates nothing there.
A database that cannot be read raises `RowsUnreadable` with one sentence.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.profile import RowsUnreadable
from smig_tui.adapters.session_rows import digest_of, rows_snapshot, status_of
from smig_tui.adapters.source_check import MISSING
from smig_tui.adapters.sqlite_read import read_only_uri
from smig_tui.core.errors import SessionReadError

NAME = "Crush"
SNAPSHOT_TABLES = (("sessions", "id"), ("messages", "session_id"))
"""What a session is made of (the `files` and `read_files` tables hold no conversation)."""
MESSAGE_ORDER = "ORDER BY created_at, rowid"
"""Crush lists a session's messages by `created_at` (seconds), ties in the order they were written."""


BUSY_SECONDS = 2.0
"""How long to wait on a lock: only a writer outside WAL mode can hold one against a reader."""


@contextlib.contextmanager
def connect(database: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a Crush database; RowsUnreadable when it cannot be used."""
    uri = read_only_uri(database)  # `immutable` when Crush is not running: reading creates nothing
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, check_same_thread=False)
    except sqlite3.Error as error:
        raise RowsUnreadable(_why(database, error)) from error
    try:
        connection.execute("PRAGMA query_only = ON")
        yield connection
    except sqlite3.Error as error:
        raise RowsUnreadable(_why(database, error)) from error
    finally:
        connection.close()


def message_rows(connection: sqlite3.Connection, columns: str, session_id: str) -> Iterator[tuple[Any, ...]]:
    """`columns` of one session's message rows in Crush's order (`MESSAGE_ORDER`), read as they are used.

    Sorted by time, SQLite copied every row, parts and all, into a temporary B-tree: 0.22 s of the 1 s
    read of a 110 MB session. Crush writes a session's rows as they happen, so their order by time is
    almost always their rowids': that order is taken first without the parts (0.03 s), and when it is
    the rowids', the rows are read in it straight from the session's index. Both in one read
    transaction, so a row Crush adds in between cannot come out of order."""
    own = not connection.in_transaction
    if own:
        connection.execute("BEGIN")
    try:
        order = connection.execute(
            f"SELECT rowid FROM messages WHERE session_id = ? {MESSAGE_ORDER}", (session_id,)
        ).fetchall()
        ascending = all(before[0] < after[0] for before, after in pairwise(order))
        by = "ORDER BY rowid" if ascending else MESSAGE_ORDER
        del order
        yield from connection.execute(f"SELECT {columns} FROM messages WHERE session_id = ? {by}", (session_id,))
    finally:
        if own:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")


def _why(database: Path, error: sqlite3.Error) -> str:
    """One sentence saying why a Crush database could not be read."""
    text = str(error)
    if "locked" in text or "busy" in text:
        return f"The {NAME} database {database} is locked by another program; its sessions are skipped for now."
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return f"The {NAME} database {database} is damaged ({text}); its sessions are skipped."
    return f"Cannot read the {NAME} database {database} ({text}); its sessions are skipped."


def session_columns(connection: sqlite3.Connection) -> set[str]:
    """The `sessions` table's columns (empty when there is none): later versions add some."""
    return {str(row[1]) for row in connection.execute("PRAGMA table_info(sessions)")}


def session_snapshot(database: Path, session_id: str, target: Path) -> None:
    """Write one session's rows as a database file of its own at `target` (an empty file of smig's), read
    in one read transaction, with Crush's own table definitions (so the reader reads the copy as it reads
    the original)."""
    with connect(database) as source:
        made = rows_snapshot(source, SNAPSHOT_TABLES, session_id, target)
    if not made:
        raise RowsUnreadable(f"The {NAME} database {database} lacks the session tables.")


def _chunks(database: Path, session_id: str) -> Iterator[bytes]:
    """The session's message rows as bytes, in Crush's order; nothing when the session is gone. Read as
    they are hashed (all of them were held, the size of the session, while `migrate` read it beside)."""
    with connect(database) as connection:
        for message_id, role, parts in message_rows(connection, "id, role, parts", session_id):
            yield f"{message_id}\t{role}\t{parts}\n".encode("utf-8", "surrogatepass")


def session_fingerprint(database: Path, session_id: str) -> tuple[str, int, float]:
    """sha256 and size of the session's rows, and the database's mtime: what a commit pins."""
    try:
        sha256, size = digest_of(_chunks(database, session_id))
        mtime = database.stat().st_mtime
    except (RowsUnreadable, OSError) as error:
        raise SessionReadError(f"Cannot read the source {NAME} session {session_id} ({error}).") from error
    return sha256, size, mtime


def session_status(database: Path, session_id: str, sha256: str, size: int) -> str:
    """Whether the session is `unchanged`, only `grown`, `changed` or `missing` since it was pinned
    (Crush appends messages, so rows added after the pinned ones are growth)."""
    try:
        return status_of(_chunks(database, session_id), sha256, size)
    except (RowsUnreadable, OSError):
        return MISSING
