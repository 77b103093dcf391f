"""Provides the only writer to stdout (data) and stderr (diagnostics) for the CLI.

A session can hold a lone UTF-16 surrogate (`"\\ud800"` in its JSON, which Python keeps): no UTF-8
stream can write it, so it is printed as U+FFFD in text and as its `\\u` escape in JSON (still
valid JSON, and the same string when read back), never as a crash.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain
from typing import IO, TYPE_CHECKING, Any, cast

from smig_tui.cli.json_text import indented_json
from smig_tui.core.encoding import LONE_SURROGATE, escaped
from smig_tui.core.models import ReadWarning

if TYPE_CHECKING:
    from rich.console import Console

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

    @property
    def console(self) -> Console:
        """A rich console on stdout, for tables (rich is imported only by commands that print one).

        Markup and emoji codes are off: cells hold conversation text, and `[/bold]` or `:smile:` in a
        message must print as written, not be parsed (a stray closing tag would crash the command).
        """
        from rich.console import Console

        readable = cast("IO[str]", _Readable(self.stdout))
        return Console(file=readable, soft_wrap=False, highlight=False, markup=False, emoji=False)

    def data(self, text: str) -> None:
        """Write a line of data to stdout."""
        print(_readable(text), file=self.stdout)

    def json(self, value: Any) -> None:
        """Write a JSON document to stdout in blocks (a few writes however it is buffered)."""
        self.write_blocks(chain(indented_json(value), ("\n",)))

    def write_blocks(self, pieces: Iterable[str]) -> None:
        """Write many small pieces of text to stdout joined into blocks of about `JSON_BLOCK_CHARS`."""
        block: list[str] = []
        size = 0
        for piece in pieces:
            block.append(piece)
            size += len(piece)
            if size >= JSON_BLOCK_CHARS:
                self.stdout.write(escaped("".join(block)))
                block.clear()
                size = 0
        if block:
            self.stdout.write(escaped("".join(block)))

    def diag(self, text: str) -> None:
        """Write a diagnostic line to stderr."""
        if not self.quiet:
            print(text, file=self.stderr)

    def error(self, text: str) -> None:
        """Write an error to stderr, even when quiet."""
        print(f"smig: error: {text}", file=self.stderr)

    def warn(self, warning: ReadWarning) -> None:
        """Report a reader warning on stderr (a sink for readers)."""
        self.warnings_seen += 1
        if self.warnings_seen <= MAX_WARNINGS_SHOWN:
            self.diag(f"smig: warning: {warning}")

    def finish(self) -> None:
        """Say how many warnings were not shown."""
        hidden = self.warnings_seen - MAX_WARNINGS_SHOWN
        if hidden > 0:
            self.diag(f"smig: {hidden} more warnings not shown")


def _readable(text: str) -> str:
    """`text` with any lone surrogate shown as U+FFFD (a UTF-8 stream cannot write one)."""
    return LONE_SURROGATE.sub("\ufffd", text) if LONE_SURROGATE.search(text) else text


class _Readable:
    """A text stream that shows lone surrogates as U+FFFD (for rich's tables)."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(_readable(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
