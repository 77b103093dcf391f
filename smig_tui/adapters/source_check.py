"""Provides the check that a migration's source session is still what was migrated (by sha256)."""

from __future__ import annotations

import hashlib
import os

from smig_tui.adapters.zstd_files import DAMAGED, current_form, is_compressed, open_binary

Stamp = tuple[tuple[str, int, int, int] | None, ...]

CHUNK = 1 << 20

UNCHANGED, GROWN, CHANGED, MISSING = "unchanged", "grown", "changed", "missing"
"""`grown`: the file is longer but its first `size` bytes still hash to the recorded value."""


def source_status(path: str, sha256: str, size: int) -> str:
    """Compare a source file with the hash and size recorded at commit time, reading it in chunks.

    Agents append to a live session, so a file that only grew still holds every migrated message.
    A Codex rollout compressed since (or materialised again) is compared by its content.
    """
    from smig_tui.adapters.agents.registry import row_ref

    ref = row_ref(path)
    if ref is not None:  # a session kept as database rows, pinned by its rows
        return ref.refs.status(ref.database, ref.session_id, sha256, size)
    path = current_form(path)
    try:
        actual = os.stat(path).st_size
        if actual < size and not is_compressed(path):
            return CHANGED
        digest = hashlib.sha256()
        with open_binary(path) as handle:
            left = size
            while left > 0:
                chunk = handle.read(min(CHUNK, left))
                if not chunk:
                    return CHANGED
                digest.update(chunk)
                left -= len(chunk)
            if is_compressed(path):  # its content's length is known only by reading on
                actual = size + sum(len(chunk) for chunk in iter(lambda: handle.read(CHUNK), b""))
    except OSError:
        return MISSING
    except DAMAGED:
        return CHANGED
    if digest.hexdigest() != sha256:
        return CHANGED
    return UNCHANGED if actual == size else GROWN


def source_stamp(path: str) -> Stamp | None:
    """What changes whenever a source's content may have: the size, mtime and inode of its file (as it is
    now: compressed or not), or of a row source's database and write-ahead log. None when it cannot
    be read; a caller keeps what it derived from the source only while the stamp is the same."""
    from smig_tui.adapters.agents.registry import row_ref

    ref = row_ref(path)
    files = [str(ref.database), f"{ref.database}-wal"] if ref is not None else [current_form(path)]
    stamp: list[tuple[str, int, int, int] | None] = []
    for file in files:
        try:
            info = os.stat(file)
        except FileNotFoundError:
            stamp.append(None)
            continue
        except OSError:
            return None
        stamp.append((file, info.st_size, info.st_mtime_ns, info.st_ino))
    return None if stamp[0] is None else tuple(stamp)
