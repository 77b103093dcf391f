"""Provides the commit of a planned migration: native sessions, exports and the stored record.

Everything to be written is laid out first (so a dry run can show it byte for byte), every target
is checked for an existing file before the first byte is written, and all writes happen under the
store's lock. If any write fails, the files this commit already created are removed again, so a
failed commit leaves the disk as it found it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from smig_tui.adapters.formats.claude_writer import ClaudeWriter
from smig_tui.adapters.formats.codex_writer import CodexWriter
from smig_tui.adapters.fs import atomic_write
from smig_tui.adapters.paths import Paths
from smig_tui.adapters.storage.migration_store import MigrationStore, new_migration_id
from smig_tui.core.errors import SessionReadError, SmigError, WriteRefusedError
from smig_tui.core.export import to_markdown, to_record
from smig_tui.core.handoff import (
    goal_of,
    migration_note,
    native_title,
    redact_messages,
    redact_plan,
    redact_session,
    to_turns,
)
from smig_tui.core.migration import (
    Destination,
    Lineage,
    MigrationRecord,
    MigrationResult,
    PlannedFile,
    build_record,
    source_ref,
    workspace_key,
)
from smig_tui.core.models import Message, Plan, Session, Strategy
from smig_tui.core.timeline import format_iso

_BRANCH_KEYS = ("git_branch", "gitBranch", "branch")


def file_fingerprint(path: str) -> tuple[str, int, float]:
    """sha256, size and mtime of a source file, read in chunks (sessions can be hundreds of MB)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
        stat = os.stat(path)
    except OSError as error:
        raise SessionReadError(f"Cannot read the source session {path} ({error.strerror}).") from error
    return digest.hexdigest(), stat.st_size, stat.st_mtime


class Committer:
    """Turns a plan into written files and a stored record."""

    def __init__(self, paths: Paths, store: MigrationStore) -> None:
        self._paths = paths
        self._store = store
        self._claude = ClaudeWriter(paths)
        self._codex = CodexWriter(paths)

    def migrate(
        self,
        session: Session,
        plan: Plan,
        messages: tuple[Message, ...],
        to: Iterable[Destination],
        dry_run: bool = False,
        out: Path | None = None,
        force: bool = False,
        now: datetime | None = None,
        redact_secrets: bool = True,
    ) -> MigrationResult:
        """Write (or, in a dry run, only lay out) the migration to every destination in `to`.

        Secrets are replaced in everything written unless `redact_secrets` is False; the source
        session keeps the originals.
        """
        if plan.strategy in (Strategy.SUMMARY, Strategy.SUMMARY_TAIL) and not plan.summary:
            raise SmigError(
                f"The {plan.strategy.value} plan has no summary yet; write one first "
                "(`smig summarize`) or choose --strategy truncate."
            )
        wanted = {Destination(value) for value in to} or {Destination.STORE}
        redactions: dict[str, int] = {}
        if redact_secrets:
            session = redact_session(session)
            messages, redactions = redact_messages(messages)
            plan = redact_plan(plan)
        now = now or datetime.now(UTC)
        migration_id = new_migration_id(now.timestamp())
        sha, size, mtime = file_fingerprint(session.info.path)
        source = source_ref(session, sha, size, mtime)
        files = self._native_files(session, plan, messages, wanted, migration_id, now)
        files += self._export_files(session, plan, messages, wanted, migration_id, out, force)
        natives = tuple(planned.native for planned in files if planned.native)
        exports = tuple(planned.path for planned in files if not planned.native)
        record = build_record(migration_id, format_iso(now), source, plan, messages, natives, exports,
                              redactions)
        record_path = str(self._store.path_for(record))
        result = MigrationResult(migration_id, dry_run, tuple(files), record, record_path, natives,
                                 redactions)
        if not dry_run:
            self._commit(files, record)
        return result

    def _native_files(
        self,
        session: Session,
        plan: Plan,
        messages: tuple[Message, ...],
        wanted: set[Destination],
        migration_id: str,
        now: datetime,
    ) -> list[PlannedFile]:
        """Lay out the Claude and/or Codex sessions."""
        natives = wanted & {Destination.CLAUDE, Destination.CODEX}
        if not natives:
            return []
        info = session.info
        if not info.cwd:
            raise SmigError(
                f"Session {info.id} records no working directory, so no native session can be written "
                "for it; use --to markdown or --to json."
            )
        lineage = Lineage(info.agent.value, info.id, info.path, migration_id,
                          len(plan.dropped), plan.strategy.value)
        note = migration_note(lineage)
        if not to_turns(messages):
            raise SmigError(
                f"Session {info.id} has no user or assistant messages to carry over, so no native "
                "session was written."
            )
        title = native_title(info.agent.value, info.title, goal_of(session.messages))
        branch = next((session.extra[key] for key in _BRANCH_KEYS if session.extra.get(key)), None)
        target = plan.decision.target
        files: list[PlannedFile] = []
        if Destination.CLAUDE in natives:
            files.append(self._claude.prepare(to_turns(messages, note=note), info.cwd, lineage, title,
                                              model=target, git_branch=branch, now=now))
        if Destination.CODEX in natives:
            model = None if target.startswith("claude") else target
            files.append(self._codex.prepare(to_turns(messages), info.cwd, lineage, title, model=model,
                                             git_branch=branch, now=now, note=note))
        return files

    def _export_files(
        self,
        session: Session,
        plan: Plan,
        messages: tuple[Message, ...],
        wanted: set[Destination],
        migration_id: str,
        out: Path | None,
        force: bool,
    ) -> list[PlannedFile]:
        """Lay out the Markdown and/or JSON exports, at `out` or beside the store."""
        kinds = [kind for kind in (Destination.MARKDOWN, Destination.JSON) if kind in wanted]
        files: list[PlannedFile] = []
        for kind in kinds:
            suffix = ".md" if kind is Destination.MARKDOWN else ".json"
            if out is None:
                folder = self._paths.data_dir / "exports" / workspace_key(session.info.cwd)
                path = folder / f"{migration_id}{suffix}"
            else:
                path = out if len(kinds) == 1 else out.with_suffix(suffix)
            if kind is Destination.MARKDOWN:
                data = to_markdown(session, messages, plan)
            else:
                data = json.dumps(to_record(session, messages, plan), ensure_ascii=False, indent=2) + "\n"
            files.append(PlannedFile(kind, str(path.expanduser().absolute()), data, None, force))
        return files

    def _commit(self, files: list[PlannedFile], record: MigrationRecord) -> None:
        """Write every file and then the record, all or nothing, under the store's lock."""
        with self._store.lock():
            for planned in files:
                if not planned.overwrite and Path(planned.path).exists():
                    raise WriteRefusedError(
                        f"Refusing to overwrite existing file {planned.path}"
                        + ("; pass --force to replace it." if not planned.native else ".")
                    )
            created: list[Path] = []
            try:
                for planned in files:
                    target = Path(planned.path)
                    existed = target.exists()
                    atomic_write(target, planned.data, mode=0o600, overwrite=planned.overwrite,
                                 mtime=planned.mtime)
                    if not existed:
                        created.append(target)
                self._store.write_locked(record)
            except BaseException:
                for path in created:
                    with contextlib.suppress(OSError):
                        path.unlink()
                raise
