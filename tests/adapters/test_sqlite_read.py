"""Reading another program's SQLite database creates nothing beside it, and still sees what a running
writer has committed to its WAL (Codex's thread index, read while listing)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from smig_tui.adapters.agents.codex.scan import read_state_db
from smig_tui.adapters.sqlite_read import checkpointed_wal, read_only_uri


def thread_index(folder: Path) -> Path:
    """A Codex-like `state_5.sqlite` in WAL mode with one thread, its writer closed (Codex not running)."""
    folder.mkdir()
    path = folder / "state_5.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT, model TEXT)")
        connection.execute("INSERT INTO threads VALUES ('t-1', 'first', 'gpt-5')")
    connection.close()
    return path


def test_reading_a_closed_wal_database_leaves_its_folder_as_it_was(tmp_path: Path) -> None:
    path = thread_index(tmp_path / "codex")
    assert os.listdir(path.parent) == ["state_5.sqlite"] and checkpointed_wal(path)
    before = path.read_bytes()
    threads = read_state_db(path, lambda warning: None)
    assert threads["t-1"].title == "first"
    assert os.listdir(path.parent) == ["state_5.sqlite"]  # no -wal or -shm left in the client's folder
    assert path.read_bytes() == before


def test_a_running_writers_committed_rows_are_read_through_its_wal(tmp_path: Path) -> None:
    path = thread_index(tmp_path / "codex")
    writer = sqlite3.connect(path)
    try:
        writer.execute("PRAGMA wal_autocheckpoint = 0")  # the new row stays in the WAL, as while Codex runs
        writer.execute("INSERT INTO threads VALUES ('t-2', 'second', 'gpt-5')")
        writer.commit()
        assert not checkpointed_wal(path) and "immutable" not in read_only_uri(path)
        assert set(read_state_db(path, lambda warning: None)) == {"t-1", "t-2"}
    finally:
        writer.close()


def test_a_database_in_another_journal_mode_is_read_plainly(tmp_path: Path) -> None:
    path = tmp_path / "plain.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (x)")
    connection.close()
    assert not checkpointed_wal(path) and read_only_uri(path).endswith("?mode=ro")
    assert not checkpointed_wal(tmp_path / "missing.sqlite")
