"""Provides what smig keeps of a session held as rows of an agent's SQLite database: a copy and a fingerprint.

Such a session (OpenCode's, Kilo's, Crush's) is no file of its own. The archive keeps its rows as a
database of their own (`rows_snapshot`, written to a temporary file in the archive's folder), and a
commit pins its source by a hash over its rows in a stable order (`digest_of`): rows are only appended
as a session goes on, so one that only grew still hashes to the pinned value over its first `size`
bytes, as an appended-to file does (`status_of`).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from smig_tui.adapters.source_check import CHANGED, GROWN, MISSING, UNCHANGED

UNSTAMPED = ((24, 4), (92, 8))
"""Header fields a database file stamps and an in-memory one leaves at zero (offset, length): the change
counter, and the version-valid-for number with the library's version. Zeroed, the file is byte for byte
what `serialize()` of the same copy built in memory gave, which the archive kept before."""


def rows_snapshot(source: sqlite3.Connection, tables: Sequence[tuple[str, str]], session_id: str, target: Path) -> bool:
    """Write one session's rows of `tables` ((table, the column holding the session id), in order) as a
    database file at `target` (an empty file of smig's own), read in one read transaction with the tables'
    own definitions; False when a table is missing.

    The copy is built in the file, a page cache at a time (it was built in memory and then serialized:
    twice the session's size, 1.8 GB for a 500 MB one). No journal: a copy left half-made is deleted by
    the caller, never read."""
    source.execute("BEGIN")  # one snapshot: a session the client writes meanwhile stays consistent
    try:
        names = [table for table, _ in tables]
        marks = ", ".join("?" * len(names))
        definitions = dict(
            source.execute(f"SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN ({marks})", names)
        )
        if set(definitions) != set(names):
            return False
        copy = sqlite3.connect(target, isolation_level=None)
        try:
            copy.execute("PRAGMA journal_mode = OFF")
            copy.execute("PRAGMA synchronous = OFF")
            copy.execute("BEGIN")
            for table, column in tables:
                copy.execute(definitions[table])
                cursor = source.execute(f"SELECT * FROM {table} WHERE {column} = ? ORDER BY rowid", (session_id,))
                values = ", ".join("?" * len(cursor.description))
                copy.executemany(f"INSERT INTO {table} VALUES ({values})", cursor)
            copy.execute("COMMIT")
        finally:
            copy.close()
    finally:
        source.execute("ROLLBACK")
    with open(target, "r+b") as handle:
        for offset, length in UNSTAMPED:
            handle.seek(offset)
            handle.write(bytes(length))
    return True


def digest_of(chunks: Iterable[bytes]) -> tuple[str, int]:
    """sha256 and size of a session's rows as bytes (errors reading them propagate)."""
    digest = hashlib.sha256()
    size = 0
    for chunk in chunks:
        digest.update(chunk)
        size += len(chunk)
    return digest.hexdigest(), size


def status_of(chunks: Iterable[bytes], sha256: str, size: int) -> str:
    """Whether the rows are `unchanged`, only `grown`, `changed` or `missing` (none) against a pinned
    hash and size (errors reading them propagate)."""
    digest = hashlib.sha256()
    seen = 0
    prefix: str | None = None
    for chunk in chunks:
        if seen < size:
            part = chunk[: size - seen]
            digest.update(part)
            if seen + len(part) == size:
                prefix = digest.hexdigest()
        seen += len(chunk)
    if seen == 0:
        return MISSING
    if prefix != sha256:
        return CHANGED
    return UNCHANGED if seen == size else GROWN
