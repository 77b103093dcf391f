"""Provides the listing cache: what discovery found in each session file, kept while the file is unchanged.

Reading a head and a tail of 2,000 files costs seconds of CPU; a warm `smig list` or TUI start
should cost a directory walk and one JSON file. Entries are keyed by path, size and mtime_ns, so an
agent appending to a session (size changes) or rewriting it (mtime changes) invalidates it. Files
discovery cannot list are never cached, so their warnings come back on every run.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import fields
from functools import partial
from pathlib import Path
from typing import Any

from smig_tui import __version__
from smig_tui.adapters.fs import atomic_write
from smig_tui.core.models import Agent, SessionInfo
from smig_tui.core.redact_version import DETECTOR_VERSION

VERSION = f"2:{__version__}"
"""Bumped with smig itself, so a newer reader never trusts an older one's findings (2: titles are redacted).
The detector's own fingerprint is kept beside it (`_version`): titles redacted by other rules are redacted again."""
_FIELDS = frozenset(field.name for field in fields(SessionInfo))


class _Snapshot:
    """One read of a cache file: its rows, and the entries decoded from them so far."""

    __slots__ = ("infos", "rows")

    def __init__(self, rows: dict[str, Any]) -> None:
        self.rows = rows
        self.infos: dict[str, SessionInfo | None] = {}


_READ: dict[Path, tuple[tuple[int, int, int, str], _Snapshot]] = {}
"""The last read of each cache file, kept while the file (inode, size, mtime_ns) and the cache's version
are unchanged: a lookup by id peeks every transcript of its project, and a preview looks up by id each time."""


class DiscoveryCache:
    """Remembers each file's listing entry for one agent, written back after a full discovery pass."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._old: _Snapshot | None = None
        self._seen: dict[str, Any] = {}
        self._changed = False

    def lookup(self, path: str, build: Callable[[], SessionInfo | None]) -> SessionInfo | None:
        """Return the cached entry for `path` when the file is unchanged, else `build()` it."""
        try:
            stat = os.stat(path)
        except OSError:
            return build()
        key = [stat.st_size, stat.st_mtime_ns]
        old = self._snapshot()
        row = old.rows.get(path)
        if isinstance(row, dict) and row.get("key") == key:
            if path not in old.infos:
                old.infos[path] = _decode(row.get("info"))
            info = old.infos[path]
            if info is not None:
                self._seen[path] = row
                return info
        info = build()
        if info is not None:
            self._seen[path] = {"key": key, "info": info.as_dict()}
            self._changed = True
        return info

    def save(self) -> None:
        """Store what this pass saw (files gone since are dropped); a failed write is only a lost speed-up."""
        if not self._changed and self._seen.keys() == self._rows().keys():
            return
        try:
            atomic_write(self.path, json.dumps({"v": _version(), "files": self._seen}, separators=(",", ":")))
        except OSError:
            return
        self._old, self._changed = _Snapshot(dict(self._seen)), False

    def save_seen(self) -> None:
        """Store what a partial pass (one project, one id) built, keeping every other file's entry: a
        full pass (`save`) is what drops the files gone since. A failed write is only a lost speed-up."""
        if not self._changed:
            return
        rows = {**self._rows(), **self._seen}
        try:
            atomic_write(self.path, json.dumps({"v": _version(), "files": rows}, separators=(",", ":")))
        except OSError:
            return
        self._old, self._changed = _Snapshot(rows), False

    def _rows(self) -> dict[str, Any]:
        """The entries on disk, read once; a missing, damaged or older cache is empty."""
        return self._snapshot().rows

    def _snapshot(self) -> _Snapshot:
        """The entries on disk, read once per instance, and once per process while the file is unchanged."""
        if self._old is None:
            self._old = _snapshot_of(self.path)
        return self._old


def _snapshot_of(path: Path) -> _Snapshot:
    """The cache at `path`, parsed again only when the file or the cache's version changed."""
    version = _version()
    try:
        stat = os.stat(path)
    except OSError:
        return _Snapshot({})
    stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns, version)
    kept = _READ.get(path)
    if kept is not None and kept[0] == stamp:
        return kept[1]
    snapshot = _Snapshot(_read_rows(path, version))
    _READ[path] = (stamp, snapshot)
    return snapshot


def _read_rows(path: Path, version: str) -> dict[str, Any]:
    """The entries of the cache file at `path`; a missing, damaged or older cache is empty."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    ok = isinstance(data, dict) and data.get("v") == version and isinstance(data.get("files"), dict)
    return data["files"] if ok else {}


def listed(
    paths: Iterable[Path],
    describe: Callable[[Path], SessionInfo | None],
    listing_cache: Path | None,
    every: bool = True,
) -> Iterator[SessionInfo]:
    """Each file's listing entry in the order given, from the cache while the file is unchanged, else
    `describe`d (None: not listed). When `paths` are `every` file of the agent's home (a listing), the
    cache is written back once the pass is through, dropping the files gone since; what a pass stopped
    early, or one over a few of the files (a lookup), built is added to it (`save_seen`): a lookup by path
    stops at the file it wanted, and a file whose entry takes a whole read (an old Gemini CLI document)
    was read again by every such lookup."""
    cache = DiscoveryCache(listing_cache) if listing_cache else None
    whole = False
    try:
        for path in paths:
            info = describe(path) if cache is None else cache.lookup(str(path), partial(describe, path))
            if info is not None:
                yield info
        whole = every
    finally:
        if cache is not None and whole:
            cache.save()
        elif cache is not None:
            cache.save_seen()


def cached_ids(path: Path) -> list[str] | None:
    """The session ids of the listing cached at `path`, without checking the files: None when there is no
    cache of this version (the listing that would write one has not run)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("v") != _version() or not isinstance(data.get("files"), dict):
        return None
    rows = data["files"].values()
    return [str(row["info"]["id"]) for row in rows if isinstance(row, dict) and isinstance(row.get("info"), dict)]


def _version() -> str:
    """The cache's version: smig's and its secret detector's.

    A warm listing never loads the detector, so it takes the shipped fingerprint (equal to the rules'
    own, a test holds it); once the detector is loaded its live fingerprint counts, so rules changed
    in this process (tests switch them off) never reuse titles redacted by others."""
    detector = sys.modules.get("smig_tui.core.redact")
    fingerprint = detector.detector_version() if detector is not None else DETECTOR_VERSION
    return f"{VERSION}:{fingerprint}"


def _decode(data: Any) -> SessionInfo | None:
    """Rebuild a SessionInfo from its JSON form, or None when it does not fit the current model."""
    if not isinstance(data, dict) or set(data) != _FIELDS:
        return None
    try:
        return SessionInfo(**{**data, "agent": Agent(data["agent"])})
    except (TypeError, ValueError):
        return None
