"""Provides the commit of a planned migration: native sessions, exports and the stored record.

Everything to be written is laid out first (so a dry run can show it byte for byte), every target
is checked for an existing file before the first byte is written, and all writes happen under the
store's lock. Every native session is read back with smig's own reader and compared with the plan
before the record is stored. If any write or check fails, the files this commit already created are
removed again, so a failed commit leaves the disk as it found it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Collection, Iterable
from datetime import UTC, datetime
from pathlib import Path

from smig_tui.adapters.agents.claude.writer import ClaudeWriter
from smig_tui.adapters.agents.codex.writer import CodexWriter, append_session_index, index_line, recorded_model
from smig_tui.adapters.agents.gemini.writer import GeminiWriter, sendable
from smig_tui.adapters.agents.opencode.home import resolve_home
from smig_tui.adapters.agents.opencode.writer import OpenCodeWriter
from smig_tui.adapters.commit_journal import CommitJournal
from smig_tui.adapters.fs import atomic_write
from smig_tui.adapters.output_paths import check_output_path
from smig_tui.adapters.paths import Paths
from smig_tui.adapters.readback import Expected, expected_from, verify
from smig_tui.adapters.storage.migration_store import MigrationStore, new_migration_id
from smig_tui.adapters.zstd_files import DAMAGED, open_binary
from smig_tui.core.errors import SessionReadError, SmigError, WriteRefusedError
from smig_tui.core.export import to_markdown, to_record
from smig_tui.core.handoff import (
    goal_of,
    migration_note,
    native_title,
    redact_header,
    redact_messages,
    redact_plan,
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
from smig_tui.core.models import Message, Plan, Session
from smig_tui.core.plans import PLACEHOLDER_ID, SUMMARY_ID, left_out
from smig_tui.core.strategies import needs_summary
from smig_tui.core.timeline import format_iso

_BRANCH_KEYS = ("git_branch", "gitBranch", "branch")


def file_fingerprint(path: str) -> tuple[str, int, float]:
    """sha256, size and mtime of a source file's content, read in chunks (sessions can be hundreds of MB).

    A `.jsonl.zst` rollout is hashed decompressed, so the record still matches once Codex swaps it
    for its plain twin (or back).
    """
    from smig_tui.adapters.agents.opencode.home import split_ref

    ref = split_ref(path)
    if ref is not None:  # an OpenCode session: rows in its database, hashed in order
        from smig_tui.adapters.agents.opencode.fingerprint import session_fingerprint

        return session_fingerprint(Path(ref[0]), ref[1])
    digest = hashlib.sha256()
    size = 0
    try:
        with open_binary(path) as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
                size += len(chunk)
        stat = os.stat(path)
    except OSError as error:
        raise SessionReadError(f"Cannot read the source session {path} ({error.strerror}).") from error
    except DAMAGED as error:
        raise SessionReadError(f"Cannot read the source session {path}: it is damaged ({error}).") from error
    return digest.hexdigest(), size, stat.st_mtime


class Committer:
    """Turns a plan into written files and a stored record."""

    def __init__(self, paths: Paths, store: MigrationStore) -> None:
        self._paths = paths
        self._store = store
        self._claude = ClaudeWriter(paths)
        self._codex = CodexWriter(paths)
        self._gemini = GeminiWriter(paths.gemini_home) if paths.gemini_home is not None else None
        self._expected: dict[str, tuple[Expected, ...]] = {}
        """What each native file written by this commit must read back as, by path."""
        self._index_lines: list[str] = []
        """Lines for Codex's session_index.jsonl, appended once every file has read back right."""
        self.journal = CommitJournal(paths.data_dir / "journal")
        self.recovered: list[str] = []
        """What recovering interrupted commits did before this one (see `commit_journal`)."""
        self._opencode = OpenCodeWriter(resolve_home(), paths.data_dir / "opencode-imports")

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
        cwd: str | None = None,
    ) -> MigrationResult:
        """Write (or, in a dry run, only lay out) the migration to every destination in `to`.

        Secrets are replaced in everything written unless `redact_secrets` is False; the source
        session keeps the originals. `cwd` writes the native sessions for another project folder.
        """
        if needs_summary(plan.strategy) and not plan.summary:
            raise SmigError(
                f"The {plan.strategy.value} plan has no summary yet; write one first "
                "(`smig summarize`) or choose --strategy truncate."
            )
        wanted = {Destination(value) for value in to} or {Destination.STORE}
        self._expected, self._index_lines = {}, []
        redactions: dict[str, int] = {}
        if redact_secrets:
            session = redact_header(session)  # only its title and goal are written
            messages, redactions = redact_messages(messages)
            plan = redact_plan(plan)
        now = now or datetime.now(UTC)
        migration_id = new_migration_id(now.timestamp())
        sha, size, mtime = file_fingerprint(session.info.path)
        source = source_ref(session, sha, size, mtime)
        files = self._native_files(session, plan, messages, wanted, migration_id, now, cwd)
        files += self._export_files(session, plan, messages, wanted, migration_id, out, force)
        natives = tuple(planned.native for planned in files if planned.native)
        exports = tuple(planned.path for planned in files if planned.destination in (Destination.MARKDOWN,
                                                                                     Destination.JSON))
        record = build_record(migration_id, format_iso(now), source, plan, messages, natives, exports,
                              redactions)
        record_path = str(self._store.path_for(record))
        result = MigrationResult(migration_id, dry_run, tuple(files), record, record_path, natives,
                                 redactions)
        if not dry_run:
            chosen = {planned.path for planned in files if out is not None and not planned.native}
            self._commit(files, record, user_paths=chosen)
        return result

    def _native_files(
        self,
        session: Session,
        plan: Plan,
        messages: tuple[Message, ...],
        wanted: set[Destination],
        migration_id: str,
        now: datetime,
        cwd: str | None = None,
    ) -> list[PlannedFile]:
        """Lay out the Claude and/or Codex sessions, in `cwd` when given, else the source's folder."""
        natives = wanted & {Destination.CLAUDE, Destination.CODEX, Destination.GEMINI, Destination.OPENCODE}
        if not natives:
            return []
        info = session.info
        folder = cwd or info.cwd
        if not folder:
            raise SmigError(
                f"Session {info.id} records no working directory, so no native session can be written "
                "for it; give one with --cwd, or use --to markdown or --to json."
            )
        omitted, omitted_tokens = left_out(plan)
        target = plan.decision.target
        origin = info.cwd if cwd and info.cwd and cwd != info.cwd else None
        lineage = Lineage(info.agent.value, info.id, info.path, migration_id, omitted, plan.strategy.value,
                          omitted_tokens, target, origin)
        note = migration_note(lineage)
        if not to_turns(messages):
            raise SmigError(
                f"Session {info.id} has no user or assistant messages to carry over, so no native "
                "session was written."
            )
        title = native_title(info.agent.value, info.title, goal_of(session.messages))
        branch = next((session.extra[key] for key in _BRANCH_KEYS if session.extra.get(key)), None)
        files: list[PlannedFile] = []
        if Destination.CLAUDE in natives:
            turns = to_turns(messages, note=note)
            planned = self._claude.prepare(turns, folder, lineage, title, model=target, git_branch=branch, now=now)
            self._expected[planned.path] = expected_from(turns)
            files.append(planned)
        if Destination.CODEX in natives:
            preamble, rest = _codex_preamble(note, messages)
            turns = to_turns(rest)
            planned = self._codex.prepare(turns, folder, lineage, title, git_branch=branch, now=now,
                                          model=recorded_model(self._paths, target), note=preamble)
            self._expected[planned.path] = expected_from(turns, preamble)
            if planned.native:
                self._index_lines.append(index_line(planned.native.session_id, title, now))
            files.append(planned)
        if Destination.GEMINI in natives:
            files += self._gemini_files(messages, note, folder, lineage, title, target, now)
        if Destination.OPENCODE in natives:
            turns = to_turns(messages, note=note)
            planned = self._opencode.prepare(turns, folder, lineage, title, model=target, now=now)
            self._expected[planned.path] = expected_from(turns)
            files.append(planned)
        return files

    def _gemini_files(self, messages: tuple[Message, ...], note: str, folder: str, lineage: Lineage, title: str,
                      target: str, now: datetime) -> list[PlannedFile]:
        """Lay out the Gemini CLI session (and its project folder's owner file when the folder is new)."""
        if self._gemini is None:
            raise SmigError("Gemini CLI's folder is unknown, so no Gemini session can be written.")
        turns = to_turns(messages, note=note)
        planned = self._gemini.prepare(turns, folder, lineage, title, model=target, now=now)
        session = planned[-1]
        self._expected[session.path] = expected_from(tuple(sendable(turn) for turn in turns))
        return planned

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
                chosen = out if len(kinds) == 1 else out.with_suffix(suffix)
                path = check_output_path(chosen, self._paths, force=force, sources=[session.info.path])
            if kind is Destination.MARKDOWN:
                data = to_markdown(session, messages, plan)
            else:
                data = json.dumps(to_record(session, messages, plan), ensure_ascii=False, indent=2) + "\n"
            files.append(PlannedFile(kind, str(path.expanduser().absolute()), data, None, force))
        return files

    def _commit(self, files: list[PlannedFile], record: MigrationRecord, user_paths: Collection[str] = ()) -> None:
        """Write every file and then the record, all or nothing, under the store's lock.

        Folders are made for smig's own paths; a user's `--out` folder was checked to exist."""
        with self._store.lock():
            self.recovered = self.journal.recover(self._store)
            for planned in files:
                if not planned.overwrite and Path(planned.path).exists():
                    raise WriteRefusedError(
                        f"Refusing to overwrite existing file {planned.path}"
                        + ("; pass --force to replace it." if not planned.native else ".")
                    )
            self.journal.begin(record, self._store.path_for(record), files)
            created: list[Path] = []
            imported: list[str] = []
            try:
                for planned in files:
                    target = Path(planned.path)
                    existed = target.exists()
                    atomic_write(target, planned.data, mode=0o600, overwrite=planned.overwrite,
                                 mtime=planned.mtime, make_parents=planned.path not in user_paths)
                    if not existed:
                        created.append(target)
                for planned in files:
                    if planned.destination is Destination.OPENCODE and planned.native:
                        # The file is smig's import document; OpenCode writes its own database.
                        self._opencode.import_session(planned)
                        imported.append(planned.native.session_id)
                for planned in files:
                    if planned.native and planned.path in self._expected:
                        verify(self._paths, planned.native, self._expected[planned.path])
                for line in self._index_lines:
                    append_session_index(self._paths, line)
                self._store.write_locked(record)
            except BaseException:
                for path in created:
                    with contextlib.suppress(OSError):
                        path.unlink()
                for session_id in imported:
                    with contextlib.suppress(SmigError):
                        self._opencode.delete_session(session_id)
                self.journal.end(record.id)
                raise
            self.journal.end(record.id)


def _codex_preamble(note: str, messages: tuple[Message, ...]) -> tuple[str, tuple[Message, ...]]:
    """The model-visible text before the conversation in a Codex rollout, and the rest.

    The lineage note and the plan's placeholder (or summary) go in one user item without a
    `user_message` event, so Codex's preview and thread list show the conversation's own prompt,
    not "[smig: 162 earlier messages omitted …". A plan that is only a summary keeps it as a turn.
    """
    if messages and messages[0].id in (PLACEHOLDER_ID, SUMMARY_ID) and to_turns(messages[1:]):
        return f"{note}\n\n{messages[0].text}", messages[1:]
    return note, messages
