"""Provides the only writer to stdout (data) and stderr (diagnostics) for the CLI.

A session can hold a lone UTF-16 surrogate (`"\\ud800"` in its JSON, which Python keeps): no UTF-8
stream can write it, so it is printed as U+FFFD in text and as its `\\u` escape in JSON (still
valid JSON, and the same string when read back), never as a crash.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import IO, TYPE_CHECKING, Any

from smig_tui.core.encoding import LONE_SURROGATE, escaped, utf8
from smig_tui.core.models import ReadWarning
from smig_tui.core.words import plural

if TYPE_CHECKING:
    from smig_tui.cli.table import Column

JSON_BLOCK_CHARS = 1 << 16
"""JSON and streamed output is handed to stdout in blocks this size: `json.dump` writes each token on its own, which
unbuffered (PYTHONUNBUFFERED=1) is one `write()` system call per token, millions on a huge plan."""

MAX_WARNINGS_SHOWN = 20
"""Past this many reader warnings only a count is printed, so a damaged tree cannot flood stderr."""


@dataclass
class Output:
    """Writes data to stdout and diagnostics to stderr; `--json` output is plain and stable."""

    stdout: IO[str] = field(default_factory=lambda: sys.stdout)
    stderr: IO[str] = field(default_factory=lambda: sys.stderr)
    quiet: bool = False
    warnings_seen: int = 0
    first_time: Callable[[ReadWarning], bool] | None = None
    """Whether a file's warning is new for this version of the file (see `WarnedFiles`); None: always new."""
    remembered_shown: int = 0
    """Warnings shown that will not be shown again while their file is unchanged."""

    @property
    def width(self) -> int:
        """The width tables are laid out for: COLUMNS, else the terminal's (even when piped), else 80."""
        from smig_tui.cli.table import terminal_width

        return terminal_width(self.stdout)

    def data(self, text: str) -> None:
        """Write a line of data to stdout."""
        print(_readable(text), file=self.stdout)

    def table(
        self, columns: Sequence[Column], rows: Sequence[Sequence[str]], header: bool = True, to_stderr: bool = False
    ) -> None:
        """Write a table laid out for the terminal by the one rule (`cli.table`): figures whole, text shrinks.

        `to_stderr`: a table that belongs to a diagnostic (the similar names of an unknown model).
        """
        from smig_tui.cli.table import render, terminal_width

        stream = self.stderr if to_stderr else self.stdout
        lines = render(columns, rows, terminal_width(stream), header=header, bold=header and stream.isatty())
        stream.write(_readable("".join(line + "\n" for line in lines)))

    def json(self, value: Any) -> None:
        """Write a JSON document to stdout in blocks (a few writes however it is buffered)."""
        from smig_tui.core.json_text import indented_json

        self.write_blocks(chain(indented_json(value), ("\n",)))

    def write_blocks(self, pieces: Iterable[str]) -> None:
        """Write many small pieces of text to stdout joined into blocks of about `JSON_BLOCK_CHARS`.

        To a UTF-8 stream the blocks go as bytes straight to its buffer, encoding being the test for a
        lone surrogate: a regex search of every block of a 250 MB export cost a second of CPU, and the
        text stream then encoded it again.
        """
        from smig_tui.core.json_text import blocks  # with orjson: a table or a line of text needs neither

        stream = self.stdout
        buffer = getattr(stream, "buffer", None) if _is_utf8(stream) else None
        if buffer is None:
            for block in blocks(pieces, JSON_BLOCK_CHARS):
                stream.write(escaped(block))
            return
        stream.flush()  # what was printed before goes out first
        for block in blocks(pieces, JSON_BLOCK_CHARS):
            buffer.write(utf8(block))
            if getattr(
                stream, "line_buffering", True
            ):  # a terminal sees each block as it comes, as through the text stream
                buffer.flush()
        buffer.flush()

    def diag(self, text: str) -> None:
        """Write a diagnostic line to stderr."""
        if not self.quiet:
            print(text, file=self.stderr)

    def error(self, text: str) -> None:
        """Write an error to stderr, even when quiet."""
        print(f"smig: error: {text}", file=self.stderr)

    def warn(self, warning: ReadWarning) -> None:
        """Report a reader warning on stderr (a sink for readers).

        A warning about a whole file (no line number: a file or folder skipped, a database unreadable)
        is shown once per version of that file; one about a line is part of reading a session the user
        asked for, and is always shown.
        """
        remembered = warning.line is None and self.first_time is not None
        if remembered and self.first_time is not None and not self.first_time(warning):
            return
        self.warnings_seen += 1
        if self.warnings_seen <= MAX_WARNINGS_SHOWN:
            self.diag(f"smig: warning: {warning}")
            self.remembered_shown += remembered

    def finish(self) -> None:
        """Say how many warnings were not shown, and that skipped files are not reported again."""
        hidden = self.warnings_seen - MAX_WARNINGS_SHOWN
        if hidden > 0:
            self.diag(f"smig: {plural(hidden, 'more warning')} not shown; `smig doctor` lists them all")
        elif self.remembered_shown:
            self.diag("smig: a skipped file is reported once until it changes; `smig doctor` lists them all")


def _is_utf8(stream: IO[str]) -> bool:
    """Whether a text stream encodes to UTF-8."""
    try:
        return codecs.lookup(getattr(stream, "encoding", "")).name == "utf-8"
    except (AttributeError, LookupError, TypeError):
        return False


def _readable(text: str) -> str:
    """`text` with any lone surrogate shown as U+FFFD (a UTF-8 stream cannot write one)."""
    return LONE_SURROGATE.sub("\ufffd", text) if LONE_SURROGATE.search(text) else text
