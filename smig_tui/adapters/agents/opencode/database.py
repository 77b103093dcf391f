"""Provides read-only access to OpenCode's SQLite database that never blocks OpenCode.

The database runs in WAL mode while OpenCode works. smig opens it through a `mode=ro` URI with
`query_only` on, so it cannot write, take a write lock or checkpoint the WAL (a read-only
connection never does), and a writer holding a transaction open does not stop it reading the last
committed state. When OpenCode is not running (no -wal or -shm file), the file is opened
`immutable`, so reading it creates nothing beside it. A database it cannot read (locked in another journal mode, corrupt, not a
database) raises `OpenCodeDbError` with one sentence; the source turns that into one ReadWarning.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from smig_tui.adapters.agents.profile import RowsUnreadable
from smig_tui.adapters.sqlite_read import read_only_uri

BUSY_TIMEOUT = 2.0
"""Seconds to wait for a lock before giving up: only a non-WAL writer can hold one against a reader."""


class OpenCodeDbError(RowsUnreadable):
    """The OpenCode database cannot be read just now; the message is one sentence for the user."""


def describe_error(path: Path, error: sqlite3.Error, name: str = "OpenCode") -> str:
    """One sentence saying why the database of the client `name` could not be read."""
    text = str(error)
    if "locked" in text or "busy" in text:
        return f"The {name} database {path} is locked by another program; its sessions are skipped for now."
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return f"The {name} database {path} is damaged ({text}); its sessions are skipped."
    return f"Cannot read the {name} database {path} ({text}); its sessions are skipped."


@contextlib.contextmanager
def read_only(path: Path, timeout: float = BUSY_TIMEOUT, name: str = "OpenCode") -> Iterator[sqlite3.Connection]:
    """A read-only connection to the database at `path` (of the client `name`); OpenCodeDbError when it
    cannot be used."""
    uri = read_only_uri(path)  # `immutable` when no client runs: reading creates no -wal or -shm
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=timeout, check_same_thread=False)
    except sqlite3.Error as error:
        raise OpenCodeDbError(describe_error(path, error, name)) from error
    try:
        connection.execute("PRAGMA query_only = ON")
        yield connection
    except sqlite3.Error as error:
        raise OpenCodeDbError(describe_error(path, error, name)) from error
    finally:
        connection.close()


def columns(connection: sqlite3.Connection, table: str) -> set[str]:
    """The column names of one table (empty when it does not exist): older schemas lack some."""
    return {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
