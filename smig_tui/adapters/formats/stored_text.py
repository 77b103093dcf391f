"""Provides `LineText`: a long message text left in its source line and read back on demand.

Holding every text of a 500 MB session costs more memory than the whole file, while a plan keeps
only the newest few hundred messages and the TUI shows one line of each. So when a session file is
large, the readers keep just the length and the first characters of each long text, and re-parse
its line when the whole text is asked for. Session files only grow, so a line's bytes stay where
they were; a rewritten file is detected (the line no longer parses to a text of that length).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from smig_tui.core.errors import SourceChangedError
from smig_tui.core.models import Message

FILE_BYTES = 64 << 20
"""Files at least this big have their long texts left on disk; smaller ones are held whole."""
TEXT_CHARS = 2048
"""Texts longer than this are left on disk (in a file of `FILE_BYTES` or more)."""
HEAD_CHARS = 400
"""Characters of a stored text held for previews and one-line cells."""

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

    def read(self) -> str:
        """Re-parse the line and return the text; SourceChangedError if it is not there any more."""
        try:
            data = json.loads(self._raw().decode("utf-8", errors="replace"))
            texts = self.texts(data) if isinstance(data, dict) else ()
        except (ValueError, RecursionError):
            texts = ()
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
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                raw = handle.read(self.size + 1)
        except OSError as error:
            raise SourceChangedError(
                f"Cannot read {self.path} again ({error.strerror or error}); reload the session."
            ) from error
        if len(raw) < self.size or raw[self.size :] not in (b"", b"\n"):
            raise self._changed()
        return raw[: self.size]

    def _changed(self) -> SourceChangedError:
        return SourceChangedError(
            f"{self.path} was rewritten after smig read it (line at byte {self.offset} differs); "
            "reload the session."
        )


@dataclass(frozen=True, slots=True)
class TextStore:
    """Decides, for one file being read, which message texts to leave on disk."""

    path: str
    texts: LineTexts
    active: bool

    @classmethod
    def for_file(cls, path: str, file_size: int, texts: LineTexts) -> TextStore:
        """A store that leaves long texts on disk only when the file is large."""
        return cls(path, texts, file_size >= FILE_BYTES)

    def body(self, text: str, offset: int, size: int, part: int) -> str | LineText:
        """The body for the `part`-th text of the line at `offset`: the text, or where to find it."""
        if not self.active or len(text) <= TEXT_CHARS:
            return text
        return LineText(self.path, offset, size, part, len(text), text[:HEAD_CHARS], self.texts)

    def leave(self, messages: list[Message], offset: int, size: int) -> list[Message]:
        """Swap the long texts among one line's messages for `LineText`s pointing back at it."""
        if not self.active:
            return messages
        out = messages
        for part, message in enumerate(messages):
            body = message.body
            if isinstance(body, str) and len(body) > TEXT_CHARS:
                if out is messages:
                    out = list(messages)
                out[part] = replace(message, body=self.body(body, offset, size, part))
        return out
