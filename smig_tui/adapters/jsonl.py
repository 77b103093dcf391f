"""Provides tolerant, streaming JSONL reading shared by the session readers.

A session file may be hundreds of MB, half-written (the agent is still running), or damaged. Lines
are read one at a time in binary, with their byte offsets; a bad line becomes a warning naming the
file and line, and reading goes on.
"""

from __future__ import annotations

import gc
import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from smig_tui.core.models import ReadWarning
from smig_tui.core.ports import WarningSink

_CHUNK = 1 << 20
_watch = threading.local()
"""The progress callback of the read running in this thread, if any (see `reading_progress`)."""


@contextmanager
def reading_progress(report: Callable[[int, int], None]) -> Iterator[None]:
    """Call `report(bytes_read, file_size)` after every chunk `iter_lines` reads in this thread.

    It lets a front end draw a progress bar for a big session; `report` may raise to abandon the read.
    """
    previous = getattr(_watch, "report", None)
    _watch.report = report
    try:
        yield
    finally:
        _watch.report = previous


@dataclass(frozen=True, slots=True)
class Record:
    """One parsed JSONL line with where it came from."""

    line: int
    """1-based line number."""
    offset: int
    """Byte offset of the line's start."""
    data: dict[str, Any]
    size: int = 0
    """Bytes of the line, newline excluded."""


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a reader builds a whole session.

    A full read makes hundreds of thousands of objects that all stay alive; each collection would
    walk them again, which doubled the time to read a 500 MB transcript. Nothing a reader makes
    forms cycles, and whatever others make meanwhile is collected once this ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def iter_lines(path: str, start: int = 0, start_line: int = 1) -> Iterator[tuple[int, int, bytes, bool]]:
    """Yield (line number, byte offset, raw bytes without newline, complete) for each line.

    `complete` is False only for a last line with no trailing newline, which a live writer may
    still be finishing. Memory stays bounded by the longest line, not the file.
    """
    report: Callable[[int, int], None] | None = getattr(_watch, "report", None)
    with open(path, "rb") as handle:
        handle.seek(start)
        total = os.fstat(handle.fileno()).st_size if report is not None else 0
        done = start
        offset, number = start, start_line
        pending = b""
        while True:
            chunk = handle.read(_CHUNK)
            if not chunk:
                break
            if report is not None:
                done += len(chunk)
                report(done, total)
            pending += chunk
            begin = 0
            while True:
                end = pending.find(b"\n", begin)
                if end < 0:
                    break
                yield number, offset, pending[begin:end], True
                offset += end - begin + 1
                number += 1
                begin = end + 1
            pending = pending[begin:]
        if pending:
            yield number, offset, pending, False


def parse_line(raw: bytes, path: str, number: int, complete: bool, warn: WarningSink) -> dict[str, Any] | None:
    """Parse one line into a JSON object, reporting why when it cannot be."""
    stripped = raw.strip()
    if not stripped:
        return None
    try:
        text = stripped.decode("utf-8")
    except UnicodeDecodeError:
        text = stripped.decode("utf-8", errors="replace")
        warn(ReadWarning(path, number, "invalid UTF-8 replaced with U+FFFD"))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        if not complete:
            warn(ReadWarning(path, number, "truncated last line skipped (is the session still being written?)"))
        else:
            warn(ReadWarning(path, number, f"corrupt JSON line skipped ({error.msg} at column {error.colno})"))
        return None
    if not isinstance(data, dict):
        warn(ReadWarning(path, number, f"line is JSON {type(data).__name__}, not an object; skipped"))
        return None
    return data


def iter_records(
    path: str,
    warn: WarningSink,
    skip: Callable[[bytes], bool] | None = None,
    start: int = 0,
    start_line: int = 1,
) -> Iterator[Record]:
    """Yield each parseable object line of a JSONL file, streaming.

    `skip` sees the raw bytes first, so records a reader never needs (snapshots, progress) cost a
    substring test instead of a JSON parse.
    """
    for number, offset, raw, complete in iter_lines(path, start, start_line):
        if skip is not None and skip(raw):
            continue
        data = parse_line(raw, path, number, complete, warn)
        if data is not None:
            yield Record(number, offset, data, len(raw))

