"""A session kept as rows of an agent's database (OpenCode, Kilo Code, Crush) is fingerprinted and
archived a row at a time (issue 35: `migrate` from a 500 MB one peaked at 929 MB, the fingerprint
holding every row beside the reader; `archive` at 1.8 GB, the rows' copy built in memory and then
serialized). The fingerprint must be the one the whole read gave, and the archived copy the bytes the
in-memory copy gave, on the recorded databases and generated ones; both must hold less than the rows."""

from __future__ import annotations

import atexit
import functools
import hashlib
import shutil
import sqlite3
import tempfile
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runner import smig
from crush_builders import generated_home as crush_generated_home
from crush_builders import install as install_crush
from kilo_builders import install_database as install_kilo
from opencode_builders import install_database as install_opencode

from smig_devtools.bench_agents import opencode_session
from smig_devtools.corpus import SessionEntry
from smig_devtools.crush_corpus import generate_crush
from smig_tui.adapters.agents.crush import database as crush_database
from smig_tui.adapters.agents.opencode import fingerprint as opencode_fingerprint
from smig_tui.adapters.agents.opencode import snapshot as opencode_snapshot
from smig_tui.adapters.agents.opencode.database import OpenCodeDbError
from smig_tui.adapters.agents.opencode.snapshot import SNAPSHOT_TABLES as OPENCODE_TABLES
from smig_tui.adapters.agents.registry import row_ref
from smig_tui.adapters.archive import PIECE, Archive
from smig_tui.adapters.paths import resolve_paths
from smig_tui.adapters.session_rows import rows_snapshot
from smig_tui.adapters.zstd_files import compress
from smig_tui.core.errors import SmigError
from smig_tui.core.models import ReadWarning
from smig_tui.services import build_services, session_archive

BIG = 8_000_000
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


@functools.cache
def _generated(kind: str) -> Path:
    """The generated big OpenCode database, or the folder of the big Crush session, made once a process
    (in a temp folder of its own, removed at exit); the tests copy it."""
    root = Path(tempfile.mkdtemp(prefix=f"smig-rows-{kind}-"))
    atexit.register(shutil.rmtree, root, True)
    if kind == "opencode":
        opencode_session(str(root / "opencode.db"), BIG)
        return root / "opencode.db"
    big = SessionEntry("claude", "main", "big", "", str(root / "work"), prompt="task", size=BIG)
    Path(big.cwd).mkdir(parents=True)
    generate_crush(root / "crush", [big])
    return root


def _opencode_databases(root: Path) -> list[Path]:
    """The recorded OpenCode and Kilo Code databases, and a generated big one (last)."""
    generated = root / "big" / "opencode.db"
    generated.parent.mkdir(parents=True)
    shutil.copyfile(_generated("opencode"), generated)
    return [install_opencode(root / "opencode"), install_kilo(root / "kilo" / "kilo.db"), generated]


def _crush_databases(root: Path) -> list[Path]:
    """The Crush fixtures, the generator's small home, and one big session (last)."""
    install_crush(root / "fixtures")
    crush_generated_home(root / "generated")
    shutil.copytree(_generated("crush"), root / "big")
    return sorted(root.rglob("crush.db"), key=lambda path: root / "big" in path.parents)


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


def test_an_opencode_database_without_the_parts_index_is_fingerprinted_as_before(tmp_path: Path) -> None:
    """Parts read message by message need OpenCode's (message_id, id) index: without it they are grouped
    first, as the whole read did, rather than scanned once per message."""
    (database,) = [path for path in _opencode_databases(tmp_path) if path.parent.name == "big"]
    connection = sqlite3.connect(database)
    connection.execute("DROP INDEX part_message_id_id_idx")
    connection.commit()
    connection.close()
    for session_id in _sessions(database, "session"):
        sha256, size, _ = opencode_fingerprint.session_fingerprint(database, session_id)
        assert (sha256, size) == _digest(_opencode_whole(database, session_id)) and size > BIG * 0.9


def _in_memory_copy(database: Path, tables: tuple[tuple[str, str], ...], session_id: str) -> bytes:
    """One session's rows as the archive copied them before: a database built in memory, serialized."""
    source = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    copy = sqlite3.connect(":memory:")
    for table, column in tables:
        (definition,) = source.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
        copy.execute(definition)
        cursor = source.execute(f"SELECT * FROM {table} WHERE {column} = ? ORDER BY rowid", (session_id,))
        copy.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(cursor.description))})", cursor)
    copy.commit()
    data = copy.serialize()
    copy.close()
    source.close()
    return data


@pytest.fixture
def database_homes(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Path]]:
    """OpenCode (recorded and generated), Kilo Code (recorded) and Crush (fixtures) databases, smig pointed at them."""
    root = isolated_homes["home"] / "databases"
    opencode = _opencode_databases(root / "opencode")
    monkeypatch.setenv("OPENCODE_DB", str(opencode[-1]))
    monkeypatch.setenv("KILO_DB", str(opencode[1]))
    install_crush(root / "crush")
    monkeypatch.setenv("CRUSH_GLOBAL_DATA", str(root / "crush" / ".local" / "share" / "crush"))
    return {"opencode": [opencode[-1]], "kilo": [opencode[1]], "crush": sorted((root / "crush").rglob("crush.db"))}


def _rows_copies(archive: Archive) -> list[Path]:
    return sorted(archive.folder.glob(".rows-*"))


def test_a_database_session_is_archived_as_the_in_memory_copys_bytes_and_no_copy_remains(
    database_homes: dict[str, list[Path]],
) -> None:
    assert smig("archive", "--json")[0] == 0
    archive = session_archive(resolve_paths())
    archived = {path: entry for path, entry in archive.entries().items() if row_ref(path) is not None}
    assert {entry.agent for entry in archived.values()} == {"opencode", "kilo", "crush"}
    tables = {"opencode": OPENCODE_TABLES, "kilo": OPENCODE_TABLES, "crush": crush_database.SNAPSHOT_TABLES}
    for path, entry in archived.items():
        ref = row_ref(path)
        assert ref is not None
        expected = _in_memory_copy(ref.database, tables[entry.agent], ref.session_id)
        cut = [expected[start : start + PIECE] for start in range(0, len(expected), PIECE)]
        assert entry.pieces == [hashlib.sha256(piece).hexdigest() for piece in cut], path
        assert (entry.size, entry.sha256) == (len(expected), hashlib.sha256(expected).hexdigest())
        assert archive.content(entry) == expected
    assert len(archived) >= 8 and max(entry.size for entry in archived.values()) > 4 * PIECE
    assert _rows_copies(archive) == []


@pytest.mark.parametrize("error", [OpenCodeDbError("locked"), RuntimeError("stopped")], ids=["unreadable", "stopped"])
def test_a_snapshot_that_fails_midway_leaves_no_copy_and_nothing_archived(
    database_homes: dict[str, list[Path]], monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    made: list[Path] = []

    def half(source: sqlite3.Connection, tables: Any, session_id: str, target: Path) -> bool:
        made.append(target)
        rows_snapshot(source, tables[:2], session_id, target)  # the session and its messages, not its parts
        assert target.stat().st_size > 0
        raise error

    monkeypatch.setattr(opencode_snapshot, "rows_snapshot", half)
    archive = session_archive(resolve_paths())
    warnings: list[ReadWarning] = []
    sources = [source for source in build_services().sources if source.agent.value == "opencode"]
    if isinstance(error, RuntimeError):
        with pytest.raises(RuntimeError):
            archive.run(sources, warnings.append)
    else:
        run = archive.run(sources, warnings.append)
        assert run.touched == 0 and warnings and all("not archived: " in w.message for w in warnings)
    assert made and all(not path.exists() for path in made)
    assert made[0].parent == archive.folder  # smig's own storage, not beside the agent's database
    assert _rows_copies(archive) == [] and archive.entries() == {}


def test_a_copy_a_killed_run_left_is_deleted_by_the_next_run(database_homes: dict[str, list[Path]]) -> None:
    archive = session_archive(resolve_paths())
    archive.folder.mkdir(parents=True)
    (archive.folder / ".rows-killed.db").write_bytes(b"half a copy")
    assert smig("archive", "--json")[0] == 0
    assert _rows_copies(archive) == [] and archive.entries()


def test_archiving_a_database_session_holds_a_piece_not_the_copy(database_homes: dict[str, list[Path]]) -> None:
    (database,) = database_homes["opencode"]
    source = [source for source in build_services().sources if source.agent.value == "opencode"]
    archive = session_archive(resolve_paths())
    list(source[0].discover(lambda _w: None))  # the listing's own imports and caches, before tracing
    tracemalloc.start()
    try:
        run = archive.run(source, lambda _w: None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert run.new == 1 and run.bytes_read > 8 * PIECE
    assert peak < 0.4 * run.bytes_read, (peak, run.bytes_read)  # the copy was held whole, and serialized


def test_a_readable_copy_of_an_archived_session_is_written_a_piece_at_a_time_and_never_damaged(
    database_homes: dict[str, list[Path]], tmp_path: Path
) -> None:
    assert smig("archive", "--json")[0] == 0
    archive = session_archive(resolve_paths())
    entry = max(archive.entries().values(), key=lambda entry: entry.size)
    ref = row_ref(entry.path)
    assert ref is not None and entry.agent == "opencode" and entry.size > 8 * PIECE
    view = tmp_path / "view"
    small = min(archive.entries().values(), key=lambda entry: entry.size)
    archive.view(small, tmp_path / "warm")  # the modules a write imports, before tracing
    tracemalloc.start()
    try:
        copy = archive.view(entry, view)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert copy.read_bytes() == _in_memory_copy(ref.database, OPENCODE_TABLES, ref.session_id)
    assert peak < 5 * PIECE, (peak, entry.size)  # the whole copy was joined, then hashed: twice its size
    copy.unlink()
    last = archive.folder / "pieces" / entry.pieces[-1][:2] / f"{entry.pieces[-1]}.zst"
    last.write_bytes(compress(b"not the rows"))  # a whole frame, but not the bytes archived
    with pytest.raises(SmigError, match="does not match its checksum"):
        archive.view(entry, view)
    assert list(copy.parent.iterdir()) == []  # nothing half-written is left, nothing damaged is read
