"""Provides the check that a migration's source session is still what was migrated (by sha256)."""

from __future__ import annotations

import hashlib
import os

CHUNK = 1 << 20

UNCHANGED, GROWN, CHANGED, MISSING = "unchanged", "grown", "changed", "missing"
"""`grown`: the file is longer but its first `size` bytes still hash to the recorded value."""


def source_status(path: str, sha256: str, size: int) -> str:
    """Compare a source file with the hash and size recorded at commit time, reading it in chunks.

    Agents append to a live session, so a file that only grew still holds every migrated message.
    """
    try:
        actual = os.stat(path).st_size
        if actual < size:
            return CHANGED
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            left = size
            while left > 0:
                chunk = handle.read(min(CHUNK, left))
                if not chunk:
                    return CHANGED
                digest.update(chunk)
                left -= len(chunk)
    except OSError:
        return MISSING
    if digest.hexdigest() != sha256:
        return CHANGED
    return UNCHANGED if actual == size else GROWN
