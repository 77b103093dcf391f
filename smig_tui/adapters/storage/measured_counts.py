"""Provides the counts of a plan's own texts (placeholders, shortened outputs), kept between processes.

Planning a session whose every message is in the token cache counts nothing but the texts the plan
writes itself: the note in place of what was dropped, a shortened output's kept edges. Loading the
tokenizer for those few was 0.13 s of CPU a plan, more than half of it for a small session. They are
kept here by counter and the text's digest, the newest `MAX_TEXTS` of them, in one small file; one
that cannot be read is empty, one that cannot be written only a lost speed-up.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from pathlib import Path

from smig_tui.adapters.fs import atomic_write
from smig_tui.adapters.json_parse import parse
from smig_tui.adapters.storage.token_cache import encoded_json, load_json_object
from smig_tui.core.errors import SmigError

VERSION = 1
MAX_TEXTS = 20_000
"""Texts kept at most, all counters together (about 40 bytes each); past it the oldest are forgotten."""


def text_digest(text: str) -> str:
    """The key of a text in the file (a shortened output's edges run to kilobytes)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


class MeasuredCounts:
    """Raw counts of synthetic texts by counter name and text digest, read once and written when new."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._counts: dict[str, int] | None = None
        """By `counter name + "\\0" + digest`, the oldest first."""
        self._new: dict[str, int] = {}
        self._lock = threading.Lock()

    def get(self, counter: str, text: str) -> int | None:
        """The count `counter` gave `text` before, in this process or an earlier one (None: never)."""
        key = f"{counter}\0{text_digest(text)}"
        with self._lock:
            return self._loaded().get(key)

    def put(self, counter: str, text: str, tokens: int) -> None:
        """Remember what `counter` counted in `text`, for `save`."""
        key = f"{counter}\0{text_digest(text)}"
        with self._lock:
            self._loaded()[key] = tokens
            self._new[key] = tokens

    def save(self) -> None:
        """Add the counts made since the last save to the file as it is now (another process may have
        written it meanwhile); nothing is written when there are none."""
        with self._lock:
            if not self._new:
                return
            new, self._new = self._new, {}
            merged = _read(self.path)
            for key, tokens in new.items():
                merged.pop(key, None)  # re-inserted last: the newest are kept longest
                merged[key] = tokens
            for key in list(merged)[: max(0, len(merged) - MAX_TEXTS)]:
                del merged[key]
            self._counts = merged
            # Refused (not a regular file there) or failed: only a lost speed-up.
            with contextlib.suppress(SmigError, OSError):
                atomic_write(self.path, encoded_json({"v": VERSION, "counts": merged}))

    def _loaded(self) -> dict[str, int]:
        if self._counts is None:
            self._counts = _read(self.path)
        return self._counts


def _read(path: Path) -> dict[str, int]:
    """The counts in the file, or none when it is missing, damaged or of another version."""
    value = load_json_object(path, parse)
    counts = value.get("counts") if value is not None and value.get("v") == VERSION else None
    if not isinstance(counts, dict):
        return {}
    return {key: tokens for key, tokens in counts.items() if type(tokens) is int and tokens >= 0}
