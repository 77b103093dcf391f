from __future__ import annotations

import json
import multiprocessing
import os
import stat
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session

import smig_tui.adapters.storage.migration_store as store_module
from smig_tui.adapters.storage.migration_store import MigrationStore, new_migration_id
from smig_tui.core.errors import LockedError, MigrationNotFoundError, WriteRefusedError
from smig_tui.core.migration import (
    MIGRATION_ID_RE,
    MigrationRecord,
    build_record,
    is_workspace_key,
    record_to_json,
    source_ref,
    workspace_key,
)
from smig_tui.core.native import NativeOutput
from smig_tui.core.plans import result_messages


def _record(tmp_path: Path, cwd: str = "/work/proj", now: float = 1_767_000_000.0) -> MigrationRecord:
    session = make_session(tmp_path / "src", cwd=cwd)
    plan = make_plan(session, keep_last=4)
    source = source_ref(session, "ab" * 32, 10, 1.0)
    output = NativeOutput("claude", "/x/y.jsonl", "sid", ("claude", "--resume", "sid"), "/work/proj")
    return build_record(
        new_migration_id(now), "2026-01-02T10:00:00.000Z", source, plan, result_messages(plan), (output,)
    )


def test_save_get_list_latest_round_trip(tmp_path: Path) -> None:
    store = MigrationStore(tmp_path / "migrations")
    older = _record(tmp_path, now=1_767_000_000.0)
    newer = _record(tmp_path, now=1_767_000_100.0)
    other = _record(tmp_path, cwd="/elsewhere/app", now=1_767_000_050.0)
    for record in (older, newer, other):
        path = store.save(record)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert path.parent.name == workspace_key(record.source.cwd)
    assert store.get(older.id) == older
    assert [r.id for r in store.list()] == [newer.id, other.id, older.id]
    assert [r.id for r in store.list("/work/proj")] == [newer.id, older.id]
    latest = store.latest("/work/proj")
    assert latest is not None and latest.id == newer.id
    assert store.latest("/nowhere") is None
    stored = json.loads(store.path_for(newer).read_text())
    assert stored["schema_version"] == 1
    assert stored["source"]["sha256"] == "ab" * 32
    assert stored["kept_ids"] == ["m7", "m8", "m9", "m10"]
    assert stored["dropped_ids"][:2] == ["m0", "m1"]
    assert stored["messages"][0]["id"] == "smig-placeholder"
    assert stored["outputs"][0]["resume_command"].endswith("claude --resume sid")


def test_latest_reads_only_the_newest_record_and_passes_over_a_damaged_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An MCP client asks for the newest record once a page: reading every record of the workspace each
    time made paging a handoff cost as much as the workspace's whole history."""
    store = MigrationStore(tmp_path / "migrations")
    records = [_record(tmp_path, now=1_767_000_000.0 + step) for step in range(6)]
    for record in records:
        store.save(record)
    read: list[str] = []
    original = MigrationStore._read
    monkeypatch.setattr(MigrationStore, "_read", lambda self, path: read.append(path.stem) or original(self, path))
    latest = store.latest("/work/proj")
    assert latest is not None and latest.id == records[-1].id and read == [records[-1].id]
    store.path_for(records[-1]).write_text("{not json")
    read.clear()
    latest = store.latest("/work/proj")
    assert latest is not None and latest.id == records[-2].id
    assert read == [records[-1].id, records[-2].id]
    (store.path_for(records[0]).parent / "notes.json").write_text("{}")  # not a record's name: never read
    assert store.latest("/work/proj") == latest


def test_ids_are_sortable_and_strict() -> None:
    first, second = new_migration_id(1000.0), new_migration_id(1000.001)
    assert MIGRATION_ID_RE.match(first) and first < second


@pytest.mark.parametrize("bad", ["../../etc/passwd", "..", "a/b", "0" * 31, "0" * 32 + "/..", "G" * 32, ""])
def test_traversal_ids_refused(tmp_path: Path, bad: str) -> None:
    store = MigrationStore(tmp_path / "migrations")
    with pytest.raises(MigrationNotFoundError):
        store.get(bad)


@pytest.mark.parametrize("cwd", ["/a/../../etc", "..", "../../x", "C:\\Users\\me\\proj", "/", "/ü/ñ", "a" * 500])
def test_workspace_keys_never_escape(cwd: str) -> None:
    key = workspace_key(cwd)
    assert is_workspace_key(key)
    assert "/" not in key and ".." not in key and "\\" not in key


def test_same_cwd_same_key_different_cwd_different_key() -> None:
    assert workspace_key("/a/proj") == workspace_key("/a/proj/")
    assert workspace_key("/") == workspace_key("/") != workspace_key(None)
    assert workspace_key("/a/proj") != workspace_key("/b/proj")


def test_unknown_id_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(MigrationNotFoundError, match="smig history"):
        MigrationStore(tmp_path / "m").get(new_migration_id())


def test_same_id_never_replaced(tmp_path: Path) -> None:
    store = MigrationStore(tmp_path / "migrations")
    record = _record(tmp_path)
    path = store.save(record)
    before = path.read_bytes()
    with pytest.raises(WriteRefusedError):
        store.save(record)
    assert path.read_bytes() == before


def test_damaged_record_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    store = MigrationStore(tmp_path / "migrations")
    good = _record(tmp_path)
    store.save(good)
    broken = store.path_for(good).parent / f"{new_migration_id()}.json"
    broken.write_text('{"id": "trunc')
    warnings: list[object] = []
    assert [r.id for r in store.list(warn=warnings.append)] == [good.id]
    assert len(warnings) == 1 and "unreadable" in str(warnings[0])


def _crash_while_saving(root: str, payload: str) -> None:
    def die(*_: object) -> None:
        os._exit(9)  # killed after the temp file is written, before it becomes the record

    store_module.atomic_write.__globals__["os"].link = die  # the fs module's os, in this child only
    store = MigrationStore(Path(root))
    from smig_tui.core.migration import record_from_json

    store.save(record_from_json(json.loads(payload)))


def test_crash_mid_save_keeps_earlier_records_and_leaves_no_partial_json(tmp_path: Path) -> None:
    store = MigrationStore(tmp_path / "migrations")
    kept = _record(tmp_path, now=1_767_000_000.0)
    store.save(kept)
    doomed = _record(tmp_path, now=1_767_000_200.0)
    child = multiprocessing.get_context("fork").Process(
        target=_crash_while_saving, args=(str(store.root), json.dumps(record_to_json(doomed)))
    )
    child.start()
    child.join(600)
    assert child.exitcode == 9
    assert [r.id for r in store.list()] == [kept.id]
    assert store.get(kept.id) == kept
    assert not store.path_for(doomed).exists()
    for path in store.root.rglob("*.json"):
        json.loads(path.read_text())  # every visible record parses


def _hold_store_lock(root: str, ready: object, release: object) -> None:
    with MigrationStore(Path(root)).lock():
        ready.set()  # type: ignore[attr-defined]
        release.wait(600)  # type: ignore[attr-defined]


def test_second_instance_gets_locked_error(tmp_path: Path) -> None:
    store = MigrationStore(tmp_path / "migrations")
    context = multiprocessing.get_context("fork")
    ready, release = context.Event(), context.Event()
    holder = context.Process(target=_hold_store_lock, args=(str(store.root), ready, release))
    holder.start()
    try:
        assert ready.wait(600)  # a hang guard only: the holder sets it once it has the lock
        record = _record(tmp_path)
        with pytest.raises(LockedError, match="migration store"):
            store.save(record)
        assert not store.path_for(record).exists()
    finally:
        release.set()
        holder.join(600)
    store.save(record)
    assert store.get(record.id) == record


@pytest.mark.parametrize("separators", [(", ", ": "), (",", ":")], ids=["journal", "record"])
def test_a_record_is_written_in_pieces_that_join_to_its_whole_json(tmp_path: Path, separators: tuple[str, str]) -> None:
    """The store and the journal write a record a value (a list a slice) at a time: the same text as
    `json.dumps` gave, on a real record and on the odd values a record or journal entry can hold."""
    record = record_to_json(_record(tmp_path))
    many = [f"msg_{number:06d}" for number in range(3 * store_module.LIST_SLICE + 5)]
    odd = {
        "record": record,
        "dropped_ids": many,
        "as_tuple": tuple(many[: store_module.LIST_SLICE + 1]),
        "exactly_a_slice": many[: store_module.LIST_SLICE * 2],
        "empty": {},
        "none": [],
        "nested": {"a": [{"b": "é \ud800 ✓"}], "n": None, "f": 1.5, "t": True},
        "numbered_keys": {1: "one", 2.5: "two", None: "none"},
    }
    for value in (record, odd, [], {}, "text", many):
        pieces = list(store_module.json_pieces(value, separators))
        assert "".join(pieces) == json.dumps(value, ensure_ascii=False, separators=separators)
    assert max(len(piece) for piece in store_module.json_pieces(odd, separators)) < 20 * store_module.LIST_SLICE
