"""Provides smig's archive: a compressed, deduplicated copy of every session file, which outlives
the agents' own cleanup (Claude Code deletes transcripts after `cleanupPeriodDays`).

Each file is cut at fixed offsets into pieces of `PIECE` bytes; each piece is stored once, as a zstd
frame named by the sha256 of its bytes, under `<data>/archive/pieces/`. Identical files (Codex
moving a rollout to `archived_sessions/`) therefore share every piece, and a file that only grew
stores only its new bytes plus a new copy of its last, partial piece. `manifest.json` maps each file
to its pieces and to the listing entry its reader gave. Sources are only ever read; archive files
are 0600, written atomically, under a lock.

OpenCode keeps every session in one SQLite database (`<db>#<id>` paths): each session is archived
as a small database of its own rows, read in one transaction, which OpenCode's own reader then
reads like the original.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smig_tui.adapters.agents.profile import Env, RowsUnreadable
from smig_tui.adapters.agents.registry import profile_of, row_ref
from smig_tui.adapters.fs import atomic_write, file_lock
from smig_tui.adapters.zstd_files import DAMAGED, compress, decompress
from smig_tui.core.errors import Hint, SessionNotFoundError, SmigError, WriteRefusedError
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo
from smig_tui.core.ports import (
    Appended,
    AppendReader,
    CachedIds,
    DirectLister,
    HistoryReader,
    LineageReader,
    ResumePoint,
    SessionSource,
    WarningSink,
    Watched,
    WatchedFiles,
)

if TYPE_CHECKING:
    from smig_tui.adapters.agents.profile import AgentProfile
    from smig_tui.adapters.paths import Paths

PIECE = 1 << 20
"""Files are cut at multiples of this offset; growth rewrites at most one piece."""
ROWS_PREFIX = ".rows-"
"""The name a database session's copy starts with while it is made in the archive's folder."""
MANIFEST_VERSION = 1


@dataclass
class ArchivedFile:
    """One archived session file: where it was, what it held, and its pieces."""

    path: str
    agent: str
    session_id: str
    home: str | None
    """The agent's home when it was archived; a restore puts the file at the same place under the current one."""
    size: int
    mtime: float
    sha256: str
    pieces: list[str]
    info: dict[str, Any] = field(default_factory=dict)
    """The listing entry the agent's reader gave, so the session lists with its title and cwd."""

    @property
    def relative(self) -> str | None:
        """The file's path inside the agent's home, when it was inside it."""
        if self.home and _inside(self.path, self.home):
            return os.path.relpath(self.path, self.home)
        return None


@dataclass
class ArchiveRun:
    """What one archive pass did (or, with `dry_run`, would do)."""

    new: int = 0
    grown: int = 0
    changed: int = 0
    unchanged: int = 0
    bytes_read: int = 0
    bytes_stored: int = 0
    """Compressed bytes of the pieces this run added (pieces already held cost nothing)."""
    listed: set[str] = field(default_factory=set, repr=False)
    """The paths the sources listed (a session inside a database has no file of its own to look for)."""

    @property
    def touched(self) -> int:
        """Files this run archived."""
        return self.new + self.grown + self.changed


@dataclass
class ArchiveStatus:
    """What the archive holds and what a run would add."""

    sessions: int
    original_bytes: int
    stored_bytes: int
    originals_missing: int
    pending: ArchiveRun


class Archive:
    """The archive under `folder` (`<data>/archive/`)."""

    def __init__(self, folder: Path, homes: Mapping[str, Path]) -> None:
        self.folder = folder
        self.homes = {agent: Path(home) for agent, home in homes.items()}
        """Each agent's home, where a restore puts a file back."""
        self._manifest_path = folder / "manifest.json"
        self._parsed: tuple[tuple[int, int], dict[str, ArchivedFile]] | None = None

    # --- the manifest ----------------------------------------------------------------------------

    @property
    def manifest(self) -> Path:
        """The file that lists every archived file."""
        return self._manifest_path

    def entries(self) -> dict[str, ArchivedFile]:
        """Every archived file by its original path (the manifest is parsed once while it is unchanged)."""
        try:
            stat = self._manifest_path.stat()
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise SmigError(f"The archive manifest {self._manifest_path} cannot be read ({error}).") from None
        if self._parsed is None or self._parsed[0] != (stat.st_mtime_ns, stat.st_size):
            self._parsed = ((stat.st_mtime_ns, stat.st_size), self._parse())
        return dict(self._parsed[1])

    def _parse(self) -> dict[str, ArchivedFile]:
        try:
            raw = json.loads(self._manifest_path.read_text(encoding="utf-8"))
            if not isinstance(raw, dict) or raw.get("version") != MANIFEST_VERSION:
                raise SmigError(f"The archive manifest {self._manifest_path} is of an unknown version.")
            return {path: ArchivedFile(**entry) for path, entry in raw.get("files", {}).items()}
        except (OSError, ValueError, TypeError) as error:
            raise SmigError(f"The archive manifest {self._manifest_path} cannot be read ({error}).") from None

    def _save(self, files: Mapping[str, ArchivedFile]) -> None:
        document = {"version": MANIFEST_VERSION, "files": {path: asdict(entry) for path, entry in files.items()}}
        atomic_write(self._manifest_path, json.dumps(document, ensure_ascii=False), mode=0o600)

    # --- archiving -------------------------------------------------------------------------------

    def run(self, sources: list[SessionSource], warn: WarningSink, dry_run: bool = False) -> ArchiveRun:
        """Archive every session file the sources list that is new or changed since the last run."""
        run = ArchiveRun()
        with file_lock(self.folder / "archive.lock", timeout=0.0, what="the archive"):
            if not dry_run:
                self._sweep_rows_copies()
            files = self.entries()
            for source in sources:
                for info in source.discover(warn):
                    in_database = row_ref(info.path) is not None
                    if info.archived or not (in_database or os.path.isfile(info.path)):
                        continue
                    run.listed.add(info.path)
                    old = files.get(info.path)
                    if old is not None and _unchanged(old, info, in_database):
                        run.unchanged += 1
                        continue
                    if dry_run:
                        kind = "new" if old is None else ("grown" if info.size > old.size else "changed")
                        setattr(run, kind, getattr(run, kind) + 1)
                        run.bytes_read += info.size - (old.size if kind == "grown" and old else 0)
                        continue
                    try:
                        if in_database:
                            files[info.path] = self._archive_rows(info, old, run)
                        else:
                            files[info.path] = self._archive_file(info, old, run)
                    except OSError as error:
                        warn(ReadWarning(info.path, None, f"not archived: {error.strerror or error}"))
                    except RowsUnreadable as error:
                        warn(ReadWarning(info.path, None, f"not archived: {error}"))
                    if run.touched % 50 == 0:
                        self._save(files)  # a long first run keeps what it did if it is stopped
            if not dry_run and run.touched:
                self._save(files)
        return run

    def _archive_file(self, info: SessionInfo, old: ArchivedFile | None, run: ArchiveRun) -> ArchivedFile:
        """Store the pieces of one file; one that only grew stores only from its last full piece on."""
        stat = os.stat(info.path)
        with open(info.path, "rb") as handle:
            prefix = self._unchanged_prefix(handle, old) if old is not None and stat.st_size >= old.size else None
            if prefix is not None and old is not None:
                digest, keep = prefix
                pieces, start, kind = old.pieces[:keep], keep * PIECE, "grown"
            else:
                digest, pieces, start, kind = hashlib.sha256(), [], 0, "new" if old is None else "changed"
            handle.seek(start)
            read, stored = self._store_rest(handle, digest, run)
        setattr(run, kind, getattr(run, kind) + 1)
        return self._entry(info, start + read, stat.st_mtime, digest.hexdigest(), pieces + stored)

    def _archive_rows(self, info: SessionInfo, old: ArchivedFile | None, run: ArchiveRun) -> ArchivedFile:
        """Store one database session as a database of its own rows (a consistent snapshot), made in a
        temporary file in the archive's folder (never beside the agent's database) and stored a piece at
        a time; the file is deleted whatever happens (one a killed run left, by the next run)."""
        import tempfile  # as fs does: not needed by a start that archives no database session

        ref = row_ref(info.path)
        descriptor, name = tempfile.mkstemp(prefix=ROWS_PREFIX, suffix=".db", dir=self.folder)
        copy = Path(name)
        try:
            os.close(descriptor)
            if ref is not None:
                ref.refs.snapshot(ref.database, ref.session_id, copy)
            kind = "new" if old is None else "changed"
            setattr(run, kind, getattr(run, kind) + 1)
            digest = hashlib.sha256()
            with open(copy, "rb") as rows:
                size, pieces = self._store_rest(rows, digest, run)
        finally:
            copy.unlink(missing_ok=True)
        return self._entry(info, size, info.mtime, digest.hexdigest(), pieces)

    def _store_rest(self, handle: Any, digest: Any, run: ArchiveRun) -> tuple[int, list[str]]:
        """Store what is left of `handle` a piece at a time, each added to `digest`: the bytes read (also
        counted in `run`) and the pieces' names."""
        read = 0
        stored: list[str] = []
        while piece := handle.read(PIECE):
            digest.update(piece)
            read += len(piece)
            stored.append(self._store_piece(piece, run))
        run.bytes_read += read
        return read, stored

    def _entry(self, info: SessionInfo, size: int, mtime: float, sha256: str, pieces: list[str]) -> ArchivedFile:
        """The manifest's entry for a session stored as `pieces`."""
        home = self.homes.get(info.agent.value)
        entry_info = {key: value for key, value in info.as_dict().items() if key != "archived"}
        return ArchivedFile(
            info.path, info.agent.value, info.id, str(home) if home else None, size, mtime, sha256, pieces, entry_info
        )

    def _sweep_rows_copies(self) -> None:
        """Delete the rows' copies a killed run left (under the lock: no run is making one)."""
        for leftover in self.folder.glob(f"{ROWS_PREFIX}*.db"):
            with contextlib.suppress(OSError):
                leftover.unlink()

    def _unchanged_prefix(self, handle: Any, old: ArchivedFile) -> tuple[Any, int] | None:
        """If the file still starts with the bytes archived before (append-only growth): the hash of its
        full pieces, to continue from, and how many there are; else None."""
        digest = hashlib.sha256()
        keep = old.size // PIECE
        at_last_full_piece = digest.copy()
        for index in range(keep + 1):
            if index == keep:
                at_last_full_piece = digest.copy()
            chunk = handle.read(PIECE if index < keep else old.size - keep * PIECE)
            if index < keep and len(chunk) < PIECE:
                return None
            digest.update(chunk)
        return (at_last_full_piece, keep) if digest.hexdigest() == old.sha256 else None

    def _piece_path(self, name: str) -> Path:
        return self.folder / "pieces" / name[:2] / f"{name}.zst"

    def _store_piece(self, piece: bytes, run: ArchiveRun) -> str:
        name = hashlib.sha256(piece).hexdigest()
        target = self._piece_path(name)
        if not target.exists():
            packed = compress(piece)
            atomic_write(target, packed, mode=0o600)
            run.bytes_stored += len(packed)
        return name

    # --- reading back ----------------------------------------------------------------------------

    def content(self, entry: ArchivedFile) -> bytes:
        """The archived bytes of a file, checked against its sha256."""
        return b"".join(self.pieces(entry))

    def pieces(self, entry: ArchivedFile) -> Iterator[bytes]:
        """The archived bytes of a file a piece at a time, checked against its sha256 after the last one: a
        write of them (`atomic_write`) stops before its rename, so a damaged copy is never used. A restore
        or readable copy of a 500 MB session held it whole, then hashed it."""
        digest = hashlib.sha256()
        for name in entry.pieces:
            try:
                piece = decompress(self._piece_path(name).read_bytes())
            except (OSError, ValueError, *DAMAGED) as error:
                raise SmigError(f"The archived copy of {entry.path} is damaged or incomplete ({error}).") from None
            digest.update(piece)
            yield piece
        if digest.hexdigest() != entry.sha256:
            raise SmigError(f"The archived copy of {entry.path} does not match its checksum; it was not used.")

    def status(self, sources: list[SessionSource], warn: WarningSink) -> ArchiveStatus:
        """How many sessions and bytes the archive holds, and what a run would add (reads no session)."""
        files = self.entries()
        stored = sum(path.stat().st_size for path in (self.folder / "pieces").rglob("*.zst")) if files else 0
        pending = self.run(sources, warn, dry_run=True)
        missing = sum(1 for entry in files.values() if not _still_there(entry, pending.listed))
        return ArchiveStatus(len(files), sum(e.size for e in files.values()), stored, missing, pending)

    def find(self, ref: str) -> ArchivedFile:
        """The newest archived file of a session id or unique id prefix."""
        matches = [e for e in self.entries().values() if e.session_id == ref or e.session_id.startswith(ref)]
        if not matches:
            raise SessionNotFoundError(f"No archived session matches {ref!r}.", hint=Hint.LIST_ARCHIVED)
        if len({e.session_id for e in matches}) > 1:
            shown = ", ".join(sorted({e.session_id for e in matches})[:5])
            raise SessionNotFoundError(f"{ref!r} matches several archived sessions ({shown}); give more of the id.")
        return max(matches, key=lambda e: e.mtime)

    def restore_target(self, entry: ArchivedFile) -> Path:
        """Where a restore writes the file: its place under the agent's current home, else its old path."""
        home = self.homes.get(entry.agent)
        if home is not None and entry.relative is not None:
            return home / entry.relative
        return Path(entry.path)

    def restore(self, ref: str) -> Path:
        """Write an archived session back where its agent looks for it, never over an existing file."""
        entry = self.find(ref)
        profile = profile_of(entry.agent)
        if profile is not None and profile.restore_refused:
            raise WriteRefusedError(
                f"Restoring {profile.name} session {entry.session_id} is not supported: {profile.restore_refused}."
            )
        target = self.restore_target(entry)
        if target.exists() or target.is_symlink():
            raise WriteRefusedError(f"Refusing to restore over existing file {target}.")
        atomic_write(target, self.pieces(entry), mode=0o600, overwrite=False, mtime=entry.mtime)
        return target

    def view(self, entry: ArchivedFile, view_root: Path) -> Path:
        """A readable copy of an archived file under `view_root` (made once), for the agent's reader."""
        if row_ref(entry.path) is not None:  # one session of a database: a database file of its own
            relative = hashlib.sha256(entry.path.encode()).hexdigest()[:16] + f"-{entry.session_id}.db"
        else:
            relative = (
                entry.relative or hashlib.sha256(entry.path.encode()).hexdigest()[:16] + "-" + Path(entry.path).name
            )
        target = view_root / entry.agent / relative
        if not (target.is_file() and target.stat().st_size == entry.size):
            atomic_write(target, self.pieces(entry), mode=0o600, mtime=entry.mtime)
        return target


class ArchivedSource:
    """An agent's reader plus its archived sessions whose originals the agent deleted.

    Those list after the live ones, marked `archived`, read from a copy in smig's cache by the
    agent's own reader; everything else (search, plan, migrate, export) then works unchanged.
    """

    def __init__(self, inner: SessionSource, archive: Archive, view_root: Path) -> None:
        self.archive = archive
        self.view_root = view_root
        self._agent = inner.agent
        self._inner: SessionSource | None = None
        self._build: Callable[[], SessionSource | None] | None = None
        self._watched: Callable[[], list[Watched]] | None = None
        self._adopt(inner)

    @classmethod
    def deferred(
        cls, profile: AgentProfile, paths: Paths, env: Env, archive: Archive, view_root: Path
    ) -> ArchivedSource:
        """The wrapper of an agent whose profile names what its listing reads (`AgentProfile.watched`):
        its reader is built, and its code imported, on first use, so a search whose index is fresh
        imports and builds no reader at all."""
        if profile.watched is None:
            raise ValueError(f"{profile.id} names no watched files")
        wrapper = cls.__new__(cls)
        wrapper.archive = archive
        wrapper.view_root = view_root
        wrapper._agent = profile.agent
        wrapper._inner = None
        wrapper._build = partial(profile.source, paths, env)  # a module's function: picklable for workers
        wrapper._watched = partial(profile.watched, paths, env)
        return wrapper

    def _adopt(self, inner: SessionSource) -> SessionSource:
        self._inner = inner
        if isinstance(inner, LineageReader):  # a fork whose parent the agent deleted reads it from here
            inner.use_archived_copies(self.archived_copies)
        return inner

    @property
    def inner(self) -> SessionSource:
        """The agent's own reader (built now if it was deferred)."""
        if self._inner is not None:
            return self._inner
        built = self._build() if self._build is not None else None
        if built is None:
            raise SmigError(f"smig has no reader of {self._agent.value} sessions here.")
        return self._adopt(built)

    def archived_copies(self, session_id: str) -> list[str]:
        """Readable copies of the archived files of a session whose originals are gone, oldest first."""
        try:
            entries = self.archive.entries()
        except SmigError:
            return []  # the listing reports an unreadable manifest
        gone = [
            entry
            for entry in entries.values()
            if entry.agent == self.agent.value and entry.session_id == session_id and not _file_exists(entry.path)
        ]
        copies = []
        for entry in gone:
            try:
                copies.append(str(self.archive.view(entry, self.view_root)))
            except (SmigError, OSError):
                continue  # a damaged copy: the child reads as if the parent were not archived
        return sorted(copies, key=os.path.basename)

    @property
    def agent(self) -> Agent:
        """The wrapped reader's agent."""
        return self._agent

    def watched(self) -> list[Watched] | None:
        """What the agent's listing reads (as its profile names it, else as its reader does), the
        archive's manifest, and every archived original of this agent's outside them (one that
        disappears brings its archived copy into the listing)."""
        if self._watched is not None:
            inner: list[Watched] | None = self._watched()
        else:
            inner = self.inner.watched() if isinstance(self.inner, WatchedFiles) else None
        if inner is None:
            return None
        places = [*inner, Watched(str(self.archive.manifest))]
        try:
            entries = self.archive.entries()
        except SmigError:
            return places  # unreadable: the manifest's own size and time say when that changes
        trees = tuple(os.path.join(place.path, "") for place in inner if place.tree)
        originals = sorted(
            entry.path
            for entry in entries.values()
            if entry.agent == self.agent.value and not entry.path.startswith(trees)
        )
        return places + [Watched(path) for path in originals if row_ref(path) is None]

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """The live sessions, then the archived ones no live file holds any more."""
        live: set[str] = set()
        for info in self.inner.discover(warn):
            live.add(info.id)
            yield info
        try:
            entries = self.archive.entries()
        except SmigError as error:
            warn(ReadWarning(str(self.archive.folder), None, str(error)))
            return
        newest: dict[str, ArchivedFile] = {}
        for entry in entries.values():
            if entry.agent != self.agent.value or entry.session_id in live or _file_exists(entry.path):
                continue
            if entry.session_id not in newest or entry.mtime > newest[entry.session_id].mtime:
                newest[entry.session_id] = entry
        for entry in newest.values():
            try:
                copy = self.archive.view(entry, self.view_root)
            except (SmigError, OSError) as error:
                warn(ReadWarning(entry.path, None, f"archived copy unusable: {error}"))
                continue
            yield _archived_info(entry, copy)

    def cached_ids(self) -> list[str] | None:
        """The wrapped reader's cached ids and this agent's archived ones; None when the reader has none."""
        live = self.inner.cached_ids() if isinstance(self.inner, CachedIds) else None
        if live is None:
            return None
        try:
            entries = self.archive.entries()
        except SmigError:
            return None  # the listing reports it
        return live + [entry.session_id for entry in entries.values() if entry.agent == self.agent.value]

    def listed_as(self, resolved: str, warn: WarningSink) -> SessionInfo | None:
        """The wrapped reader's entry for one live file, when it can give one without a listing."""
        return self.inner.listed_as(resolved, warn) if isinstance(self.inner, DirectLister) else None

    def listed_with_id(self, prefix: str, warn: WarningSink) -> list[SessionInfo] | None:
        """The wrapped reader's entries by id; None (list) when an archived session may match too."""
        if not isinstance(self.inner, DirectLister):
            return None
        try:
            entries = self.archive.entries()
        except SmigError:
            return None  # the listing reports it
        if any(e.agent == self.agent.value and e.session_id.startswith(prefix) for e in entries.values()):
            return None
        return self.inner.listed_with_id(prefix, warn)

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read a session, live or archived, with the agent's reader."""
        return self.inner.load(info, warn)

    def load_history(self, info: SessionInfo, warn: WarningSink) -> Session:
        """The wrapped reader's whole history (compacted-away turns too) where it has one, else `load`."""
        if isinstance(self.inner, HistoryReader):
            return self.inner.load_history(info, warn)
        return self.inner.load(info, warn)

    def resume_point(self, session: Session) -> ResumePoint | None:
        """The wrapped reader's, when it can read a grown file on (the search index asks)."""
        return self.inner.resume_point(session) if isinstance(self.inner, AppendReader) else None

    def read_appended(
        self, info: SessionInfo, point: ResumePoint, first_position: int, warn: WarningSink
    ) -> Appended | None:
        """The wrapped reader's messages after `point`; None (read it whole) when it cannot read on."""
        if isinstance(self.inner, AppendReader):
            return self.inner.read_appended(info, point, first_position, warn)
        return None


def _archived_info(entry: ArchivedFile, copy: Path) -> SessionInfo:
    """The listing entry of an archived session, pointing at its readable copy."""
    fields = {key: value for key, value in entry.info.items() if key in SessionInfo.__dataclass_fields__}
    fields["agent"] = Agent(entry.agent)
    info = SessionInfo(**fields)
    stat = copy.stat()
    ref = row_ref(entry.path)
    path = ref.refs.join(copy, entry.session_id) if ref is not None else str(copy)
    return replace(info, path=path, size=stat.st_size, mtime=stat.st_mtime, archived=True)


def _inside(path: str, root: str) -> bool:
    return os.path.abspath(path).startswith(os.path.abspath(root).rstrip(os.sep) + os.sep)


def _unchanged(old: ArchivedFile, info: SessionInfo, in_database: bool) -> bool:
    """Tell whether a listed session is as archived: a file by size and mtime, a database session by
    its listing (OpenCode bumps the update time on every change)."""
    if in_database:
        return (old.info.get("mtime"), old.info.get("size")) == (info.mtime, info.size)
    return old.size == info.size and old.mtime == info.mtime


def _file_exists(path: str) -> bool:
    """Tell whether an archived original still exists (a database session: never, as a file)."""
    return row_ref(path) is None and os.path.exists(path)


def _still_there(entry: ArchivedFile, listed: set[str]) -> bool:
    """Tell whether an archived session's original is still around."""
    return entry.path in listed if row_ref(entry.path) is not None else os.path.exists(entry.path)
