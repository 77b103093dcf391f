"""Provides the commit journal: an intent record written before a commit's first file, so a commit cut
short (SIGKILL, power loss) is finished or rolled back by the next run instead of leaving native
sessions that `smig history` never learns of, or a record of a session that does not exist.

Layout: `<data_dir>/journal/<migration id>.json` (0600), holding the stored record to be written,
every file the commit will write with the sha256 of its bytes and whether it existed before (for a
native session also what it must read back as: each message's role and text hash,
`readback.Expected`), and the sessions it puts into a client's own database (OpenCode's import). The
entry is removed once the record is stored. Recovery runs under the store's lock:

- the record is stored already: the commit finished; the entry is dropped;
- every file is on disk with the planned bytes, every imported session is in its client's database,
  and every native session reads back, as its client sees it, as planned: only the record was
  missing; it is written now ("finished");
- a session that is there but does not read back as planned: the commit is rolled back (its files
  and imported sessions removed) and the note says why ("rolled back");
- otherwise the files this commit created, and still hold its bytes, are removed with any temp
  files it left, and the sessions it imported are deleted again through their client ("cleaned
  up"); files it did not create, or that changed since, are left alone.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any, Protocol

from smig_tui.adapters.fs import atomic_write
from smig_tui.adapters.readback import Expected
from smig_tui.adapters.storage.migration_store import MigrationStore, json_pieces
from smig_tui.core.encoding import utf8
from smig_tui.core.errors import MigrationNotFoundError
from smig_tui.core.migration import MigrationRecord, record_from_json, record_to_json, validate_migration_id
from smig_tui.core.models import Role
from smig_tui.core.native import Destination, NativeOutput, PlannedFile
from smig_tui.core.words import plural


def _sha256(data: bytes) -> str:
    """The hex digest that pins a planned file's bytes."""
    return hashlib.sha256(data).hexdigest()


class Installs(Protocol):
    """The writers' side of recovery: sessions an interrupted commit put into a client's database, and
    every native session read back as its client sees it."""

    def present(self, planned: PlannedFile) -> bool:
        """Whether the session is in its client's database."""
        ...

    def remove(self, planned: PlannedFile) -> None:
        """Delete it again through its client; quiet when it cannot."""
        ...

    def misreads(self, native: NativeOutput, expected: Sequence[Expected]) -> str | None:
        """Why the session does not read back as planned where its client finds it, or None."""
        ...


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
        installs: Sequence[PlannedFile] = (),
        expected: Mapping[str, Sequence[Expected]] | None = None,
    ) -> Path:
        """Record what a commit is about to write; call under the store's lock, before any file.

        `installs` are the native sessions the commit imports into a client's own database; `expected`
        holds, by path, what each native session must read back as (`readback.verify`)."""
        entry = {
            "migration_id": record.id,
            "record_path": str(record_path),
            "record": record_to_json(record),
            "files": [_file_entry(planned, (expected or {}).get(planned.path)) for planned in files],
            "installs": [
                {
                    "destination": planned.destination.value,
                    "path": planned.path,
                    "session_id": planned.native.session_id,
                    "native_path": planned.native.path,
                }
                for planned in installs
                if planned.native
            ],
        }
        path = self._entry(record.id)
        atomic_write(path, chain(json_pieces(entry), ("\n",)), mode=0o600, overwrite=False)
        return path

    def end(self, migration_id: str) -> None:
        """Drop a commit's entry once its record is stored (or its files were rolled back)."""
        with contextlib.suppress(FileNotFoundError):
            self._entry(migration_id).unlink()

    def pending(self) -> bool:
        """Whether any commit was interrupted (cheap: no lock, no reading), its entry's temp file included."""
        return self.folder.is_dir() and (any(self.folder.glob("*.json")) or any(self.folder.glob(".*.tmp")))

    def recover(self, store: MigrationStore, installs: Installs | None = None) -> list[str]:
        """Finish or clean up every interrupted commit; one sentence each. Call under the store's lock.

        Without `installs` (no writers at hand) an entry that names imported sessions is left for a
        recovery that has them."""
        notes: list[str] = []
        for path in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []:
            try:
                entry = json.loads(path.read_text(encoding="utf-8"))
                validate_migration_id(entry["migration_id"])
                imported = [_imported(item) for item in entry.get("installs") or []]
                if imported and installs is None:
                    continue
                notes.extend(self._recover_one(entry, store, imported, installs))
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

    def _recover_one(
        self,
        entry: dict[str, Any],
        store: MigrationStore,
        imported: list[PlannedFile],
        installs: Installs | None,
    ) -> list[str]:
        """Finish or clean up one commit; the notes to show."""
        migration_id = entry["migration_id"]
        if Path(entry["record_path"]).exists():
            return []  # finished; only dropping the entry was cut short
        files = entry["files"]
        intact = [item for item in files if _holds(item["path"], item["sha256"])]
        for item in files:
            _remove_temp_files(Path(item["path"]))
        present = [planned for planned in imported if installs is not None and installs.present(planned)]
        if len(intact) == len(files) and len(present) == len(imported):
            problem = _misread(files, installs)
            if problem is None:
                store.write_locked(record_from_json(entry["record"]))
                return [
                    f"finished migration {migration_id}, which was interrupted after writing its "
                    f"{plural(len(files), 'file')}: each session read back as planned, and it is now recorded "
                    f"(`smig history show {migration_id}`)."
                ]
            removed, deleted = _undo(intact, present, installs)
            return [
                f"rolled back migration {migration_id}, which was interrupted after writing its "
                f"{plural(len(files), 'file')}: {problem}; removed the {plural(removed, 'file')} it had "
                f"created{deleted} and recorded nothing."
            ]
        removed, deleted = _undo(intact, present, installs)
        return [
            f"cleaned up migration {migration_id}, which was interrupted after writing "
            f"{len(intact)} of its {plural(len(files), 'file')}: removed {removed} it had created{deleted}; "
            "nothing was recorded."
        ]

    def _entry(self, migration_id: str) -> Path:
        """One commit's entry, by its checked id."""
        return self.folder / f"{validate_migration_id(migration_id)}.json"


def _file_entry(planned: PlannedFile, expected: Sequence[Expected] | None) -> dict[str, Any]:
    """One planned file as the journal keeps it (a native session with what it must read back as)."""
    item: dict[str, Any] = {
        "path": planned.path,
        "sha256": _sha256(utf8(planned.data)),
        "created": not os.path.lexists(planned.path),
    }
    if planned.native is not None and expected is not None:
        item["native"] = {
            "agent": planned.native.agent,
            "path": planned.native.path,
            "session_id": planned.native.session_id,
        }
        item["expected"] = [[want.role.value, want.sha256] for want in expected]
    return item


def _misread(files: Sequence[dict[str, Any]], installs: Installs | None) -> str | None:
    """Why a native session of the commit is not as planned where its client finds it, or None when
    each reads back as planned (or no writers are at hand to ask)."""
    if installs is None:
        return None
    for item in files:
        if "native" not in item or "expected" not in item:
            continue
        native = NativeOutput(
            str(item["native"]["agent"]), str(item["native"]["path"]), str(item["native"]["session_id"]), ()
        )
        expected = [Expected(Role(role), sha256) for role, sha256 in item["expected"]]
        problem = installs.misreads(native, expected)
        if problem is not None:
            return f"its {native.agent} session {native.session_id} {problem}"
    return None


def _undo(
    intact: Sequence[dict[str, Any]], present: Sequence[PlannedFile], installs: Installs | None
) -> tuple[int, str]:
    """Delete the sessions the commit imported and the files it created that still hold its bytes; how
    many files, and the words for the deleted sessions."""
    for planned in present:
        if installs is not None:
            installs.remove(planned)
    removed = 0
    for item in intact:
        if item["created"]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(item["path"])
                removed += 1
    deleted = f" and deleted the {plural(len(present), 'session')} it had imported" if present else ""
    return removed, deleted


def _imported(item: dict[str, Any]) -> PlannedFile:
    """A journal's imported session as the planned file its writer knows how to find and delete."""
    destination = Destination(item["destination"])
    native = NativeOutput(destination.value, str(item["native_path"]), str(item["session_id"]), ())
    return PlannedFile(destination, str(item["path"]), "", native=native)


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
