"""Provides `CodexSource`: finds and reads OpenAI Codex CLI rollouts (`$CODEX_HOME/sessions`).

Discovery reads only each file's head and tail, plus the thread names and the state DB for titles;
the rollout files stay authoritative. A full load streams the file and rebuilds the model-visible
history the way Codex does on resume: a `compacted` line's replacement history replaces what came
before it, and `thread_rolled_back` drops the newest user turns. The context in use is the last
model call's `total_tokens` (its input, which held the whole context, plus its output, which joins
it). Layout and record shapes: FORMATS.md Part 1.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smig_tui.adapters.agents.codex.home import CodexHome, rollout_roots, sqlite_home_set, state_db_folders
from smig_tui.adapters.agents.codex.lineage import Part, lineage, part_ids
from smig_tui.adapters.agents.codex.scan import (
    Head,
    Tail,
    ThreadRow,
    find_state_db,
    iso_or_none,
    read_session_index,
    read_state_db,
    scan_head,
    scan_tail,
    thread_id_of,
    walk_rollouts,
)
from smig_tui.adapters.gc_pause import no_cyclic_gc
from smig_tui.adapters.jsonl import iter_lines
from smig_tui.adapters.storage.discovery_cache import DiscoveryCache, cached_ids
from smig_tui.adapters.zstd_files import DAMAGED, is_compressed
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo
from smig_tui.core.ports import NAMED_AT_MOST, Appended, ResumePoint, WarningSink
from smig_tui.core.timeline import later, written_at
from smig_tui.core.words import title_line

if TYPE_CHECKING:  # the reading code is imported when a rollout is read, not on every listing
    from smig_tui.adapters.agents.codex.load import RolloutLoader

TITLE_MAX = 120
INTERACTIVE_SOURCES = frozenset({"cli", "vscode", "unknown"})
"""Codex's own picker shows these; exec, mcp, custom, internal and sub-agent threads are hidden."""


class CodexSource:
    """Reads Codex CLI sessions from `$CODEX_HOME` without ever writing to it."""

    def __init__(self, home: CodexHome, sqlite_home: Path | None = None, listing_cache: Path | None = None) -> None:
        self._home = home
        self._listing_cache = listing_cache
        """Where discovery remembers unchanged files' entries (None: read every file)."""
        self._sqlite_home = sqlite_home or sqlite_home_set()
        self._archived: Callable[[str], list[str]] | None = None
        """Readable copies of a thread's archived files, for forks whose parent Codex deleted."""

    def use_archived_copies(self, copies: Callable[[str], list[str]]) -> None:
        """Read a fork's inherited history from smig's archive when Codex deleted the parent's rollout."""
        self._archived = copies

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        return Agent("codex")

    def cached_ids(self) -> list[str] | None:
        """The ids its last listing found, from the listing cache (no folder read); None without one."""
        return cached_ids(self._listing_cache) if self._listing_cache else None

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every readable rollout, newest first, from heads and tails only."""
        home = self._home.root
        if not home.is_dir():
            return
        files = walk_rollouts(self._roots(), warn)
        names = read_session_index(home / "session_index.jsonl", warn)
        threads = self._threads(warn)
        cache = DiscoveryCache(self._listing_cache) if self._listing_cache else None
        listed: set[str] = set()
        known = {thread_id_of(path) for path in files}
        for path in files:
            if cache is None:
                info = self.describe(path, warn)
            else:
                info = cache.lookup(path, lambda: self.describe(path, warn))  # noqa: B023 (called at once)
            if info is not None and info.id not in listed:
                listed.add(info.id)  # a thread of several files: its newest file stands for it
                if _orphaned_fork(info, known) and not (self._archived and self._archived(str(info.parent_id))):
                    warn(
                        ReadWarning(
                            info.path,
                            None,
                            f"forked from thread {info.parent_id}, whose rollout is "
                            "not found; the history it inherited is missing",
                        )
                    )
                yield _with_title(info, names.get(info.id), threads.get(info.id))
        if cache is not None:
            cache.save()

    def listed_as(self, resolved: str, warn: WarningSink) -> SessionInfo | None:
        """The entry `discover` gives the rollout at `resolved`, from a walk of names and one head and tail.

        None (list the home) when the file is not among the rollouts, or a newer file of its thread
        stands for it in the listing.
        """
        files = walk_rollouts(self._roots(), warn)
        name = os.path.basename(resolved)
        for index, path in enumerate(files):
            if os.path.basename(path) == name and os.path.realpath(path) == resolved:
                stands = _newest_of_threads(files).get(thread_id_of(path) or "") == index
                return self._entries(files, [index], warn)[0] if stands else None
        return None

    def listed_with_id(self, prefix: str, warn: WarningSink) -> list[SessionInfo] | None:
        """The threads whose id (in the rollout's name) starts with `prefix`, newest first."""
        files = walk_rollouts(self._roots(), warn)
        chosen = sorted(index for thread, index in _newest_of_threads(files).items() if thread.startswith(prefix))
        if len(chosen) > NAMED_AT_MOST:
            return None
        entries = self._entries(files, chosen, warn)
        return None if None in entries else [info for info in entries if info is not None]

    def _entries(self, files: list[str], chosen: list[int], warn: WarningSink) -> list[SessionInfo | None]:
        """The listing entries of the chosen files, titled as `discover` titles them; None for a file
        whose head disagrees with its name (only a listing can place it) or that cannot be listed."""
        if not chosen:
            return []
        cache = DiscoveryCache(self._listing_cache) if self._listing_cache else None
        names = read_session_index(self._home.root / "session_index.jsonl", warn)
        threads = self._threads(warn)
        entries: list[SessionInfo | None] = []
        for index in chosen:
            path = files[index]
            info = cache.lookup(path, lambda: self.describe(path, warn)) if cache else self.describe(path, warn)  # noqa: B023
            ok = info is not None and info.id == thread_id_of(path)
            entries.append(_with_title(info, names.get(info.id), threads.get(info.id)) if info and ok else None)
        return entries

    def _roots(self) -> list[Path]:
        """Where rollouts live: live and archived threads."""
        return rollout_roots(self._home)

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read a thread in full, streaming it, into the model-visible conversation.

        The history it inherited (a fork's parent up to the fork, earlier files of the thread) is
        read first, as Codex replays it; a compressed file is read through the zstd stream.
        """
        return self._load(info, warn, keep_compacted=False)

    def load_history(self, info: SessionInfo, warn: WarningSink) -> Session:
        """`load`, keeping what each compaction took out of the history in `compacted_away` (for search)."""
        return self._load(info, warn, keep_compacted=True)

    def _load(self, info: SessionInfo, warn: WarningSink, keep_compacted: bool) -> Session:
        """Read a thread in full (see `load`)."""
        from smig_tui.adapters.agents.codex.load import RolloutLoader

        warnings: list[ReadWarning] = []

        def sink(warning: ReadWarning) -> None:
            warnings.append(warning)
            warn(warning)

        loader = RolloutLoader(info.path, keep_compacted)
        try:
            meta = scan_head(info.path).meta
            parts = (
                lineage(info.path, meta, self._roots(), sink, self._archived) if meta else [Part(info.path, info.id)]
            )
            with no_cyclic_gc():
                if meta:
                    loader.adopt_meta(meta)
                for part, prefix in part_ids(parts):
                    _feed(loader, part, prefix, sink)
                session = loader.finish(info, tuple(warnings))  # copies a message per model call: still paused
        except DAMAGED as error:
            raise SessionReadError(f"Cannot read {info.path}: the compressed rollout is damaged ({error}).") from error
        except BrokenPipeError:
            raise  # the warning sink's reader went away; the CLI handles that
        except OSError as error:
            raise SessionReadError(f"Cannot read {info.path}: {error.strerror or error}.") from error
        return session

    def resume_point(self, session: Session) -> ResumePoint | None:
        """Where the search index may read this rollout on from after a full load (None: compressed)."""
        from smig_tui.adapters.append_resume import resume_point

        if is_compressed(session.info.path):
            return None
        return resume_point(session.info, known=_last_own_line(session))

    def read_appended(
        self, info: SessionInfo, point: ResumePoint, first_position: int, warn: WarningSink
    ) -> Appended | None:
        """The messages of the lines the rollout gained after `point` (see `appended.read_appended`)."""
        from smig_tui.adapters.agents.codex.appended import read_appended

        return read_appended(info.path, point, first_position, warn)

    def _threads(self, warn: WarningSink) -> dict[str, ThreadRow]:
        """Titles and models from the state DB, when there is one."""
        path = find_state_db(state_db_folders(self._home, self._sqlite_home))
        return read_state_db(path, warn) if path else {}

    def describe(self, path: str, warn: WarningSink) -> SessionInfo | None:
        """Build one listing entry from the file's head and tail, or say why it cannot be listed."""
        try:
            stat = os.stat(path)
            if stat.st_size == 0:
                warn(ReadWarning(path, None, "empty rollout file; skipped"))
                return None
            head = scan_head(path)
            tail = scan_tail(path, stat.st_size)
        except OSError as error:
            warn(ReadWarning(path, None, f"cannot read ({error.strerror or error}); skipped"))
            return None
        except DAMAGED as error:
            warn(ReadWarning(path, None, f"compressed rollout is damaged ({error}); skipped"))
            return None
        if not head.meta or not isinstance(head.meta.get("id"), str):
            warn(ReadWarning(path, None, "no session_meta line at the start; not a Codex rollout, skipped"))
            return None
        return _info(path, head, tail, stat.st_size, stat.st_mtime)


def _newest_of_threads(files: list[str]) -> dict[str, int]:
    """Each thread's newest file (by the id in names, files newest first): the one the listing shows."""
    newest: dict[str, int] = {}
    for index, path in enumerate(files):
        thread = thread_id_of(path)
        if thread is not None:
            newest.setdefault(thread, index)
    return newest


def _orphaned_fork(info: SessionInfo, known: set[str | None]) -> bool:
    """Tell whether a thread inherits its history (`history_base`) from a parent with no rollout left.

    Older forks copied their parent's items and sub-agents never shared their parent's history, so
    only a missing parent of a `history_base` costs turns; the head is read only in that rare case.
    """
    if not info.parent_id or info.parent_id in known:
        return False
    try:
        base = scan_head(info.path).meta.get("history_base")
    except (OSError, *DAMAGED):
        return False
    return isinstance(base, dict) and base.get("thread_id") == info.parent_id


def _feed(loader: RolloutLoader, part: Part, prefix: str, warn: WarningSink) -> None:
    """Feed one file of the lineage to the loader, up to where the child inherited it.

    A damaged compressed file keeps what was read before the damage, with a warning.
    """
    from smig_tui.adapters.agents.codex.load import feed_lines
    from smig_tui.adapters.agents.codex.split import feed_split
    from smig_tui.adapters.split_read import split_offset

    loader.begin_file(part.path, prefix)
    whole = part.end_byte is None and part.end_ordinal is None and not is_compressed(part.path)
    split = split_offset(part.path, os.stat(part.path).st_size) if whole else None
    if split is not None:
        feed_split(loader, part.path, split, warn)
        return
    try:
        feed_lines(loader, iter_lines(part.path), part.path, warn, part.ends_before)
    except DAMAGED as error:
        warn(ReadWarning(part.path, None, f"compressed rollout is damaged ({error}); read up to the damage"))


def _last_own_line(session: Session) -> tuple[int, int] | None:
    """The line number and offset of the last message read from the thread's own file (its id is
    `L<line>`; an inherited part's carry the part's prefix), where its resume point counts lines from."""
    for message in reversed(session.messages):
        if message.id.startswith("L") and message.line is not None and message.offset is not None:
            return message.line, message.offset
    return None


def _info(path: str, head: Head, tail: Tail, size: int, mtime: float) -> SessionInfo:
    """Combine head, tail and file facts into a SessionInfo."""
    meta = head.meta
    cwd = meta.get("cwd") if isinstance(meta.get("cwd"), str) else head.cwd
    usage = tail.last_usage or {}
    context = usage.get("total_tokens")
    subagent, parent, origin = classify(meta)
    return SessionInfo(
        id=str(meta["id"]),
        agent=Agent("codex"),
        path=path,
        cwd=cwd,
        title=title_line(head.prompt or head.typed, TITLE_MAX),
        model=tail.model or head.model,
        created=iso_or_none(meta.get("timestamp")),
        updated=later(tail.updated or iso_from_mtime(mtime), written_at(_smig_migration(meta))),
        source_version=meta.get("cli_version") if isinstance(meta.get("cli_version"), str) else None,
        origin=origin,
        parent_id=parent,
        is_subagent=subagent,
        size=size,
        mtime=mtime,
        context_tokens=context if isinstance(context, int) and context > 0 else None,
        context_window=tail.window,
        project=cwd,
        git_branch=_branch(meta),
    )


def _branch(meta: dict[str, Any]) -> str | None:
    """The branch `session_meta.git` records (Codex writes it when the folder is a git repository)."""
    git = meta.get("git")
    branch = git.get("branch") if isinstance(git, dict) else None
    return branch if isinstance(branch, str) and branch else None


def _smig_migration(meta: dict[str, Any]) -> object:
    """The migration id of a rollout smig wrote (its `smig_lineage`), else None."""
    lineage = meta.get("smig_lineage")
    return lineage.get("migration_id") if isinstance(lineage, dict) else None


def classify(meta: dict[str, Any]) -> tuple[bool, str | None, str | None]:
    """Return (hidden as sub-agent or non-interactive, parent id, origin label) for a meta."""
    source = meta.get("source", "vscode")  # serde default when the field is absent
    parent = meta.get("forked_from_id") or meta.get("parent_thread_id")
    if isinstance(source, dict) and source:
        key = next(iter(source))
        detail = source[key]
        if isinstance(detail, dict) and detail:
            sub_key = next(iter(detail))
            spawn = detail[sub_key]
            if isinstance(spawn, dict) and spawn.get("parent_thread_id"):
                parent = spawn["parent_thread_id"]
            label = f"{key}:{sub_key}"
        else:
            label = f"{key}:{detail}" if isinstance(detail, str) else str(key)
        hidden = True
    else:
        label = str(source)
        hidden = label not in INTERACTIVE_SOURCES
    if meta.get("thread_source") in ("subagent", "memory_consolidation") or meta.get("originator") == "codex_exec":
        hidden = True
    return hidden, parent if isinstance(parent, str) and parent else None, label


def _with_title(info: SessionInfo, name: str | None, row: ThreadRow | None) -> SessionInfo:
    """Prefer the user's thread name, then the state DB title, then the first prompt."""
    title = title_line(name, TITLE_MAX) or (row and title_line(row.title, TITLE_MAX)) or info.title
    if not title and row:
        title = title_line(row.first_user_message, TITLE_MAX)
    model = info.model or (row.model if row else None)
    if (title or None) == info.title and model == info.model:
        return info  # the usual case: no name, no database row; `replace` costs more than the lookup
    return replace(info, title=title or None, model=model)


def iso_from_mtime(mtime: float) -> str:
    """Render a file mtime as ISO 8601 UTC with milliseconds, the way Codex writes timestamps."""
    moment = datetime.fromtimestamp(mtime, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
