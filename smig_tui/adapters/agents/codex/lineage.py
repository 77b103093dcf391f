"""Provides `lineage`: which rollout files, cut where, make up one Codex thread's history.

Codex 0.146+ records a fork's parent as `session_meta.history_base` (`thread_id`,
`end_ordinal_exclusive`, `end_byte_offset`) instead of copying the parent's items: on resume or
fork it replays the parent's file up to that point, then the thread's own. One thread can also own
several rollout files; the earlier ones come first. Checked against Codex 0.171.0's requests
(tests/fixtures/real/codex). A parent Codex deleted is read from smig's archive when it holds it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.codex.scan import scan_head, thread_id_of, walk_rollouts
from smig_tui.adapters.zstd_files import DAMAGED
from smig_tui.core.models import ReadWarning
from smig_tui.core.ports import WarningSink


@dataclass(frozen=True, slots=True)
class Part:
    """One file of a thread's history, read up to `end_byte` (decompressed bytes) when set."""

    path: str
    thread_id: str
    end_byte: int | None = None
    end_ordinal: int | None = None

    def ends_before(self, offset: int, data: dict[str, Any]) -> bool:
        """Tell whether the line at `offset` lies past the point the child thread inherited."""
        if self.end_byte is not None:
            return offset >= self.end_byte
        ordinal = data.get("ordinal")
        return self.end_ordinal is not None and isinstance(ordinal, int) and ordinal >= self.end_ordinal


def lineage(
    path: str,
    meta: dict[str, Any],
    roots: list[Path],
    warn: WarningSink,
    archived: Callable[[str], list[str]] | None = None,
) -> list[Part]:
    """The files to read for the thread in `path`, oldest first, ending with `path` itself.

    A thread with no file left under `roots` is looked up in `archived` (readable copies of its
    archived files, oldest first). A parent that is gone, unreadable or loops back is one warning;
    the history read so far stands.
    """
    remembered = _walked_before(roots, path)
    if remembered is not None:
        warnings: list[ReadWarning] = []
        parts = _lineage(path, meta, remembered, warnings.append, archived)
        if not warnings:  # else a file that walk found may be gone, or one it missed be back: walk again
            return parts
    return _lineage(path, meta, _files_by_thread(roots), warn, archived)


def _lineage(
    path: str,
    meta: dict[str, Any],
    files: dict[str, list[str]],
    warn: WarningSink,
    archived: Callable[[str], list[str]] | None,
) -> list[Part]:
    own_id = str(meta.get("id") or thread_id_of(path) or "")
    parts = [Part(path, own_id)]
    visited = {os.path.realpath(path)}
    current, current_meta = path, meta
    while True:
        step = _parent(current, current_meta, _with_archived(files, current_meta, archived), warn)
        if step is None:
            return parts
        if os.path.realpath(step.path) in visited:
            warn(ReadWarning(current, None, f"history lineage loops back to {step.path}; stopped there"))
            return parts
        visited.add(os.path.realpath(step.path))
        try:
            parent_meta = scan_head(step.path).meta
        except (OSError, *DAMAGED) as error:
            warn(ReadWarning(step.path, None, f"cannot read the inherited history ({error}); it is missing"))
            return parts
        parts.insert(0, step)
        current, current_meta = step.path, parent_meta


def _parent(path: str, meta: dict[str, Any], files: dict[str, list[str]], warn: WarningSink) -> Part | None:
    """The file `path` continues from: its history base, else an earlier file of the same thread."""
    own_id = str(meta.get("id") or thread_id_of(path) or "")
    base = meta.get("history_base")
    name = os.path.basename(path)
    if isinstance(base, dict) and isinstance(base.get("thread_id"), str) and base["thread_id"]:
        parent_id = base["thread_id"]
        candidates = files.get(parent_id, [])
        if parent_id == own_id:
            candidates = [c for c in candidates if os.path.basename(c) < name]
        if not candidates:
            warn(
                ReadWarning(
                    path,
                    None,
                    f"forked from thread {parent_id}, whose rollout is not found; the history it inherited is missing",
                )
            )
            return None
        return Part(
            candidates[-1], parent_id, _count(base.get("end_byte_offset")), _count(base.get("end_ordinal_exclusive"))
        )
    earlier = [c for c in files.get(own_id, []) if os.path.basename(c) < name]
    return Part(earlier[-1], own_id) if earlier else None


def _with_archived(
    files: dict[str, list[str]], meta: dict[str, Any], archived: Callable[[str], list[str]] | None
) -> dict[str, list[str]]:
    """`files`, with the archived copies of the thread `meta` forks from when none of its files is left."""
    base = meta.get("history_base")
    parent = base.get("thread_id") if isinstance(base, dict) else None
    if archived is None or not isinstance(parent, str) or not parent or files.get(parent):
        return files
    copies = archived(parent)
    return {**files, parent: copies} if copies else files


def _count(value: Any) -> int | None:
    """Keep a non-negative integer."""
    return value if isinstance(value, int) and value >= 0 else None


_last_walk: tuple[tuple[Path, ...], frozenset[str], dict[str, list[str]]] | None = None
"""The roots last walked, the files found and them by thread: loading every rollout of a home (the
search index's first build) walked the whole tree once per rollout, a thousand rollouts 7 s of CPU."""


def _walked_before(roots: list[Path], path: str) -> dict[str, list[str]] | None:
    """The last walk of `roots` by thread, when it found `path`: the files a thread's history comes
    from are older than the thread's own file, so that walk saw them (one gone since is noticed)."""
    if _last_walk is None or _last_walk[0] != tuple(roots) or path not in _last_walk[1]:
        return None
    return _last_walk[2]


def _files_by_thread(roots: list[Path]) -> dict[str, list[str]]:
    """Every rollout file by the thread id in its name, oldest first (names start with the time)."""
    global _last_walk
    files: dict[str, list[str]] = {}
    found = walk_rollouts(roots, _ignore)
    for path in reversed(found):
        thread = thread_id_of(path)
        if thread:
            files.setdefault(thread, []).append(path)
    _last_walk = (tuple(roots), frozenset(found), files)
    return files


def _ignore(_: ReadWarning) -> None:
    """Folder problems are reported by discovery; a load does not repeat them."""


def part_ids(parts: list[Part]) -> Iterator[tuple[Part, str]]:
    """Each part with the prefix its message ids get: none for the thread's own file."""
    for number, part in enumerate(parts):
        yield part, "" if number == len(parts) - 1 else f"{part.thread_id}@{number}:"
