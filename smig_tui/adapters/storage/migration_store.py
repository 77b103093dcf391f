"""Provides smig's own storage of committed migrations: one JSON document each, per workspace.

Layout: `<data_dir>/migrations/<workspace key>/<migration id>.json`. Ids and workspace keys are
checked against strict patterns before they touch a path, so nothing outside the store can be read
or written through them. Writes are atomic (temp file, fsync, rename), mode 0600, under a lock.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from itertools import chain
from pathlib import Path
from typing import Any

from smig_tui.adapters.fs import atomic_write, file_lock
from smig_tui.core.errors import Hint, MigrationNotFoundError, SmigError
from smig_tui.core.migration import (
    MigrationRecord,
    is_workspace_key,
    record_from_json,
    record_to_json,
    validate_migration_id,
    workspace_key,
)
from smig_tui.core.models import ReadWarning
from smig_tui.core.ports import WarningSink

LOCK_NAME = ".lock"


def new_migration_id(now: float | None = None) -> str:
    """A sortable id: 12 hex digits of epoch milliseconds, then 80 random bits."""
    millis = int((time.time() if now is None else now) * 1000)
    return f"{millis:012x}{os.urandom(10).hex()}"


def _ignore(_: ReadWarning) -> None:
    """Drop a warning."""


class MigrationStore:
    """Saves, finds and lists committed migrations."""

    def __init__(self, root: Path, lock_timeout: float = 0.0) -> None:
        self.root = root
        """`<data_dir>/migrations`."""
        self._lock_timeout = lock_timeout

    def path_for(self, record: MigrationRecord) -> Path:
        """Where a record is stored."""
        return self._folder(record.workspace) / f"{validate_migration_id(record.id)}.json"

    def save(self, record: MigrationRecord) -> Path:
        """Store a record atomically; a record with the same id is never replaced."""
        with self.lock():
            return self.write_locked(record)

    def write_locked(self, record: MigrationRecord) -> Path:
        """Store a record while the caller already holds `lock()` (the lock is not re-entrant)."""
        path = self.path_for(record)
        # Compact: the C encoder is several times faster than the indenting one on big histories.
        payload = json_pieces(record_to_json(record), separators=(",", ":"))
        atomic_write(path, chain(payload, ("\n",)), mode=0o600, overwrite=False)
        return path

    def lock(self) -> AbstractContextManager[None]:
        """The store-wide lock a commit holds, so two smig instances never interleave."""
        return file_lock(self.root / LOCK_NAME, timeout=self._lock_timeout, what="the migration store")

    def get(self, migration_id: str, warn: WarningSink = _ignore) -> MigrationRecord:
        """Return the record with `migration_id` from whichever workspace holds it."""
        validate_migration_id(migration_id)
        for path in self._workspace_dirs():
            candidate = path / f"{migration_id}.json"
            if candidate.is_file():
                return self._read(candidate)
        raise MigrationNotFoundError(f"No stored migration has id {migration_id}.", hint=Hint.LIST_MIGRATIONS)

    def list(self, workspace: str | None = None, warn: WarningSink = _ignore) -> list[MigrationRecord]:
        """All records, newest first; only one workspace's when `workspace` (a cwd) is given."""
        folders = [self._folder(workspace_key(workspace))] if workspace else list(self._workspace_dirs())
        records: list[MigrationRecord] = []
        for folder in folders:
            for path in _record_files(folder):
                try:
                    records.append(self._read(path))
                except SmigError as error:
                    warn(ReadWarning(str(path), None, str(error)))
        records.sort(key=lambda record: record.id, reverse=True)
        return records

    def latest(self, workspace: str) -> MigrationRecord | None:
        """The newest readable migration of one workspace (a cwd), if any.

        Ids sort by time and name their files, so only the newest file is read (an unreadable one is
        passed over, as `list` does): an MCP client paging a handoff asks for it once a page, and
        reading every record of a busy workspace each time made paging cost grow with its history.
        """
        folder = self._folder(workspace_key(workspace))
        for path in reversed(_record_files(folder)):
            try:
                return self._read(path)
            except SmigError:
                continue
        return None

    def _folder(self, key: str) -> Path:
        """A workspace folder, refusing any key that could escape the store."""
        if not is_workspace_key(key):
            raise MigrationNotFoundError(f"{key!r} is not a workspace key.")
        return self.root / key

    def _workspace_dirs(self) -> Iterator[Path]:
        """Workspace folders that exist, in name order."""
        if not self.root.is_dir():
            return
        for entry in sorted(self.root.iterdir()):
            if entry.is_dir() and not entry.is_symlink() and is_workspace_key(entry.name):
                yield entry

    def _read(self, path: Path) -> MigrationRecord:
        """Read one record, turning damage into a one-sentence error."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return record_from_json(data)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise SmigError(f"Stored migration {path} is unreadable ({error.__class__.__name__}).") from error


def _record_files(folder: Path) -> list[Path]:
    """A workspace folder's record files in id order (oldest first), none when it does not exist."""
    return sorted(path for path in folder.glob("*.json") if _is_record_name(path.name)) if folder.is_dir() else []


def _is_record_name(name: str) -> bool:
    """Tell a record file from temp files and anything else in a workspace folder."""
    stem, _, suffix = name.rpartition(".")
    try:
        validate_migration_id(stem)
    except MigrationNotFoundError:
        return False
    return suffix == "json"


LIST_SLICE = 4096
"""Items of a list encoded at a time by `json_pieces`."""


def json_pieces(value: Any, separators: tuple[str, str] = (", ", ": ")) -> Iterator[str]:
    """`json.dumps(value, ensure_ascii=False, separators=separators)` in pieces, for `atomic_write`: an
    object's values one by one, a list's items a slice at a time, each by the C encoder. A migration's
    record lists every message id it dropped (165,000 for the 500 MB OpenCode session, 8.8 MB of JSON):
    as one string, then that string with its newline, then its bytes, it was 40 MB at once."""
    comma, colon = separators
    if isinstance(value, dict) and value and all(isinstance(key, str) for key in value):
        yield "{"
        for number, (key, item) in enumerate(value.items()):
            yield (comma if number else "") + json.dumps(key, ensure_ascii=False) + colon
            yield from json_pieces(item, separators)
        yield "}"
    elif isinstance(value, list | tuple) and len(value) > LIST_SLICE:
        yield "["
        for start in range(0, len(value), LIST_SLICE):
            text = json.dumps(list(value[start : start + LIST_SLICE]), ensure_ascii=False, separators=separators)
            yield (comma if start else "") + text[1:-1]
        yield "]"
    else:
        yield json.dumps(value, ensure_ascii=False, separators=separators)
