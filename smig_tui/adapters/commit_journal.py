"""Provides the commit journal: an intent record written before a commit's first file, so a commit cut
short (SIGKILL, power loss) is finished or rolled back by the next run instead of leaving native
sessions that `smig history` never learns of, or a record of a session that does not exist.

Layout: `<data_dir>/journal/<migration id>.json` (0600), holding the stored record to be written and
every file the commit will write with the sha256 of its bytes and whether it existed before; for a
native session also its destination, where the client finds it and what it must read back as (each
message's role and text hash, `readback.Expected`). The entry is removed once the record is stored.
Recovery runs under the store's lock:

- the record is stored already: the commit finished; the entry is dropped;
- every file is on disk with the planned bytes, and every native session reads back, through its
  writer, as the client sees it (OpenCode's from its database: the import may not have run) as
  planned: only the record was missing; it is written now ("finished");
- otherwise the commit is rolled back: the files it created, and that still hold its bytes, are
  removed with any temp files it left, each native session is uninstalled (OpenCode's imported
  session deleted), and the note says why ("rolled back"); files it did not create, or that
  changed since, are left alone.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from smig_tui.adapters.fs import atomic_write
from smig_tui.adapters.readback import Expected, verify
from smig_tui.adapters.storage.migration_store import MigrationStore
from smig_tui.core.encoding import utf8
from smig_tui.core.errors import MigrationNotFoundError, SmigError
from smig_tui.core.migration import (
    Destination,
    MigrationRecord,
    NativeOutput,
    PlannedFile,
    record_from_json,
    record_to_json,
    validate_migration_id,
)
from smig_tui.core.models import Role
from smig_tui.core.ports import NativeWriter
from smig_tui.core.words import plural


def _sha256(data: bytes) -> str:
    """The hex digest that pins a planned file's bytes."""
    return hashlib.sha256(data).hexdigest()


class CommitJournal:
    """Intent records of commits in progress."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        """`<data_dir>/journal`."""

    def begin(
        self,
        record: MigrationRecord,
        record_path: Path,
        files: Sequence[PlannedFile],
        expected: Mapping[str, Sequence[Expected]] | None = None,
    ) -> Path:
        """Record what a commit is about to write; call under the store's lock, before any file.

        `expected` holds, by path, what each native session must read back as (`readback.verify`).
        """
        entry = {
            "migration_id": record.id,
            "record_path": str(record_path),
            "record": record_to_json(record),
            "files": [_file_entry(planned, (expected or {}).get(planned.path)) for planned in files],
        }
        path = self._entry(record.id)
        atomic_write(path, json.dumps(entry, ensure_ascii=False) + "\n", mode=0o600, overwrite=False)
        return path

    def end(self, migration_id: str) -> None:
        """Drop a commit's entry once its record is stored (or its files were rolled back)."""
        with contextlib.suppress(FileNotFoundError):
            self._entry(migration_id).unlink()

    def pending(self) -> bool:
        """Whether any commit was interrupted (cheap: no lock, no reading), its entry's temp file included."""
        return self.folder.is_dir() and (any(self.folder.glob("*.json")) or any(self.folder.glob(".*.tmp")))

    def recover(self, store: MigrationStore, writer_for: WriterFor | None = None) -> list[str]:
        """Finish or roll back every interrupted commit; one sentence each. Call under the store's lock.

        `writer_for` gives a destination's writer (None when its home is unknown), to read each native
        session back before a commit is called finished and to uninstall it when it is rolled back.
        """
        notes: list[str] = []
        for path in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []:
            try:
                entry = json.loads(path.read_text(encoding="utf-8"))
                validate_migration_id(entry["migration_id"])
                notes.extend(self._recover_one(entry, store, writer_for or _no_writer))
            except (OSError, ValueError, KeyError, TypeError, MigrationNotFoundError) as error:
                notes.append(
                    f"smig: an interrupted commit's journal {path} is unreadable "
                    f"({type(error).__name__}); left in place."
                )
                continue
            path.unlink()
        # An entry killed while it was written never became one: its commit wrote nothing yet.
        for temp in self.folder.glob(".*.json.*.tmp") if self.folder.is_dir() else []:
            with contextlib.suppress(OSError):
                temp.unlink()
        return notes

    def _recover_one(self, entry: dict[str, Any], store: MigrationStore, writer_for: WriterFor) -> list[str]:
        """Finish or roll back one commit; the notes to show."""
        migration_id = entry["migration_id"]
        if Path(entry["record_path"]).exists():
            return []  # finished; only dropping the entry was cut short
        files = entry["files"]
        intact = [item for item in files if _holds(item["path"], item["sha256"])]
        for item in files:
            _remove_temp_files(Path(item["path"]))
        if len(intact) == len(files):
            problem = _unverified(files, writer_for)
            if problem is None:
                store.write_locked(record_from_json(entry["record"]))
                return [
                    f"smig: finished migration {migration_id}, which was interrupted after writing its "
                    f"{plural(len(files), 'file')}: each read back as planned, and it is now recorded "
                    f"(`smig history show {migration_id}`)."
                ]
            removed = _roll_back(files, intact, writer_for)
            return [
                f"smig: rolled back migration {migration_id}, which was interrupted after writing its "
                f"{plural(len(files), 'file')}: {problem}; removed {removed} it had created, undid its "
                "native sessions, and recorded nothing."
            ]
        removed = _roll_back(files, intact, writer_for)
        return [
            f"smig: cleaned up migration {migration_id}, which was interrupted after writing "
            f"{len(intact)} of its {plural(len(files), 'file')}: removed {removed} it had created; nothing was recorded."
        ]

    def _entry(self, migration_id: str) -> Path:
        """One commit's entry, by its checked id."""
        return self.folder / f"{validate_migration_id(migration_id)}.json"


WriterFor = Callable[[str], NativeWriter | None]
"""A destination's writer (`codex`, `opencode`, …), or None when its home is unknown here."""


def _no_writer(_destination: str) -> NativeWriter | None:
    return None


def _file_entry(planned: PlannedFile, expected: Sequence[Expected] | None) -> dict[str, Any]:
    """One planned file as the journal keeps it (a native session with what it must read back as)."""
    item: dict[str, Any] = {
        "path": planned.path,
        "sha256": _sha256(utf8(planned.data)),
        "created": not os.path.lexists(planned.path),
    }
    if planned.native is not None:
        item["destination"] = planned.destination.value
        item["native"] = asdict(planned.native)
        if expected is not None:
            item["expected"] = [[want.role.value, want.sha256] for want in expected]
    return item


def _unverified(files: Sequence[dict[str, Any]], writer_for: WriterFor) -> str | None:
    """Why a native session of the commit is not as planned where its client looks, or None when
    each reads back as planned (a commit's files can all be there and OpenCode's import not done)."""
    for item in files:
        if "native" not in item or "expected" not in item:
            continue
        native = NativeOutput(**item["native"])
        writer = writer_for(item["destination"])
        if writer is None:
            return (
                f"its {native.agent} session {native.session_id} cannot be read back here (the agent's home is unknown)"
            )
        expected = [Expected(Role(role), sha256) for role, sha256 in item["expected"]]
        try:
            verify(writer, native, expected)
        except SmigError as error:
            return f"its {native.agent} session {native.session_id} does not read back as planned ({error})"
    return None


def _roll_back(files: Sequence[dict[str, Any]], intact: Sequence[dict[str, Any]], writer_for: WriterFor) -> int:
    """Undo what the commit did: its native sessions uninstalled, the files it created (still holding
    its bytes) removed; how many files were removed."""
    for item in files:
        writer = writer_for(item["destination"]) if "native" in item else None
        if writer is not None:
            native = NativeOutput(**item["native"])
            with contextlib.suppress(SmigError, OSError):
                writer.uninstall(PlannedFile(Destination(item["destination"]), item["path"], "", native=native))
    removed = 0
    for item in intact:
        if item["created"]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(item["path"])
                removed += 1
    return removed


def _holds(path: str, sha256: str) -> bool:
    """Whether `path` is a regular file holding exactly the planned bytes."""
    try:
        if not os.path.isfile(path) or os.path.islink(path):
            return False
        with open(path, "rb") as handle:
            return _sha256(handle.read()) == sha256
    except OSError:
        return False


def _remove_temp_files(target: Path) -> None:
    """Remove the temp files `atomic_write` leaves beside `target` when killed mid-write."""
    folder = target.parent
    if not folder.is_dir():
        return
    for temp in folder.glob(f".{glob.escape(target.name)}.*.tmp"):
        with contextlib.suppress(OSError):
            temp.unlink()
