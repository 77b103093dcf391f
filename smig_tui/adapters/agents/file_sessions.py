"""Provides what the readers of one-file-per-session agents share: listing a folder, newest first, the
one warning a file with damaged lines gets (Gemini CLI, Qwen Code, Copilot CLI, Pi, Aider), a file's
lines found without parsing them (the cheap listing reads of Qwen Code, Pi and Copilot CLI), and the
whole read their `load` does."""

from __future__ import annotations

import json
import mmap
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from smig_tui.adapters.agents.content_parts import Converted
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


class MappedLines:
    """A session file mapped into memory, each line's span and head found in one pass at C speed
    (`mmap.find` for the line ends, a regular expression anchored at each line's start): a listing
    parses only the few lines it needs, never the megabytes of tool output between them."""

    def __init__(self, data: mmap.mmap, lines: list[Line]) -> None:
        self._data = data
        self.lines = lines

    def record(self, line: Line) -> dict[str, Any] | None:
        """The line parsed: a JSON object, or None (damaged, nested too deeply, or not an object)."""
        try:
            value = json.loads(self._data[line.start : line.end])
        except (ValueError, RecursionError):
            return None
        return value if isinstance(value, dict) else None

    def holds(self, line: Line, needle: bytes) -> bool:
        """Whether `needle` occurs in the line (a byte search: nothing parsed)."""
        return self._data.find(needle, line.start, line.end) >= 0


@contextmanager
def mapped_lines(path: Path, head: re.Pattern[bytes]) -> Iterator[MappedLines | None]:
    """`path` mapped, its non-empty lines with what `head` matched at their start (None for an empty
    file; raises OSError when it cannot be read). Only valid inside the `with`."""
    with path.open("rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            yield None
            return
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            lines: list[Line] = []
            find, match = data.find, head.match
            start = 0
            while start < size:
                end = find(b"\n", start)
                if end < 0:
                    end = size
                if end > start:
                    found = match(data, start, end)
                    whole = found is not None and data[end - 1] == CLOSING_BRACE
                    lines.append(Line(start, end, found.groups() if whole and found else None))
                start = end + 1
            yield MappedLines(data, lines)


CLOSING_BRACE = ord("}")


def cannot_read(path: Path, error: OSError) -> ReadWarning:
    """The warning a listing gives for a session file it cannot read."""
    return ReadWarning(str(path), None, f"skipped: cannot read it ({error.strerror or error})")


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
        info=info,
        messages=tuple(converted.messages),
        warnings=tuple(warnings),
        measured_context_tokens=converted.context_tokens or None,
    )
