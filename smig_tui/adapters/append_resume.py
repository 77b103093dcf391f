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


def resume_point(info: SessionInfo, state: str = "", known: tuple[int, int] | None = None) -> ResumePoint | None:
    """The point at the end of the file as `info` saw it (size and mtime), or None when it has changed
    since or its last line has no newline yet (a full load may have read it: reading on from before it
    would read it twice), so the lines a full load read are exactly the ones before the point.

    `known`: a line's number and the offset it starts at, as the full load just read them (its last
    message's): the lines are counted on from there. Counted from the start, the file was read a second
    time (0.17 s for a 500 MB rollout, 0.6 s of a 1.8 GB cold index build)."""
    try:
        with open(info.path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if stat.st_size != info.size or stat.st_mtime != info.mtime:
                return None
            lines, after_last = 0, 0
            done = 0
            if known is not None and _starts_line(handle, *known, info.size):
                lines, after_last = known[0] - 1, known[1]
                done = known[1]
            handle.seek(done)
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


def _starts_line(handle: BinaryIO, number: int, offset: int, size: int) -> bool:
    """Whether line `number` may start at `offset`: the first line at the file's start, a later one
    inside the file just past a newline."""
    if offset == 0 or number <= 1:
        return offset == 0 and number == 1
    if offset >= size:
        return False
    handle.seek(offset - 1)
    return handle.read(1) == b"\n"


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
