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
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import KW_ONLY, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from smig_tui.adapters.agents.profile import AgentProfile
from smig_tui.adapters.commit_journal import CommitJournal
from smig_tui.adapters.fs import atomic_write
from smig_tui.adapters.output_paths import agent_folders, check_output_path
from smig_tui.adapters.paths import Paths
from smig_tui.adapters.readback import Expected, expected_from, verify
from smig_tui.adapters.storage.migration_store import MigrationStore, new_migration_id
from smig_tui.adapters.stored_text import with_texts
from smig_tui.adapters.zstd_files import DAMAGED, open_binary
from smig_tui.core.agent_rules import refused_destination
from smig_tui.core.errors import Hint, SessionReadError, SmigError, WriteRefusedError
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
from smig_tui.core.migration import MigrationRecord, MigrationResult, build_record, source_ref, workspace_key
from smig_tui.core.models import Message, Plan, Session
from smig_tui.core.native import (
    EXPORT_SUFFIXES,
    ContinueLatest,
    Destination,
    Lineage,
    NativeOutput,
    PlannedFile,
    export_targets,
)
from smig_tui.core.plans import left_out
from smig_tui.core.ports import NativeRequest, NativeWriter
from smig_tui.core.strategies import needs_summary
from smig_tui.core.timeline import format_iso

_BRANCH_KEYS = ("git_branch", "gitBranch", "branch")


def file_fingerprint(path: str) -> tuple[str, int, float]:
    """sha256, size and mtime of a source file's content, read in chunks (sessions can be hundreds of MB).

    A `.jsonl.zst` rollout is hashed decompressed, so the record still matches once Codex swaps it
    for its plain twin (or back).
    """
    from smig_tui.adapters.agents.registry import row_ref

    ref = row_ref(path)
    if ref is not None:  # a session kept as database rows, hashed in order
        return ref.refs.fingerprint(ref.database, ref.session_id)
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


@dataclass(frozen=True, slots=True)
class MigrationRequest:
    """What one commit is asked to write: the session, its plan and migrated messages, and where to."""

    session: Session
    plan: Plan
    messages: tuple[Message, ...]
    """The conversation as the plan migrates it (`services.migrated_messages`)."""
    _: KW_ONLY  # the options by name: eight positional flags and paths were too easy to swap
    to: Collection[Destination] = ()
    """The destinations besides smig's store, which always records the migration."""
    dry_run: bool = False
    out: Path | None = None
    """The file an export is written to (default: smig's data folder)."""
    force: bool = False
    """Replace an existing `out` file."""
    redact_secrets: bool = True
    cwd: str | None = None
    """The project folder native sessions are written for (default: the source's)."""
    now: datetime | None = None


class Committer:
    """Turns a plan into written files and a stored record."""

    def __init__(
        self, paths: Paths, store: MigrationStore, agents: Sequence[AgentProfile], env: Mapping[str, str] | None = None
    ) -> None:
        self._paths = paths
        self._store = store
        self._agents = {entry.id: entry for entry in agents}
        """The agents a native session can be written for (the registry's), by destination name."""
        self._env = env
        self._writers: dict[str, NativeWriter] = {}
        """Each destination's writer, built on first use."""
        self._expected: dict[str, tuple[Expected, ...]] = {}
        """What each native file written by this commit must read back as, by path."""
        self.journal = CommitJournal(paths.data_dir / "journal")
        self.recovered: list[str] = []
        """What recovering interrupted commits did before this one (see `commit_journal`); the result carries it."""

    def _writer(self, destination: str) -> NativeWriter:
        """The writer of one agent's native sessions (one sentence when its home is unknown)."""
        if destination not in self._writers:
            entry = self._agents[destination]
            refused = refused_destination(destination)
            if entry.writer is None or refused:
                raise SmigError(refused or f"smig cannot write {entry.name} sessions.")
            writer = entry.writer(self._paths, self._env)
            if writer is None:
                raise SmigError(f"{entry.name}'s folder is unknown, so no {entry.name} session can be written.")
            self._writers[destination] = writer
        return self._writers[destination]

    def migrate(self, request: MigrationRequest) -> MigrationResult:
        """Write (or, in a dry run, only lay out) the migration to every destination asked for.

        Secrets are replaced in everything written unless `redact_secrets` is False; the source
        session keeps the originals. `cwd` writes the native sessions for another project folder.
        """
        plan = request.plan
        if needs_summary(plan.strategy) and not plan.summary:
            raise SmigError(f"The {plan.strategy.value} plan has no summary yet.", hint=Hint.SUMMARY_FIRST)
        with ThreadPoolExecutor(1) as hashing:  # hashlib lets go of the GIL: the source is hashed meanwhile
            fingerprint = hashing.submit(file_fingerprint, request.session.info.path)
            return self._migrate(request, fingerprint)

    def _migrate(self, request: MigrationRequest, fingerprint: Future[tuple[str, int, float]]) -> MigrationResult:
        """`migrate`, with the source's fingerprint being taken in another thread."""
        session, plan, dry_run, out, cwd = request.session, request.plan, request.dry_run, request.out, request.cwd
        wanted = {Destination(value) for value in request.to} or {Destination.STORE}
        valid = [
            Destination.STORE,
            *(Destination(agent) for agent in self._agents),
            Destination.MARKDOWN,
            Destination.JSON,
        ]
        unknown = sorted(wanted - set(valid))
        if unknown:
            raise SmigError(f"{unknown[0]!r} is not a destination (valid: {', '.join(valid)}).")
        self._expected = {}
        # Read back once, in file order: redaction, the writers and the record each read every text.
        messages = tuple(with_texts(request.messages))
        redactions: dict[str, int] = {}
        if request.redact_secrets:
            session = redact_header(session)  # only its title and goal are written
            messages, redactions = redact_messages(messages)
            plan = redact_plan(plan)
        now = request.now or datetime.now(UTC)
        migration_id = new_migration_id(now.timestamp())
        sha, size, mtime = fingerprint.result()
        source = source_ref(session, sha, size, mtime)
        files = self._native_files(session, plan, messages, wanted, migration_id, now, cwd)
        files += self._export_files(session, plan, messages, wanted, migration_id, out, request.force)
        natives = tuple(planned.native for planned in files if planned.native)
        exports = tuple(
            planned.path for planned in files if planned.destination in (Destination.MARKDOWN, Destination.JSON)
        )
        record = build_record(migration_id, format_iso(now), source, plan, messages, natives, exports, redactions)
        record_path = str(self._store.path_for(record))
        result = MigrationResult(migration_id, dry_run, tuple(files), record, record_path, natives, redactions)
        if not dry_run:
            chosen = {planned.path for planned in files if out is not None and not planned.native}
            facts = self._commit(files, record, user_paths=chosen)
            result = replace(result, continue_latest=facts, recovered=tuple(self.recovered))
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
        """Lay out each wanted agent's session with its writer, in `cwd` when given, else the source's folder."""
        in_order = sorted(self._agents.values(), key=lambda entry: (entry.rules.choice_rank, entry.id))
        natives = [Destination(entry.id) for entry in in_order if Destination(entry.id) in wanted]
        if not natives:
            return []
        info = session.info
        folder = cwd or info.cwd
        if not folder:
            raise SmigError(
                f"Session {info.id} records no working directory, so no native session can be written for it.",
                hint=Hint.NO_FOLDER,
            )
        omitted, omitted_tokens = left_out(plan)
        target = plan.decision.target
        origin = info.cwd if cwd and info.cwd and cwd != info.cwd else None
        lineage = Lineage(
            info.agent.value,
            info.id,
            info.path,
            migration_id,
            omitted,
            plan.strategy.value,
            omitted_tokens,
            target,
            origin,
        )
        if not to_turns(messages):
            raise SmigError(
                f"Session {info.id} has no user or assistant messages to carry over, so no native session was written."
            )
        title = native_title(info.agent.value, info.title, goal_of(session.messages))
        branch = next((session.extra[key] for key in _BRANCH_KEYS if session.extra.get(key)), None)
        request = NativeRequest(messages, migration_note(lineage), folder, lineage, title, target, branch, now)
        files: list[PlannedFile] = []
        for destination in natives:
            layout = self._writer(destination.value).lay_out(request)
            for planned in layout.files:
                if planned.native:  # the session itself, not a file beside it (Gemini's project owner file)
                    self._expected[planned.path] = expected_from(layout.turns, layout.preamble)
            files += layout.files
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
        folder = self._paths.data_dir / "exports" / workspace_key(session.info.cwd)
        targets = export_targets(out, wanted) if out is not None else None
        files: list[PlannedFile] = []
        for kind, suffix in EXPORT_SUFFIXES.items():
            if kind not in wanted:
                continue
            if targets is None:
                path = folder / f"{migration_id}{suffix}"
            else:
                folders = agent_folders(self._agents.values(), self._paths, self._env)
                path = check_output_path(
                    Path(targets[kind]), self._paths, force=force, sources=[session.info.path], agents=folders
                )
            if kind is Destination.MARKDOWN:
                data = to_markdown(session, messages, plan)
            else:
                data = json.dumps(to_record(session, messages, plan), ensure_ascii=False, indent=2) + "\n"
            files.append(PlannedFile(kind, str(path.expanduser().absolute()), data, None, force))
        return files

    def _commit(
        self, files: list[PlannedFile], record: MigrationRecord, user_paths: Collection[str] = ()
    ) -> tuple[ContinueLatest, ...]:
        """Write every file and then the record, all or nothing, under the store's lock; then what each
        client's "continue the latest" picks.

        Folders are made for smig's own paths; a user's `--out` folder was checked to exist. A session
        that goes into its client's own database (OpenCode's import) is installed only after every
        file-only session read back right, so a commit failing before it leaves that database as it
        was; Codex's index learns of the thread only once the record is stored (`settle`)."""
        natives = sorted(
            (planned for planned in files if planned.native),
            key=lambda planned: self._writer(planned.destination.value).imports,
        )
        with self._store.lock():
            self.recovered = self.recover_locked()
            for planned in files:
                if not planned.overwrite and Path(planned.path).exists():
                    raise WriteRefusedError(
                        f"Refusing to overwrite existing file {planned.path}.",
                        hint=None if planned.native else Hint.REPLACE,
                    )
            installs = [planned for planned in natives if self._writer(planned.destination.value).imports]
            self.journal.begin(record, self._store.path_for(record), files, installs, self._expected)
            created: list[Path] = []
            installed: list[PlannedFile] = []
            try:
                for planned in files:
                    target = Path(planned.path)
                    existed = target.exists()
                    atomic_write(
                        target,
                        planned.data,
                        mode=0o600,
                        overwrite=planned.overwrite,
                        mtime=planned.mtime,
                        make_parents=planned.path not in user_paths,
                    )
                    if not existed:
                        created.append(target)
                for planned in natives:
                    writer = self._writer(planned.destination.value)
                    writer.install(planned)  # OpenCode imports its document
                    installed.append(planned)
                    if planned.native and planned.path in self._expected:
                        verify(writer, planned.native, self._expected[planned.path])
                for planned in natives:
                    self._writer(planned.destination.value).announce(planned)  # Codex names the thread
                self._store.write_locked(record)
            except BaseException:
                for path in created:
                    with contextlib.suppress(OSError):
                        path.unlink()
                for planned in installed:
                    with contextlib.suppress(SmigError):
                        self._writer(planned.destination.value).uninstall(planned)
                self.journal.end(record.id)
                raise
            facts = [self._writer(planned.destination.value).settle(planned) for planned in natives]
            self.journal.end(record.id)
        return tuple(fact for fact in facts if fact is not None)

    def recover_locked(self) -> list[str]:
        """Finish or clean up commits a kill interrupted (call under the store's lock); one sentence each.

        A session an interrupted commit imported into its client's database is deleted again through
        that client when the commit is cleaned up, and counts as missing when it is not there."""
        return self.journal.recover(self._store, _Installs(self))


class _Installs:
    """What recovery asks of the writers about sessions an interrupted commit put into a client's database."""

    def __init__(self, committer: Committer) -> None:
        self._committer = committer

    def present(self, planned: PlannedFile) -> bool:
        """Whether the session is in its client's database (it reads back)."""
        if planned.native is None or planned.destination.value not in self._committer._agents:
            return False
        try:
            self._committer._writer(planned.destination.value).read_back(planned.native)
        except (SmigError, OSError):
            return False
        return True

    def remove(self, planned: PlannedFile) -> None:
        """Delete it again through its client; quiet when it cannot."""
        if planned.destination.value in self._committer._agents:
            with contextlib.suppress(SmigError):
                self._committer._writer(planned.destination.value).uninstall(planned)

    def misreads(self, native: NativeOutput, expected: Sequence[Expected]) -> str | None:
        """Why the session does not read back as planned through its writer (what `smig list` and its
        client see), or None."""
        if native.agent not in self._committer._agents:
            return "cannot be read back here (smig does not know the agent)"
        try:
            verify(self._committer._writer(native.agent), native, expected)
        except SmigError as error:
            return f"does not read back as planned ({error})"
        return None
