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
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from smig_tui.adapters.formats.codex_load import RolloutLoader
from smig_tui.adapters.formats.codex_scan import (
    Head,
    Tail,
    ThreadRow,
    find_state_db,
    iso_or_none,
    read_session_index,
    read_state_db,
    scan_head,
    scan_tail,
    walk_rollouts,
)
from smig_tui.adapters.jsonl import iter_records, no_cyclic_gc
from smig_tui.adapters.paths import Paths
from smig_tui.adapters.storage.discovery_cache import DiscoveryCache
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo
from smig_tui.core.ports import WarningSink
from smig_tui.core.redact import redact

TITLE_MAX = 120
INTERACTIVE_SOURCES = frozenset({"cli", "vscode", "unknown"})
"""Codex's own picker shows these; exec, mcp, custom, internal and sub-agent threads are hidden."""


class CodexSource:
    """Reads Codex CLI sessions from `$CODEX_HOME` without ever writing to it."""

    def __init__(self, paths: Paths, sqlite_home: Path | None = None,
                 listing_cache: Path | None = None) -> None:
        self._paths = paths
        self._listing_cache = listing_cache
        """Where discovery remembers unchanged files' entries (None: read every file)."""
        env_home = os.environ.get("CODEX_SQLITE_HOME")
        self._sqlite_home = sqlite_home or (Path(env_home) if env_home else None)

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        return Agent.CODEX

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every readable rollout, newest first, from heads and tails only."""
        home = self._paths.codex_home
        if not home.is_dir():
            return
        roots = [self._paths.codex_sessions, home / "archived_sessions"]
        files, compressed = walk_rollouts(roots, warn)
        if compressed:
            warn(
                ReadWarning(
                    str(self._paths.codex_sessions),
                    None,
                    f"{compressed} compressed rollout(s) (.jsonl.zst) skipped: smig cannot read zstd",
                )
            )
        names = read_session_index(home / "session_index.jsonl", warn)
        threads = self._threads(warn)
        cache = DiscoveryCache(self._listing_cache) if self._listing_cache else None
        for path in files:
            if cache is None:
                info = self.describe(path, warn)
            else:
                info = cache.lookup(path, lambda: self.describe(path, warn))  # noqa: B023 (called at once)
            if info is not None:
                yield _with_title(info, names.get(info.id), threads.get(info.id))
        if cache is not None:
            cache.save()

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read a rollout in full, streaming it, into the model-visible conversation."""
        warnings: list[ReadWarning] = []

        def sink(warning: ReadWarning) -> None:
            warnings.append(warning)
            warn(warning)

        loader = RolloutLoader(info.path)
        try:
            with no_cyclic_gc():
                for record in iter_records(info.path, sink, skip=loader.skippable):
                    loader.feed(record)
        except BrokenPipeError:
            raise  # the warning sink's reader went away; the CLI handles that
        except OSError as error:
            raise SessionReadError(
                f"Cannot read {info.path}: {error.strerror or error}."
            ) from error
        return loader.finish(info, tuple(warnings))

    def _threads(self, warn: WarningSink) -> dict[str, ThreadRow]:
        """Titles and models from the state DB, when there is one."""
        folders = [self._sqlite_home] if self._sqlite_home else []
        folders += [self._paths.codex_home, self._paths.codex_home / "sqlite"]
        path = find_state_db(folders)
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
        if not head.meta or not isinstance(head.meta.get("id"), str):
            warn(
                ReadWarning(
                    path, None, "no session_meta line at the start; not a Codex rollout, skipped"
                )
            )
            return None
        return _info(path, head, tail, stat.st_size, stat.st_mtime)


def _info(path: str, head: Head, tail: Tail, size: int, mtime: float) -> SessionInfo:
    """Combine head, tail and file facts into a SessionInfo."""
    meta = head.meta
    cwd = meta.get("cwd") if isinstance(meta.get("cwd"), str) else head.cwd
    usage = tail.last_usage or {}
    context = usage.get("total_tokens")
    subagent, parent, origin = classify(meta)
    return SessionInfo(
        id=str(meta["id"]),
        agent=Agent.CODEX,
        path=path,
        cwd=cwd,
        title=_one_line(head.prompt or head.typed),
        model=tail.model or head.model,
        created=iso_or_none(meta.get("timestamp")),
        updated=tail.updated or iso_from_mtime(mtime),
        source_version=meta.get("cli_version")
        if isinstance(meta.get("cli_version"), str)
        else None,
        origin=origin,
        parent_id=parent,
        is_subagent=subagent,
        size=size,
        mtime=mtime,
        context_tokens=context if isinstance(context, int) and context > 0 else None,
        context_window=tail.window,
        project=cwd,
    )


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
    if (
        meta.get("thread_source") in ("subagent", "memory_consolidation")
        or meta.get("originator") == "codex_exec"
    ):
        hidden = True
    return hidden, parent if isinstance(parent, str) and parent else None, label


def _with_title(info: SessionInfo, name: str | None, row: ThreadRow | None) -> SessionInfo:
    """Prefer the user's thread name, then the state DB title, then the first prompt."""
    title = _one_line(name) or (row and _one_line(row.title)) or info.title
    if not title and row:
        title = _one_line(row.first_user_message)
    model = info.model or (row.model if row else None)
    return replace(info, title=title or None, model=model)


TITLE_HEAD = 4_000
"""How much of a long first prompt is redacted to make its title (the title keeps far less)."""


def _one_line(text: str | None) -> str | None:
    """Collapse whitespace and cut to the title length, secrets redacted first so no cut leaves half of one."""
    if not text:
        return None
    flat = " ".join(redact(text[:TITLE_HEAD]).text.split())
    if not flat:
        return None
    return flat if len(flat) <= TITLE_MAX else flat[: TITLE_MAX - 1] + "…"


def iso_from_mtime(mtime: float) -> str:
    """Render a file mtime as ISO 8601 UTC with milliseconds, the way Codex writes timestamps."""
    moment = datetime.fromtimestamp(mtime, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
