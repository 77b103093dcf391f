# smig: compiled with mypyc where it can (setup.py)
"""Provides `LineText`: a long message text left in its source line and read back on demand.

Holding every text of a 500 MB session costs more memory than the whole file, while a plan keeps
only the newest few hundred messages and the TUI shows one line of each. So when a session file is
large, the readers keep just the length and the first characters of each long text, and re-parse
its line when the whole text is asked for. Session files only grow, so a line's bytes stay where
they were; a rewritten file is detected (the line no longer parses to a text of that length).
"""

from __future__ import annotations

import bisect
import codecs
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO, TypeVar, cast

from smig_tui.adapters.json_parse import fast_loads
from smig_tui.adapters.zstd_files import Packer, decompress
from smig_tui.core.errors import SourceChangedError
from smig_tui.core.models import Message
from smig_tui.core.text_classes import HEAD_CHARS as CLASS_CHARS

FILE_BYTES = 64 << 20
"""Files at least this big have their long texts left on disk; smaller ones are held whole."""
TEXT_CHARS = 2048
"""Texts longer than this are left on disk (in a file of `FILE_BYTES` or more)."""
HUGE_LINE = 16 << 20
"""A line this long is decoded, its bytes let go, and then parsed (`LineText._line_texts`)."""
HEAD_CHARS = 400
"""Characters of a stored text held for previews and one-line cells."""
_T = TypeVar("_T")

LineTexts = Callable[[dict[str, Any]], Sequence[str]]
"""Re-derives, from one parsed line, the texts of the messages that line produced, in order."""


@dataclass(frozen=True, slots=True)
class LineText:
    """The `part`-th message text of the line at `offset` (`size` bytes, newline excluded)."""

    path: str
    offset: int
    size: int
    part: int
    length: int
    head: str
    texts: LineTexts

    @property
    def class_head(self) -> str:
        """Its head: the line is not read again to decide its class of text."""
        return self.head

    def read(self) -> str:
        """Re-parse the line and return the text; SourceChangedError if it is not there any more."""
        return _reread(self.path, lambda handle: self._pick(self._line_texts(handle)))

    def _line_texts(self, handle: BinaryIO) -> Sequence[str]:
        """The texts the line holds, read from `handle` (none when they no longer parse)."""
        raw = self._raw_from(handle)
        try:
            if len(raw) >= HUGE_LINE:
                # Its bytes let go before it is parsed: parsed from bytes, they are held beside what they
                # parse to (with orjson, a copy too: a 100 MB line took 300 MB); decoded first, only the
                # text and what it parses to are.
                text = raw.decode("utf-8", errors="replace")
                del raw
                data = json.loads(text)
            else:
                data = fast_loads(raw)
                if data is None:  # what msgspec refuses: as it always was read
                    data = json.loads(raw.decode("utf-8", errors="replace"))
            return self.texts(data) if isinstance(data, dict) else ()
        except (ValueError, RecursionError):
            return ()

    def _pick(self, texts: Sequence[str]) -> str:
        """This text among its line's, checked to have the length it had when the file was read."""
        if self.part < len(texts) and len(texts[self.part]) == self.length:
            return texts[self.part]
        raise self._changed()

    def fingerprint(self) -> str:
        """A hash of the line's bytes and the text's place in it: stable while the file only grows."""
        digest = hashlib.blake2b(self._raw(), digest_size=10)
        digest.update(f"#{self.part}".encode())
        return digest.hexdigest()

    def _raw(self) -> bytes:
        """The line's bytes, checked to still end where they ended when the file was read."""
        return _reread(self.path, self._raw_from)

    def _raw_from(self, handle: BinaryIO) -> bytes:
        """`_raw` from a file already open (one handle serves every text of a batch)."""
        handle.seek(self.offset)
        raw = handle.read(self.size)  # its end read apart: slicing it off copied a 100 MB line whole
        if len(raw) < self.size or handle.read(1) not in (b"", b"\n"):
            raise self._changed()
        return raw

    def _changed(self) -> SourceChangedError:
        return SourceChangedError(
            f"{self.path} was rewritten after smig read it (line at byte {self.offset} differs); reload the session."
        )


@dataclass(frozen=True, slots=True)
class SpanText:
    """A long text rebuilt from the `size` bytes at `offset` of its file, for formats where a message is
    a run of lines rather than one JSON line (Aider's Markdown history): `rebuild` makes the text of
    those bytes, checked to have the length it had when the file was read."""

    path: str
    offset: int
    size: int
    length: int
    head: str
    rebuild: Callable[[bytes], str]

    @property
    def class_head(self) -> str:
        """Its head: the span is not read again to decide its class of text."""
        return self.head

    def read(self) -> str:
        """Read the span again and rebuild the text; SourceChangedError if the file was rewritten."""
        return _reread(self.path, self.read_from)

    def read_from(self, handle: BinaryIO) -> str:
        """`read` from a file already open (one handle serves every text of a batch)."""
        text = self.rebuild(self._raw_from(handle))
        if len(text) != self.length:
            raise self._changed()
        return text

    def fingerprint(self) -> str:
        """A hash of the span's bytes and the text's length (the last message of a history has a few
        line ends of its own after them): stable while the file only grows."""
        digest = hashlib.blake2b(_reread(self.path, self._raw_from), digest_size=10)
        digest.update(f"#{self.length}".encode())
        return digest.hexdigest()

    def _raw_from(self, handle: BinaryIO) -> bytes:
        handle.seek(self.offset)
        raw = handle.read(self.size)
        if len(raw) < self.size:
            raise self._changed()
        return raw

    def _changed(self) -> SourceChangedError:
        return SourceChangedError(
            f"{self.path} was rewritten after smig read it (text at byte {self.offset} differs); reload the session."
        )


def _reread(path: str, read: Callable[[BinaryIO], _T]) -> _T:
    """`read` on the file at `path`, opened again; SourceChangedError when it cannot be opened or read."""
    try:
        with open(path, "rb") as handle:
            return read(handle)
    except OSError as error:
        raise SourceChangedError(
            f"Cannot read {path} again ({error.strerror or error}); reload the session."
        ) from error


def read_texts(messages: Sequence[Message]) -> list[str]:
    """Every message's text, the ones left on disk read back in file order with one open per file.

    Reading them one by one (`Message.text`) opens the file and parses the line once per text: on a
    huge session's export that was 50,000 opens. Here each file is opened once, its lines (and spans)
    are read in offset order, and a line holding several texts is parsed once.
    """
    texts: list[str] = []
    on_disk: dict[str, list[tuple[int, LineText | SpanText]]] = {}
    for index, message in enumerate(messages):
        body = message.body
        if isinstance(body, LineText | SpanText):
            on_disk.setdefault(body.path, []).append((index, body))
            texts.append("")
        else:
            texts.append(message.text)
    for path, stored in on_disk.items():
        stored.sort(key=lambda item: item[1].offset)
        _reread(path, partial(_fill, texts, stored))
    return texts


def _fill(texts: list[str], stored: Sequence[tuple[int, LineText | SpanText]], handle: BinaryIO) -> None:
    """Put the texts of one file's `stored` (in offset order) at their indexes, each line parsed once."""
    line_at, line_texts = -1, cast(Sequence[str], ())
    for index, body in stored:
        if isinstance(body, SpanText):
            texts[index] = body.read_from(handle)
            continue
        if body.offset != line_at:
            line_at, line_texts = body.offset, body._line_texts(handle)
        texts[index] = body._pick(line_texts)


def with_texts(messages: Sequence[Message]) -> list[Message]:
    """The messages with their texts in hand (`read_texts`), so later readers open no file again."""
    texts = read_texts(messages)
    return [
        message if isinstance(message.body, str) else message.with_body(text)
        for message, text in zip(messages, texts, strict=True)
    ]


BLOCK_BYTES = 4 << 20
"""Where no spill can be made, long texts are packed together in blocks of about this size. Packing the
210 MB of long texts of a 500 MB Codex session took 0.58 s in 1 MB blocks, 0.39 s in 4 MB ones (which
also hold them in 38 MB, not 42); unpacking one block to read a text takes a few milliseconds."""


class TextBlock:
    """Long texts packed together: the texts' bytes while it fills, one zstd frame once full."""

    __slots__ = ("packed", "pieces")

    def __init__(self) -> None:
        self.pieces: list[bytes] | None = []
        """The bytes of the texts put in so far, each as it came: a growing bytearray was copied as it
        grew (0.4 s of packing the 210 MB of long texts of a 500 MB Codex session); None once packed."""
        self.packed: bytes | None = None

    def piece(self, start: int, end: int) -> bytes:
        """The block's bytes from `start` to `end`."""
        return self.content()[start:end]

    def content(self) -> bytes:
        """The block's bytes; a filling block's pieces are joined once, the last block unpacked is kept,
        as readers go through texts in order."""
        global _last_unpacked
        pieces = self.pieces
        if pieces is not None:
            if len(pieces) != 1:
                pieces[:] = [b"".join(pieces)]
            return pieces[0]
        last = _last_unpacked
        if last is not None and last[0] is self:
            return last[1]
        data = decompress(self.packed or b"")
        _last_unpacked = (self, data)
        return data


_last_unpacked: tuple[TextBlock, bytes] | None = None


SPILL_BATCH = 1 << 20
"""Bytes of texts a spill gathers before writing them out in one call."""
_IOV_MAX = 512
"""Pieces written in one call at most (the system's limit is 1,024 on Linux and macOS)."""


class TextSpill:
    """Long texts of one read, written one after another to an unnamed file of smig's own and read back
    at their offsets: the file's pages are the system's cache, which it can write out and give back.

    Packing them with zstd took 0.37-0.42 s of CPU for the 210 MB of long texts of a 500 MB session;
    writing them takes about 0.04 s, and reading one back unpacks nothing. The file has no name (or
    loses it at once where the system cannot make one so), lives in smig's cache folder with mode 0600,
    and goes when the last text in it does.
    """

    __slots__ = ("_fd", "_file", "_pending", "_pending_bytes", "_starts", "_window", "_written", "broken")

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self._fd = file.fileno()
        self._pending: list[bytes] = []
        """Texts added and not yet written, gathered to write many in one call; they follow the written bytes."""
        self._starts: list[int] = []
        """Where each pending piece starts in the spill."""
        self._pending_bytes = 0
        self._written = 0
        """Bytes written to the file."""
        self.broken = False
        """A write failed (a full disk): what it did not write stays pending, in memory; add no more."""
        self._window: tuple[int, bytes] = (0, b"")
        """The bytes last read from the file and where they start: readers go through texts in order."""

    @classmethod
    def create(cls) -> TextSpill | None:
        """A spill in smig's cache folder; None where no such file can be made or read at an offset."""
        if not hasattr(os, "pwritev") or not hasattr(os, "pread"):
            return None
        from smig_tui.adapters.paths import resolve_paths

        folder = resolve_paths().cache_dir
        try:
            folder.mkdir(parents=True, exist_ok=True)
            return cls(cast(BinaryIO, tempfile.TemporaryFile(dir=folder)))
        except OSError:
            return None

    def __del__(self) -> None:
        self._file.close()  # closed, not left to the file's own finalizer, which warns

    def add(self, data: bytes) -> int:
        """Put `data` at the spill's end; return where it starts."""
        start = self._written + self._pending_bytes
        self._pending.append(data)
        self._starts.append(start)
        self._pending_bytes += len(data)
        if not self.broken and (self._pending_bytes >= SPILL_BATCH or len(self._pending) >= _IOV_MAX):
            self._write()
        return start

    def _write(self) -> None:
        """Write the pending pieces; on a failure keep what was not written and mark the spill broken."""
        pending, starts = self._pending, self._starts
        while pending:
            try:
                done = os.pwritev(self._fd, pending, self._written)
            except OSError:
                done = 0
            if done <= 0:
                self.broken = True
                return
            self._written += done
            self._pending_bytes -= done
            whole = 0
            while whole < len(pending) and done >= len(pending[whole]):
                done -= len(pending[whole])
                whole += 1
            del pending[:whole], starts[:whole]
            if done:  # a piece written in part: its rest stays pending
                pending[0], starts[0] = pending[0][done:], starts[0] + done

    def piece(self, start: int, end: int) -> bytes:
        """The spill's bytes from `start` to `end`."""
        written = self._written
        if end <= written:
            return self._read(start, end)
        if start >= written:
            return self._from_pending(start, end)
        return self._read(start, written) + self._from_pending(written, end)

    def _read(self, start: int, end: int) -> bytes:
        """Bytes of the file, through a window read ahead: one read of each text was 117,000 calls to the
        system in the 603 MB OpenCode session's export."""
        at, window = self._window
        if at <= start and end <= at + len(window):
            return window[start - at : end - at]
        if end - start >= SPILL_BATCH:
            data = os.pread(self._fd, end - start, start)
        else:
            window = os.pread(self._fd, max(end, min(start + SPILL_BATCH, self._written)) - start, start)
            self._window = (start, window)
            data = window[: end - start]
        if len(data) != end - start:
            raise SourceChangedError("smig's file of a session's long texts was cut short; reload the session.")
        return data

    def _from_pending(self, start: int, end: int) -> bytes:
        at = bisect.bisect_right(self._starts, start) - 1
        out: list[bytes] = []
        while start < end:
            offset = start - self._starts[at]
            taken = self._pending[at][offset : offset + end - start]
            out.append(taken)
            start += len(taken)
            at += 1
        return out[0] if len(out) == 1 else b"".join(out)


class TextPacker:
    """Puts one read's long texts in a spill (`TextSpill`), or where none can be made or it fails, in
    blocks packed with zstd as each fills (one per reader)."""

    def __init__(self) -> None:
        self._spill: TextSpill | None = None
        self._spill_tried = False
        """The spill is made with the first text: a reader makes a packer for every compressed file, most
        of which are too small to set any text aside."""
        self._packer: Packer | None = None
        self._block = TextBlock()
        self._filled = 0
        """Bytes in the current block."""

    def add(self, data: bytes) -> tuple[TextSpill | TextBlock, int]:
        """Put `data` in the spill or the current block; return which and where in it `data` starts."""
        if not self._spill_tried:
            self._spill, self._spill_tried = TextSpill.create(), True
        spill = self._spill
        if spill is not None and not spill.broken:
            return spill, spill.add(data)
        block = self._block
        assert block.pieces is not None
        start = self._filled
        block.pieces.append(data)
        self._filled += len(data)
        if self._filled >= BLOCK_BYTES:
            if self._packer is None:
                self._packer = Packer()
            block.packed, block.pieces = self._packer.pack(b"".join(block.pieces)), None
            self._block, self._filled = TextBlock(), 0
        return block, start


def packer_for(path: Path) -> TextPacker | None:
    """A packer for the long texts of a session in a file of `FILE_BYTES` or more (a database holding a
    big session is known only by its size before its rows are read); None for a smaller or unreadable one."""
    try:
        return TextPacker() if path.stat().st_size >= FILE_BYTES else None
    except OSError:
        return None


@dataclass(frozen=True, slots=True)
class PackedText:
    """A long text of a huge session whose source cannot be entered at a line's offset, set aside with its
    neighbours in a spill (`TextSpill`), or packed with zstd in memory where no spill can be made.

    A `.jsonl.zst` file cannot be entered without decompressing all before the text, a database's row
    or a JSON document's message are not a line of their own: their long texts cannot be left in the
    source, and held as strings they would cost more than the file.
    """

    block: TextSpill | TextBlock
    start: int
    size: int
    length: int

    @classmethod
    def of(cls, text: str, packer: TextPacker) -> PackedText:
        """Pack a text into the reader's current block."""
        data = text.encode("utf-8", "surrogatepass")
        block, start = packer.add(data)
        return cls(block, start, len(data), len(text))

    @property
    def head(self) -> str:
        """The first `HEAD_CHARS` characters, unpacked when asked: held beside every packed text, they
        were 18 MB of a 500 MB Crush session and 30 MB of a dense OpenCode one, for previews of a few."""
        return self._first(HEAD_CHARS)

    @property
    def class_head(self) -> str:
        """The characters a held text's class is decided from (`core.text_classes`), so packing a text
        never changes its class."""
        return self._first(CLASS_CHARS)

    def _first(self, chars: int) -> str:
        """The first `chars` characters, unpacking only the bytes that hold them."""
        if self.size <= 4 * chars:
            return self.read()[:chars]
        piece = self.block.piece(self.start, self.start + 4 * chars)  # holds `chars` characters
        return codecs.getincrementaldecoder("utf-8")("surrogatepass").decode(piece)[:chars]

    def _bytes(self) -> bytes:
        return self.block.piece(self.start, self.start + self.size)

    def read(self) -> str:
        """Unpack the text."""
        return self._bytes().decode("utf-8", "surrogatepass")

    def fingerprint(self) -> str:
        """A hash of the text's bytes (taken when asked, like `LineText`'s, not while loading)."""
        return hashlib.blake2b(self._bytes(), digest_size=10).hexdigest()


SHORT_CHARS = 160
"""A big database session's texts longer than this are packed, not only its long outputs (issue 35): a
held string of n characters costs 49 + n bytes (74 + 2n with one character past Latin-1), a packed one
about 150 bytes plus its share of a block, so shorter ones stay strings."""


def packed(text: str, packer: TextPacker) -> str | PackedText:
    """`text` packed when it is longer than `SHORT_CHARS`, else itself."""
    return PackedText.of(text, packer) if len(text) > SHORT_CHARS else text


@dataclass(frozen=True, slots=True)
class TextStore:
    """Decides, for one file being read, which message texts to leave on disk (or pack, when compressed)."""

    path: str
    texts: LineTexts
    active: bool
    packer: TextPacker | None = None
    """Set for a compressed file: its long texts are packed in memory instead."""

    @classmethod
    def for_file(cls, path: str, file_size: int, texts: LineTexts) -> TextStore:
        """A store that leaves long texts on disk only when the file is large."""
        return cls(path, texts, file_size >= FILE_BYTES)

    @classmethod
    def for_compressed(cls, path: str, content_size: int, texts: LineTexts) -> TextStore:
        """A store that packs long texts in memory when the decompressed content is large."""
        return cls(path, texts, content_size >= FILE_BYTES, TextPacker())

    def body(self, text: str, offset: int, size: int, part: int) -> str | LineText | PackedText:
        """The body for the `part`-th text of the line at `offset`: the text, or where to find it."""
        if not self.active or len(text) <= TEXT_CHARS:
            return text
        if self.packer is not None:
            return PackedText.of(text, self.packer)
        return LineText(self.path, offset, size, part, len(text), text[:HEAD_CHARS], self.texts)

    def leave(self, messages: Sequence[Message], offset: int, size: int) -> Sequence[Message]:
        """Swap the long texts among one line's messages for `LineText`s pointing back at it."""
        if not self.active:
            return messages
        out: list[Message] | None = None
        for part, message in enumerate(messages):
            body = message.body
            if isinstance(body, str) and len(body) > TEXT_CHARS:
                if out is None:
                    out = list(messages)
                out[part] = message.with_body(self.body(body, offset, size, part))
        return messages if out is None else tuple(out)
