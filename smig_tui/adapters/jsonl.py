# smig: compiled with mypyc where it can (setup.py)
"""Provides tolerant, streaming JSONL reading shared by the session readers.

A session file may be hundreds of MB, half-written (the agent is still running), or damaged. Lines
are read one at a time in binary, with their byte offsets; a bad line becomes a warning naming the
file and line, and reading goes on.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from smig_tui.adapters.json_parse import fast_loads, loads_text
from smig_tui.adapters.zstd_files import GeneratorFile, content_size, is_compressed, open_binary
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


def report_progress(done: int, total: int) -> None:
    """Tell this thread's `reading_progress` callback, if any, how far a read has got (it may raise)."""
    report: Callable[[int, int], None] | None = getattr(_watch, "report", None)
    if report is not None:
        report(done, total)


class Record(NamedTuple):
    """One parsed JSONL line with where it came from (a tuple: one is made per line, and a frozen
    dataclass costs three times as much to build)."""

    line: int
    """1-based line number."""
    offset: int
    """Byte offset of the line's start."""
    data: dict[str, Any]
    size: int = 0
    """Bytes of the line, newline excluded."""


def iter_lines(
    path: str, start: int = 0, start_line: int = 1, stop: int | None = None
) -> Iterator[tuple[int, int, bytes, bool]]:
    """Yield (line number, byte offset, raw bytes without newline, complete) for each line.

    `complete` is False only for a last line with no trailing newline, which a live writer may
    still be finishing. Memory stays bounded by the longest line, not the file. A `.zst` file is
    read decompressed, its offsets counting decompressed bytes. With `stop` (a line start), reading
    ends there: one process reads a big file's first part while another reads the rest.
    """
    report: Callable[[int, int], None] | None = getattr(_watch, "report", None)
    with GeneratorFile(open_binary(path)) as handle:
        handle.seek(start)
        total = 0
        if report is not None:  # a compressed file reports decompressed bytes, of its recorded size
            total = content_size(path) if is_compressed(path) else os.fstat(handle.fileno()).st_size
        done = start
        offset, number = start, start_line
        # A line longer than a chunk is gathered in one buffer (linear time). A list of the chunks joined
        # at the line's end left them freed in the heap, which glibc keeps once its mmap threshold has
        # risen to a chunk's size: a 100 MB line held 100 MB more while it was parsed.
        pending = bytearray()
        position = start
        while True:
            chunk = handle.read(_CHUNK if stop is None else min(_CHUNK, max(0, stop - position)))
            if not chunk:
                break
            position += len(chunk)
            if report is not None:
                done += len(chunk)
                report(min(done, total), total)
            begin = 0
            end = chunk.find(b"\n")
            while end >= 0:
                if pending:
                    pending += memoryview(chunk)[begin:end]
                    raw = bytes(pending)
                    pending = bytearray()
                else:
                    raw = chunk[begin:end]
                yield number, offset, raw, True
                offset += len(raw) + 1
                number += 1
                begin = end + 1
                end = chunk.find(b"\n", begin)
            if begin < len(chunk):
                pending += memoryview(chunk)[begin:]
        if pending:
            yield number, offset, bytes(pending), False


def parse_line(raw: bytes, path: str, number: int, complete: bool, warn: WarningSink) -> dict[str, Any] | None:
    """Parse one line into a JSON object, reporting why when it cannot be."""
    stripped = raw.strip()
    if not stripped:
        return None
    data = fast_loads(stripped)
    if data is None:  # what msgspec refuses (or JSON null): the standard parse, with its warnings
        try:
            text = stripped.decode("utf-8")
        except UnicodeDecodeError:
            text = stripped.decode("utf-8", errors="replace")
            warn(ReadWarning(path, number, "invalid UTF-8 replaced with U+FFFD"))
        try:
            data = loads_text(text)
        except RecursionError:
            warn(ReadWarning(path, number, "JSON nested too deeply to read; line skipped"))
            return None
        except json.JSONDecodeError as error:
            if not complete:
                warn(ReadWarning(path, number, "truncated last line skipped (is the session still being written?)"))
            else:
                warn(ReadWarning(path, number, f"corrupt JSON line skipped ({decode_problem(error)})"))
            return None
        except ValueError:  # valid JSON, but an integer longer than Python converts (`sys.get_int_max_str_digits`)
            warn(ReadWarning(path, number, "number too long to read (thousands of digits); line skipped"))
            return None
    if not isinstance(data, dict):
        warn(ReadWarning(path, number, f"line is JSON {type(data).__name__}, not an object; skipped"))
        return None
    return data


SHAPE_ERRORS = (TypeError, AttributeError, KeyError, IndexError, ValueError, RecursionError)
"""What a reader meets in valid JSON of the wrong shape (a list where an object belongs, a number
for a name): the record is skipped with `shape_warning`, and reading goes on."""


def shape_warning(path: str, number: int, error: Exception) -> ReadWarning:
    """The warning for a record a reader could not use because of its shape."""
    return ReadWarning(path, number, f"record of an unexpected shape skipped ({type(error).__name__})")


def decode_problem(error: json.JSONDecodeError) -> str:
    """The decoder's reason and column, without its doubled "at" ("starting at at column 5")."""
    reason = error.msg.removesuffix(" at")
    return f"{reason} at column {error.colno}"


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
