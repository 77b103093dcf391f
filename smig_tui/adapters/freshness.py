"""Provides a cheap fingerprint of what a session source's listing reads: the search index's freshness check.

A search first brings its index up to date, and finding out that nothing changed used to cost a whole
listing (each file's entry looked up, 2,000 sessions: about 0.08 s of CPU, most of a warm `smig search`).
A source that names the folders and files its listing reads (`WatchedFiles`) is fingerprinted instead by
a walk of names, sizes and modification times, opening no file. The index keeps the fingerprint taken
before its last complete refresh of that source; the same fingerprint now means no file the listing
reads was added, removed, renamed, grown or rewritten since, so the listing, and the index, would come
out the same. Any difference, even one the listing ignores, only costs the refresh that was done anyway.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence

from smig_tui.core.ports import SessionSource, Watched, WatchedFiles


def source_fingerprint(source: SessionSource) -> str | None:
    """The fingerprint of everything `source.discover` reads, or None when the source cannot name it."""
    watched = source.watched() if isinstance(source, WatchedFiles) else None
    return None if watched is None else fingerprint(watched)


def fingerprint(watched: Sequence[Watched]) -> str:
    """A digest of the names, sizes and modification times under each watched path, in order."""
    lines: list[str] = []
    for place in watched:
        lines.append(f"@{place.path}\0{int(place.tree)}\0{place.names}")
        _add(place.path, place.tree, lines, set(), place.names)
    data = "\n".join(lines).encode("utf-8", "surrogateescape")
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _add(path: str, tree: bool, lines: list[str], followed: set[str], names: str = "") -> None:
    """Add one path: a file's size and time, a folder's entries (and, for a tree, everything below);
    `names`: only the folder's own entries whose names begin with it."""
    try:
        info = os.stat(path)
    except OSError as error:
        lines.append(f"{path}\0!{error.errno}")  # absent or unreadable: appearing later changes the digest
        return
    if not stat.S_ISDIR(info.st_mode):
        lines.append(f"{path}\0{info.st_size}\0{info.st_mtime_ns}")
        return
    _add_folder(path, tree, lines, followed, names)


def _add_folder(path: str, tree: bool, lines: list[str], followed: set[str], names: str = "") -> None:
    try:
        with os.scandir(path) as listing:
            entries = sorted((entry for entry in listing if entry.name.startswith(names)), key=lambda entry: entry.name)
    except OSError as error:
        lines.append(f"{path}/\0!{error.errno}")
        return
    for entry in entries:
        try:
            if entry.is_dir():  # follows a link, as the readers do
                if not tree:
                    lines.append(f"{entry.path}/")
                    continue
                if entry.is_symlink():  # a link may lead back up the tree: each target is walked once
                    target = os.path.realpath(entry.path)
                    if target in followed:
                        lines.append(f"{entry.path}/\0loop")
                        continue
                    followed.add(target)
                lines.append(f"{entry.path}/")
                _add_folder(entry.path, tree, lines, followed)
            else:
                info = entry.stat()
                lines.append(f"{entry.path}\0{info.st_size}\0{info.st_mtime_ns}")
        except OSError as error:
            lines.append(f"{entry.path}\0!{error.errno}")
