"""Provides the URI smig opens another program's SQLite database with: read-only, creating nothing.

A read-only connection to a database in WAL mode creates its `-wal` and `-shm` files when they are
not there, and being read-only it never checkpoints, so it cannot remove them when it closes:
reading Codex's thread index while Codex was not running left an empty `state_5.sqlite-wal` and a
`-shm` in `~/.codex`. With neither file beside the database nothing is pending in a WAL, so the file
is opened `immutable`: read as it is, creating nothing (a writer that starts meanwhile writes to its
own WAL, not to this file). With them there (the client is running), a plain read-only connection
reads the last committed state through them.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote


def read_only_uri(path: Path) -> str:
    """The `file:` URI (for `sqlite3.connect(uri, uri=True)`) that reads the database at `path` without
    writing or creating anything beside it."""
    uri = f"file:{quote(str(path))}?mode=ro"
    return uri + "&immutable=1" if checkpointed_wal(path) else uri


def checkpointed_wal(path: Path) -> bool:
    """True for a database in WAL mode with no `-wal` or `-shm` file beside it (no writer is running)."""
    if Path(f"{path}-wal").exists() or Path(f"{path}-shm").exists():
        return False
    try:
        with open(path, "rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    # The header's write and read format versions are 2 in WAL mode.
    return header.startswith(b"SQLite format 3\0") and header[18:20] == b"\x02\x02"
