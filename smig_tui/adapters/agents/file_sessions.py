"""Provides what the readers of one-file-per-session agents share: listing a folder, newest first, the
one warning a file with damaged lines gets (Gemini CLI, Qwen Code, Copilot CLI, Pi, Aider), a file
opened to be read line by line, its lines found without parsing them (the cheap listing reads of Qwen
Code, Pi and Copilot CLI), and the whole read their `load` does."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TypeVar

from smig_tui.adapters.agents.content_parts import Converted
from smig_tui.adapters.stored_text import FILE_BYTES, LineTexts, TextStore
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import ReadWarning, Session, SessionInfo
from smig_tui.core.ports import WarningSink
from smig_tui.core.words import plural


def folder_entries(folder: Path, warn: WarningSink) -> list[Path]:
    """The entries of `folder`; a folder that cannot be listed is one warning and no entry."""
    try:
        return [Path(entry.path) for entry in os.scandir(folder)]
    except OSError as error:
        warn(ReadWarning(str(folder), None, f"skipped: cannot list it ({error.strerror or error})"))
        return []


def newest_first(path: Path) -> float:
    """A sort key: the most recently changed file first (a file gone meanwhile last)."""
    try:
        return -path.stat().st_mtime
    except OSError:
        return 0.0


def warn_damaged(path: Path, damaged: Sequence[int], warn: WarningSink) -> None:
    """One warning naming the first damaged lines of a session file that was otherwise read."""
    if damaged:
        lines = ", ".join(str(n) for n in damaged[:5]) + ("…" if len(damaged) > 5 else "")
        warn(
            ReadWarning(
                str(path),
                damaged[0],
                f"skipped {plural(len(damaged), 'damaged line')} ({lines}); the rest of the session is read",
            )
        )


LineHead = tuple[bytes | None, ...]
"""What a line's first bytes said: the groups of a reader's head pattern."""


@dataclass(slots=True)
class Line:
    """One line of a session file: where it is, and what its head said (None: the head did not match,
    or the line does not end in `}`, so it is not a whole record in the usual shape)."""

    start: int
    end: int
    head: LineHead | None


class IndexedLines:
    """A session file's lines, each one's span and head found in one pass at C speed (`bytes.find` for
    the line ends over blocks read in turn, a regular expression on each line's first bytes): a listing
    then reads and parses only the few lines it needs, never the megabytes of tool output between them.
    The file is read, not mapped: a client rewriting it meanwhile makes a line damaged, not a crash."""

    def __init__(self, handle: BinaryIO, lines: list[Line]) -> None:
        self._handle = handle
        self.lines = lines

    def raw(self, line: Line) -> bytes:
        """The line's bytes, read again."""
        return os.pread(self._handle.fileno(), line.end - line.start, line.start)

    def record(self, line: Line) -> dict[str, Any] | None:
        """The line parsed: a JSON object, or None (damaged, nested too deeply, or not an object)."""
        try:
            value = json.loads(self.raw(line))
        except (ValueError, RecursionError):
            return None
        return value if isinstance(value, dict) else None

    def holds(self, line: Line, needle: bytes) -> bool:
        """Whether `needle` occurs in the line (a byte search: nothing parsed)."""
        return needle in self.raw(line)


@contextmanager
def indexed_lines(path: Path, head: re.Pattern[bytes]) -> Iterator[IndexedLines | None]:
    """`path`'s non-empty lines with what `head` matched at their start (None when it has none; raises
    OSError when it cannot be read). Only valid inside the `with`."""
    with path.open("rb", buffering=0) as handle:
        lines = _index(handle, head)
        yield IndexedLines(handle, lines) if lines else None


BLOCK = 64 * 1024
HEAD_BYTES = 1024
"""The most of a line's start a head pattern looks at."""


def _index(handle: BinaryIO, head: re.Pattern[bytes]) -> list[Line]:
    """Each non-empty line's span, and the head its first bytes match when it ends in `}`."""
    lines: list[Line] = []
    match = head.match
    start = offset = 0
    """The file offsets of the current line and of the block read."""
    spanning = b""
    """The first bytes (up to HEAD_BYTES) of a line begun in an earlier block."""
    before = 0
    """The last byte of the block before (the end of a line that spans two)."""
    while block := handle.read(BLOCK):
        position, find = 0, block.find
        while (newline := find(b"\n", position)) >= 0:
            if offset + newline > start:
                if start >= offset:  # the line begins in this block, as a rule
                    window = position + HEAD_BYTES
                    found = match(block, position, newline if newline < window else window)
                else:
                    found = match((spanning + block[: min(newline, HEAD_BYTES)])[:HEAD_BYTES])
                closing = block[newline - 1] if newline else before
                shape = found.groups() if found is not None and closing == CLOSING_BRACE else None
                lines.append(Line(start, offset + newline, shape))
            start = offset + newline + 1
            position = newline + 1
        if start >= offset:  # a line begun in this block goes on past it
            spanning = block[start - offset : start - offset + HEAD_BYTES]
        elif len(spanning) < HEAD_BYTES:
            spanning += block[: HEAD_BYTES - len(spanning)]
        before = block[-1]
        offset += len(block)
    if offset > start:  # a last line without its newline
        found = match(spanning)
        lines.append(Line(start, offset, found.groups() if found is not None and before == CLOSING_BRACE else None))
    return lines


CLOSING_BRACE = ord("}")


def cannot_read(path: Path, error: OSError) -> ReadWarning:
    """The warning a listing gives for a session file it cannot read."""
    return ReadWarning(str(path), None, f"skipped: cannot read it ({error.strerror or error})")


LINE_BUFFER = 1 << 20
"""The buffer of a session file read line by line (`for raw in handle`): with Python's default 8 KB, a
line longer than it is gathered piece by piece, and going through the 60,000 lines of a 500 MB Gemini
CLI session took 0.20-0.30 s of CPU; with 1 MB, 0.03 s."""


def open_lines(path: Path) -> BinaryIO:
    """`path` opened to be read line by line."""
    return path.open("rb", buffering=LINE_BUFFER)


def line_store(handle: BinaryIO, path: Path, pack: bool, texts: LineTexts) -> TextStore | None:
    """Where a reader leaves a big file's long tool outputs (on disk, read back from their line) when
    `pack` is asked and the open file is big: its `load` holds every record until the last line (a
    later one decides what the client resumes), so a 500 MB session's outputs would otherwise be
    held whole, twice that in Python objects. `texts` gives a parsed line's outputs in order."""
    big = pack and os.fstat(handle.fileno()).st_size >= FILE_BYTES
    return TextStore(str(path), texts, True) if big else None


def line_size(raw: bytes) -> int:
    """The bytes of a line read with its newline, without it (what a stored text's line spans)."""
    return len(raw) - 1 if raw.endswith(b"\n") else len(raw)


class WholeFile(Protocol):
    """A session file read whole by its reader (`read_session`)."""

    @property
    def damaged(self) -> list[int]: ...


FileT = TypeVar("FileT", bound=WholeFile)


def load_whole(
    info: SessionInfo, warn: WarningSink, read: Callable[[Path], FileT], convert: Callable[[FileT], Converted]
) -> Session:
    """A file-per-session reader's `load`: the file read whole and converted as its client resumes it,
    its damaged lines one warning (kept on the session too), a file it cannot read a SessionReadError."""
    path = Path(info.path)
    warnings: list[ReadWarning] = []

    def sink(warning: ReadWarning) -> None:
        warnings.append(warning)
        warn(warning)

    try:
        session = read(path)
    except OSError as error:
        raise SessionReadError(f"Cannot read {path}: {error.strerror or error}.") from error
    warn_damaged(path, session.damaged, sink)
    converted = convert(session)
    return Session(
        info=replace(info, message_count=len(converted.messages)),  # a listing from the file's ends leaves it unknown
        messages=tuple(converted.messages),
        warnings=tuple(warnings),
        measured_context_tokens=converted.context_tokens or None,
    )
