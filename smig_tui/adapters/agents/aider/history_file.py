"""Provides `read_history`: a chat-history file read a block at a time, as `history.restore` reads its text.

Read whole, a 500 MB history held its bytes, its text, its text with the client's header, and every
line twice (3.1 GB). Here the file's bytes go by in blocks of whole lines; only the lines that start
with `#` or `>` are looked at one by one (the rest are the model's, taken as runs), and in a file of
`FILE_BYTES` or more each long text is left where it lies (`SpanText`: its lines' bytes, rebuilt into
the text when read). The messages, their lines, runs, notices and the not-UTF-8 flag are `restore`'s
(a test holds them equal on the real histories and on made ones).

The lines are found in the bytes: a block is cut after a `\\n`, which ends a line in the decoded text
too, so a block decodes to the text's own lines. Aider splits with `str.splitlines`, which also ends
a line at a lone `\\r`, `\\v`, `\\f`, `\\x1c`-`\\x1e`, U+0085, U+2028 and U+2029; a block holding any of
them is split by their UTF-8 bytes (`_ENDS`), line by line.
"""

from __future__ import annotations

import os
import re
from functools import partial
from pathlib import Path

from smig_tui.adapters.agents.aider.history import APPENDED, HEADER, History, Restored, learn_notice
from smig_tui.adapters.stored_text import FILE_BYTES, HEAD_CHARS, TEXT_CHARS, SpanText

BLOCK = 4 << 20
"""Bytes read at a time (a block ends after its last line end, so a line longer than this grows it)."""
_MARKED = re.compile(rb"\n[#>]")
_ENDS = re.compile(rb"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e]|\xc2\x85|\xe2\x80[\xa8\xa9]")
"""The line ends of `str.splitlines` in UTF-8 (a lone `\\r` becomes a `\\n` first); `\\xc2` and `\\xe2`
never continue a character, so in bytes that are not UTF-8 these still end a line once decoded."""
_ODD_ENDS = (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")
_WIDE_ENDS = (b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9")
_HEADER = HEADER.encode()
_HEAD_BYTES = 4 * HEAD_CHARS + 4
"""Bytes that hold a text's first `HEAD_CHARS` characters whatever they are."""


def read_history(path: Path, leave: bool | None = None) -> History:
    """Read a history file as `restore(decode(its bytes))` does (OSError when it cannot be read); its long
    texts are left in it when `leave`, by default when it is `FILE_BYTES` or more."""
    with path.open("rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        reader = _Reader(str(path), size >= FILE_BYTES if leave is None else leave)
        line, base = 1, 0
        held: list[bytes] = []
        while chunk := handle.read(BLOCK):
            cut = chunk.rfind(b"\n") + 1
            if not cut:
                held.append(chunk)
                continue
            raw = b"".join((*held, chunk[:cut])) if held else chunk[:cut]
            held = [chunk[cut:]] if cut < len(chunk) else []
            line = reader.block(raw, base, line)
            base += len(raw)
        rest = b"".join(held)
    reader.size = base + len(rest)  # the appended header's lines start here: no run, no notice of the file's
    reader.check(rest)
    if rest.endswith(b"\r"):  # a line end of its own: the header's first `\n` is another
        line = reader.lines(rest, base, line)
        rest, base = b"", reader.size
    reader.lines(rest + APPENDED.encode(), base, line)
    reader.flush()
    reader.out.not_text = reader.damaged
    return reader.out


def text_of(data: bytes) -> str:
    """Bytes of the file as Aider opens them (UTF-8 with replacement characters, universal newlines)."""
    text = data.decode("utf-8", "replace")
    return text.replace("\r\n", "\n").replace("\r", "\n") if b"\r" in data else text


def assistant_text(data: bytes) -> str:
    """The model's message whose lines are `data` (a `# ` line among them is skipped)."""
    text = text_of(data)
    if b"#" not in data or not (text.startswith("# ") or "\n# " in text or _odd_ends(data)):
        return text  # no line starts with `# ` (one `#` looked for is a tenth of the cost of `# `)
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("# "))


def user_text(data: bytes) -> str:
    """The prompt whose `#### ` lines are `data` (a `# ` line among them is skipped)."""
    return "".join(line[5:] for line in text_of(data).splitlines(keepends=True) if not line.startswith("# "))


def _with_tail(role: str, tail: str, data: bytes) -> str:
    """The last message: its lines in the file, then what the client's appended header adds to it."""
    return (user_text if role == "user" else assistant_text)(data) + tail


def _odd_ends(data: bytes) -> bool:
    """Whether `data` has line ends other than `\n`, `\r\n` and `\r`."""
    return any(end in data for end in _ODD_ENDS) or (not data.isascii() and any(end in data for end in _WIDE_ENDS))


def _chars(data: bytes) -> int:
    """Characters `data` decodes to (a `\\r\\n` is one `\\n`)."""
    if data.isascii():
        return len(data) - data.count(b"\r\n")
    text = data.decode("utf-8", "replace")
    return len(text) - text.count("\r\n")


def _blank(data: bytes) -> bool:
    """Whether `data` decodes to whitespace only."""
    rest = data.strip()
    if not rest:
        return True
    if 0x20 < rest[0] < 0x7F:
        return False
    return not text_of(data).strip()


class _Reader:
    """`restore`'s walk through the lines, fed a block at a time, each line with its byte offset."""

    def __init__(self, path: str, leave: bool) -> None:
        self.path = path
        self.leave = leave
        """Long texts are left in the file (a file of `FILE_BYTES` or more)."""
        self.out = History()
        self.size = 1 << 62
        """The file's size once it is all read: lines from there on are the appended header's."""
        self.damaged = False
        self.role: str | None = None
        self.line = 0
        self.first = 0
        """Where the message's first line starts in the file."""
        self.last = 0
        """Where its last line in the file ends."""
        self.chars = 0
        self.blank = True
        self.pieces: list[bytes] | None = []
        """Its text's bytes while it is short (or held whole), None once it is left in the file."""
        self.start = b""
        """Its first `_HEAD_BYTES` bytes (for the head of a text left in the file)."""
        self.tail: list[bytes] = []
        """Its bytes past the file's end (the appended header's blank lines)."""

    def check(self, raw: bytes) -> None:
        """Note whether `raw` is not UTF-8."""
        if not self.damaged and not raw.isascii():
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                self.damaged = True

    def block(self, raw: bytes, base: int, line: int) -> int:
        """Read the whole lines `raw` at `base` (line `line` first); return the next line's number."""
        self.check(raw)
        if _odd_ends(raw) or (b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n")):
            return self.lines(raw, base, line)
        after = 0
        marked = [found.start() + 1 for found in _MARKED.finditer(raw)]
        if raw[:1] in (b"#", b">"):
            marked.insert(0, 0)
        for at in marked:
            if at > after:
                self.run(raw[after:at], base + after, line)
                line += raw.count(b"\n", after, at)
            after = raw.find(b"\n", at) + 1 or len(raw)
            self.marked(raw[at:after], base + at, line)
            line += 1
        if after < len(raw):
            self.run(raw[after:], base + after, line)
            line += raw.count(b"\n", after)
        return line

    def lines(self, raw: bytes, base: int, line: int) -> int:
        """`block` for bytes with line ends other than `\\n` and `\\r\\n`: line by line."""
        start = 0
        for end in [found.end() for found in _ENDS.finditer(raw)] + [len(raw)]:
            if end > start:
                data = raw[start:end]
                if data[:1] in (b"#", b">"):
                    self.marked(data, base + start, line)
                else:
                    self.run(data, base + start, line)
                line += 1
                start = end
        return line

    def run(self, data: bytes, offset: int, line: int) -> None:
        """Lines of the model's, none starting with `#` or `>`."""
        if self.role != "assistant":
            self.flush()
            self.role, self.line, self.first = "assistant", line, offset
        self.add(data, offset)

    def marked(self, data: bytes, offset: int, line: int) -> None:
        """One line starting with `#` or `>`."""
        if data.startswith(b"# "):
            if offset < self.size and data.startswith(_HEADER):
                self.out.runs.append(text_of(data)[len(HEADER) :].strip())
            return  # skipped, without ending the message it is in
        if data.startswith(b"> "):
            self.flush()
            if offset < self.size:
                learn_notice(self.out, text_of(data))
            return
        kind = "user" if data.startswith(b"#### ") else "assistant"
        if kind != self.role:
            self.flush()
            self.role, self.line, self.first = kind, line, offset
        if kind == "user":
            self.add(data[5:], offset + 5)
        else:
            self.add(data, offset)

    def add(self, data: bytes, offset: int) -> None:
        """Bytes of the message's text, at `offset` in the file (or past its end)."""
        inside = self.size - offset
        if inside < len(data):
            self.tail.append(data[max(inside, 0) :])
        self.last = max(self.last, min(offset + len(data), self.size))
        if data.endswith(b"\r"):  # a line's end: joined to the next line's `\n` it would be one end
            data = data[:-1] + b"\n"
        if self.blank and not _blank(data):
            self.blank = False
        self.chars += _chars(data)
        if len(self.start) < _HEAD_BYTES:
            self.start += data[: _HEAD_BYTES - len(self.start)]
        if self.pieces is not None:
            self.pieces.append(data)
            if self.leave and self.chars > TEXT_CHARS:
                self.pieces = None

    def flush(self) -> None:
        """End the message (kept unless it is whitespace only) and start none."""
        if self.role is not None and not self.blank:
            text: str | SpanText
            if self.pieces is not None:
                text = text_of(b"".join(self.pieces))
            else:
                rebuild = assistant_text if self.role == "assistant" else user_text
                if self.tail:
                    rebuild = partial(_with_tail, self.role, text_of(b"".join(self.tail)))
                head = text_of(self.start)[:HEAD_CHARS]
                text = SpanText(self.path, self.first, self.last - self.first, self.chars, head, rebuild)
            self.out.messages.append(Restored(self.role, text, self.line))
        self.role, self.chars, self.blank, self.pieces, self.start, self.tail = None, 0, True, [], b"", []
        self.last = 0
