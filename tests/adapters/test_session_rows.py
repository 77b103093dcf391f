"""A session kept as rows of an agent's database (OpenCode, Kilo Code, Crush) is fingerprinted and
archived a row at a time (issue 35: `migrate` from a 500 MB one peaked at 929 MB, the fingerprint
holding every row beside the reader; `archive` at 1.8 GB, the rows' copy built in memory and then
serialized). The fingerprint must be the one the whole read gave, and the archived copy the bytes the
in-memory copy gave, on the recorded databases and generated ones; both must hold less than the rows."""

from __future__ import annotations

import hashlib
import sqlite3
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from crush_builders import generated_home as crush_generated_home
from crush_builders import install as install_crush
from kilo_builders import install_database as install_kilo
from opencode_builders import install_database as install_opencode

from smig_devtools.bench_agents import opencode_session
from smig_devtools.corpus import SessionEntry
from smig_devtools.crush_corpus import generate_crush
from smig_tui.adapters.agents.crush import database as crush_database
from smig_tui.adapters.agents.opencode import fingerprint as opencode_fingerprint

BIG = 4_000_000
"""A generated session's bytes of rows: big enough that holding them all shows, small enough to be quick."""


def _opencode_whole(database: Path, session_id: str) -> Iterator[bytes]:
    """OpenCode's rows as the fingerprint read them before: every message and every part first."""
    connection = sqlite3.connect(database)
    messages = connection.execute("SELECT id, data FROM message WHERE session_id = ? ORDER BY id", (session_id,))
    held = messages.fetchall()
    parts: dict[str, list[tuple[str, str]]] = {}
    for part_id, message_id, data in connection.execute(
        "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id", (session_id,)
    ):
        parts.setdefault(message_id, []).append((part_id, data))
    connection.close()
    for message_id, data in held:
        yield f"{message_id}\t{data}\n".encode("utf-8", "surrogatepass")
        for part_id, part in parts.get(message_id, ()):
            yield f"{part_id}\t{part}\n".encode("utf-8", "surrogatepass")


def _crush_whole(database: Path, session_id: str) -> Iterator[bytes]:
    """Crush's rows as the fingerprint read them before: all of them first."""
    connection = sqlite3.connect(database)
    rows = connection.execute(
        "SELECT id, role, parts FROM messages WHERE session_id = ? ORDER BY created_at, rowid", (session_id,)
    ).fetchall()
    connection.close()
    for message_id, role, parts in rows:
        yield f"{message_id}\t{role}\t{parts}\n".encode("utf-8", "surrogatepass")


def _digest(chunks: Iterator[bytes]) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    for chunk in chunks:
        digest.update(chunk)
        size += len(chunk)
    return digest.hexdigest(), size


def _sessions(database: Path, table: str) -> list[str]:
    """The database's session ids, the main one first (a Crush title session's id is longer)."""
    connection = sqlite3.connect(database)
    ids = [row[0] for row in connection.execute(f"SELECT id FROM {table} ORDER BY length(id), id")]
    connection.close()
    return ids


def _opencode_databases(root: Path) -> list[Path]:
    """The recorded OpenCode and Kilo Code databases, and a generated big one (last)."""
    generated = root / "big" / "opencode.db"
    generated.parent.mkdir(parents=True)
    opencode_session(str(generated), BIG)
    return [install_opencode(root / "opencode"), install_kilo(root / "kilo" / "kilo.db"), generated]


def _crush_databases(root: Path) -> list[Path]:
    """The Crush fixtures, the generator's small home, and one big session (last)."""
    install_crush(root / "fixtures")
    crush_generated_home(root / "generated")
    big = SessionEntry("claude", "main", "big", "", str(root / "big" / "work"), prompt="task", size=BIG)
    Path(big.cwd).mkdir(parents=True)
    generate_crush(root / "big" / "crush", [big])
    return sorted(root.rglob("crush.db"), key=lambda path: Path(big.cwd) in path.parents)


FINGERPRINTS: dict[str, tuple[Callable[[Path], list[Path]], str, Any, Callable[..., Iterator[bytes]]]] = {
    "opencode": (_opencode_databases, "session", opencode_fingerprint.session_fingerprint, _opencode_whole),
    "crush": (_crush_databases, "sessions", crush_database.session_fingerprint, _crush_whole),
}


@pytest.mark.parametrize("agent", sorted(FINGERPRINTS))
def test_a_database_sessions_fingerprint_is_the_whole_reads_and_holds_one_row(agent: str, tmp_path: Path) -> None:
    make, table, fingerprint, whole = FINGERPRINTS[agent]
    databases = make(tmp_path)
    checked = 0
    for database in databases:
        for session_id in _sessions(database, table):
            sha256, size, _ = fingerprint(database, session_id)
            assert (sha256, size) == _digest(whole(database, session_id)), (database, session_id)
            checked += 1
    assert checked >= 4
    biggest = databases[-1]
    session_id = _sessions(biggest, table)[0]
    tracemalloc.start()
    try:
        _, size, _ = fingerprint(biggest, session_id)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert size > BIG * 0.9
    assert peak < 0.05 * size, (peak, size)  # the rows were held whole: more than `size`
