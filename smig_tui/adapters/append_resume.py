"""Provides resume points for JSONL session files that only grow: where the complete lines end,
how many there are, and a digest of the bytes just before, which tells a file that grew from one
rewritten in place (a rewritten file is read whole again)."""

from __future__ import annotations

import hashlib
import os
from typing import BinaryIO

from smig_tui.core.models import SessionInfo
from smig_tui.core.ports import ResumePoint

DIGEST_SPAN = 4096
"""Bytes before the resume offset the digest covers: the last lines read, which a rewrite changes."""
_CHUNK = 1 << 20


def resume_point(info: SessionInfo, state: str = "") -> ResumePoint | None:
    """The point at the end of the file as `info` saw it (size and mtime), or None when it has changed
    since or its last line has no newline yet (a full load may have read it: reading on from before it
    would read it twice), so the lines a full load read are exactly the ones before the point."""
    try:
        with open(info.path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if stat.st_size != info.size or stat.st_mtime != info.mtime:
                return None
            lines, after_last = 0, 0
            done = 0
            while done < info.size:
                chunk = handle.read(min(_CHUNK, info.size - done))
                if not chunk:
                    break
                lines += chunk.count(b"\n")
                last = chunk.rfind(b"\n")
                if last >= 0:
                    after_last = done + last + 1
                done += len(chunk)
            if after_last != info.size:
                return None
            return ResumePoint(after_last, lines + 1, _digest(handle, after_last), state)
    except OSError:
        return None


def point_after(path: str, offset: int, line: int, state: str = "") -> ResumePoint | None:
    """The resume point at `offset` (just past a complete line), or None when the file is unreadable."""
    try:
        with open(path, "rb") as handle:
            return ResumePoint(offset, line, _digest(handle, offset), state)
    except OSError:
        return None


def still_prefix(path: str, point: ResumePoint) -> bool:
    """Tell whether the file still holds, before the point, the bytes it held when the point was taken."""
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size < point.offset:
                return False
            return _digest(handle, point.offset) == point.digest
    except OSError:
        return False


def _digest(handle: BinaryIO, end: int) -> str:
    start = max(0, end - DIGEST_SPAN)
    handle.seek(start)
    return hashlib.blake2b(handle.read(end - start), digest_size=16).hexdigest()
