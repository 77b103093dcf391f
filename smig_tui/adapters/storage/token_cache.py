"""Provides the persistent per-message token-count cache, so a session is tokenized once.

One JSON file per (session file, encoding) under `cache_dir/tokens/`, holding the file's size,
mtime_ns and a hash of its first and last 4 KB, plus each message's id, text hash and count. A session
kept as a database's rows (`DATABASE#ID`) is keyed by its messages' text length and last update instead
(`_version`), with no edges to hash.

- Same size and mtime_ns, same message ids: every count is reused without hashing (a hit).
- Any other change: counts are looked up by text hash, so only new or edited messages are
  counted. When the file only grew (larger, and the old size's first and last 4 KB unchanged)
  the lookup is reported as `grown`, else `changed`.
- An unreadable or corrupt cache file is ignored and rewritten; nothing here is ever fatal.

A small `index.json` keeps message count and migratable tokens per file, for listings.
Estimates (the offline fallback, or the length guesses for messages a plan never needed) are
never cached: a message not counted exactly is stored as `null`, and the index is written only
once every message is counted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smig_tui.adapters.fs import atomic_write, file_lock
from smig_tui.adapters.json_parse import parse
from smig_tui.core.errors import LockedError
from smig_tui.core.models import Message, Session, SessionInfo
from smig_tui.core.ports import TokenCounter
from smig_tui.core.tokens import framed, is_sent, render_for_count

VERSION = 1
EDGE = 4096


def text_hash(text: str) -> str:
    """Return a short stable hash of a text (for the memo; not for security)."""
    data = text.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=10).hexdigest()


def edge_hash(path: Path, size: int) -> str | None:
    """Hash the first and last 4 KB of the file's first `size` bytes (None when unreadable)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(min(EDGE, size))
            handle.seek(max(0, size - EDGE))
            tail = handle.read(min(EDGE, size))
    except OSError:
        return None
    return hashlib.blake2b(head + b"\0" + tail, digest_size=12).hexdigest()


def message_key(message: Message) -> str:
    """Return the memo key of a message: what is sent, and whether it is sent at all.

    A text left on disk is keyed by its line's bytes instead, so a grown huge file is matched
    without parsing every long line again.
    """
    sent = "s:" if is_sent(message) else "o:"
    body = message.body
    if isinstance(body, str):
        return text_hash(sent + render_for_count(message))
    return text_hash(f"{sent}@{message.kind}:{message.tool_name}:{body.fingerprint()}")


@dataclass
class CountResult:
    """Counts for one session, with how the cache served them."""

    counts: list[int]
    status: str
    """`hit`, `grown`, `changed`, `miss`, or `uncached` (estimates, unreadable file)."""
    counted: int
    """How many messages went to the tokenizer."""


@dataclass
class Known:
    """The exact counts the cache holds for one session; None where a message was never counted."""

    counts: list[int | None]
    status: str
    """`hit`, `grown`, `changed`, `miss`, or `uncached` (estimates, unreadable file)."""
    hashes: list[str | None] | None
    """Each message's memo key (None when uncached; an item is None until its message is counted)."""
    stat: tuple[int, int] | None


class TokenCache:
    """Caches per-message counts on disk, keyed by file, size, mtime and encoding."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._index: dict[str, Any] | None = None

    def counts(self, session: Session, counter: TokenCounter) -> CountResult:
        """Return each message's framed count under `counter`, tokenizing only what is new."""
        messages = session.messages
        path = Path(session.info.path)
        stat = _version(session)
        if not counter.exact or stat is None:
            return CountResult(_count(messages, counter, range(len(messages))), "uncached", len(messages))
        size, mtime_ns = stat
        entry = self._read(path, counter.name)
        ids = [m.id for m in messages]
        if _same(entry, size, mtime_ns, ids) and None not in entry["counts"]:  # type: ignore[index]
            return CountResult(list(entry["counts"]), "hit", 0)  # type: ignore[index]
        hashes = [message_key(m) for m in messages]
        memo = _memo(entry)
        missing = [i for i, h in enumerate(hashes) if h not in memo]
        fresh = dict(zip(missing, _count(messages, counter, missing), strict=True))
        counts = [fresh[i] if i in fresh else memo[h] for i, h in enumerate(hashes)]
        status = "miss" if entry is None else self._change_kind(path, entry, size)
        self._write(path, counter.name, size, mtime_ns, ids, hashes, counts)
        self._update_index(path, counter.name, size, mtime_ns, len(messages), _migratable(session, counts))
        return CountResult(counts, status, len(missing))

    def known(self, session: Session, counter: TokenCounter) -> Known:
        """Return the exact counts already cached for `session`, counting nothing."""
        messages = session.messages
        path = Path(session.info.path)
        stat = _version(session)
        if not counter.exact or stat is None:
            return Known([None] * len(messages), "uncached", None, stat)
        entry = self._read(path, counter.name)
        if entry is not None and _same(entry, *stat, [m.id for m in messages]):
            return Known(list(entry["counts"]), "hit", list(entry["hashes"]), stat)
        if entry is None:  # nothing to look up: hash only what gets counted, when it is stored
            return Known([None] * len(messages), "miss", [None] * len(messages), stat)
        keys = [message_key(m) for m in messages]
        memo = _memo(entry)
        hashes: list[str | None] = list(keys)
        return Known([memo.get(h) for h in keys], self._change_kind(path, entry, stat[0]), hashes, stat)

    def remember(self, session: Session, counter: TokenCounter, known: Known) -> None:
        """Store the exact counts in `known` (None stays uncounted); the index only once all are known."""
        if not counter.exact or known.stat is None or known.hashes is None:
            return
        path = Path(session.info.path)
        size, mtime_ns = known.stat
        messages = session.messages
        ids = [m.id for m in messages]
        hashes = known.hashes
        for i, n in enumerate(known.counts):
            if n is not None and hashes[i] is None:
                hashes[i] = message_key(messages[i])
        self._write(path, counter.name, size, mtime_ns, ids, hashes, known.counts)
        if None not in known.counts:
            counts = [n for n in known.counts if n is not None]
            self._update_index(path, counter.name, size, mtime_ns, len(counts), _migratable(session, counts))

    def cached_stats(self, info: SessionInfo, encoding: str = "o200k_base") -> tuple[int, int] | None:
        """Return (message count, migratable tokens) for a session counted before, if still current."""
        if self._index is None:
            self._index = load_json_object(self.folder / "index.json") or {}
        row = self._index.get(f"{encoding}:{info.path}")
        if not isinstance(row, dict) or row.get("size") != info.size:
            return None
        if abs(row.get("mtime_ns", 0) / 1e9 - info.mtime) > 1e-3:
            return None
        return int(row["messages"]), int(row["tokens"])

    def _change_kind(self, path: Path, entry: dict[str, Any], size: int) -> str:
        """Tell a file that only grew from one that was rewritten."""
        if size > entry["size"] and entry.get("edge") is not None and edge_hash(path, entry["size"]) == entry["edge"]:
            return "grown"
        return "changed"

    def _file(self, path: Path, encoding: str) -> Path:
        """Return the cache file for one session file and encoding."""
        key = hashlib.sha1(f"{encoding}\0{path}".encode("utf-8", "surrogatepass")).hexdigest()[:24]
        return self.folder / f"{key}.json"

    def _read(self, path: Path, encoding: str) -> dict[str, Any] | None:
        """Return a valid cache entry, or None when absent or damaged."""
        entry = load_json_object(self._file(path, encoding), parse)
        if not entry or entry.get("v") != VERSION or entry.get("path") != str(path):
            return None
        try:
            if not (len(entry["ids"]) == len(entry["hashes"]) == len(entry["counts"])):
                return None
            if not all(n is None or isinstance(n, int) for n in entry["counts"]):
                return None
            int(entry["size"]), int(entry["mtime_ns"])
        except (KeyError, TypeError, ValueError):
            return None
        return entry

    def _write(
        self,
        path: Path,
        encoding: str,
        size: int,
        mtime_ns: int,
        ids: list[str],
        hashes: Sequence[str | None],
        counts: Sequence[int | None],
    ) -> None:
        """Store an entry atomically; a cache that cannot be written is simply skipped."""
        entry = {
            "v": VERSION,
            "path": str(path),
            "encoding": encoding,
            "size": size,
            "mtime_ns": mtime_ns,
            "edge": edge_hash(path, size),
            "ids": ids,
            "hashes": hashes,
            "counts": counts,
        }
        with contextlib.suppress(OSError):
            atomic_write(self._file(path, encoding), encoded_json(entry))

    def _update_index(self, path: Path, encoding: str, size: int, mtime_ns: int, messages: int, tokens: int) -> None:
        """Record a session's totals in the listing index (best effort, locked): a session file's only, as
        the listing's entry of a database's session is not keyed by what `_version` keys it by."""
        if _stat(path) is None:
            return
        index_path = self.folder / "index.json"
        try:
            with file_lock(self.folder / ".index.lock", timeout=1.0, what="the token cache"):
                index = load_json_object(index_path) or {}
                index[f"{encoding}:{path}"] = {
                    "size": size,
                    "mtime_ns": mtime_ns,
                    "messages": messages,
                    "tokens": tokens,
                }
                atomic_write(index_path, json.dumps(index, separators=(",", ":")))
                self._index = index
        except (OSError, LockedError):
            pass


def _same(entry: dict[str, Any] | None, size: int, mtime_ns: int, ids: list[str]) -> bool:
    """Tell whether a cache entry describes this very file and message list."""
    return bool(entry) and entry["size"] == size and entry["mtime_ns"] == mtime_ns and entry["ids"] == ids  # type: ignore[index]


def _memo(entry: dict[str, Any] | None) -> dict[str, int]:
    """Map text hash to exact count for the messages an entry counted."""
    if not entry:
        return {}
    return {h: n for h, n in zip(entry["hashes"], entry["counts"], strict=True) if n is not None and h}


def _count(messages: Sequence[Any], counter: TokenCounter, indices: Sequence[int] | range) -> list[int]:
    """Count the given messages in one batch, framing included."""
    texts = [render_for_count(messages[i]) for i in indices]
    raw = counter.count_many(texts)
    return [framed(n, messages[i]) for n, i in zip(raw, indices, strict=True)]


def _version(session: Session) -> tuple[int, int] | None:
    """What a session's entry holds for: its file's (size, mtime_ns); for a session kept as rows of a
    database (`DATABASE#ID`, whose file changes with every other session's write), the length of all its
    messages' texts and its last update (a message added, or one rewritten at another length, moves it;
    the ids, compared beside it, change with any message added or removed; one rewritten at its very
    length with the update time unchanged would not: no client is known to rewrite a part so). None when
    neither is known."""
    stat = _stat(Path(session.info.path))
    if stat is not None:
        return stat
    from smig_tui.adapters.agents.registry import row_ref

    if row_ref(session.info.path) is None or not session.info.mtime:
        return None
    return sum(message.text_length for message in session.messages), round(session.info.mtime * 1e9)


def _stat(path: Path) -> tuple[int, int] | None:
    """Return (size, mtime_ns) of a file, or None."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


def load_json_object(path: Path, loads: Callable[[bytes], Any] = json.loads) -> dict[str, Any] | None:
    """Read a cache file's JSON object, or None when missing or damaged. A session's entry is read with
    msgspec (`json_parse.parse`: 0.017 s, not 0.029 s, for a 150,000-message session's); the listing's
    index with `json.loads`, so a warm listing imports nothing more."""
    try:
        value = loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def encoded_json(entry: dict[str, Any]) -> bytes | str:
    """A cache file's object (a session's entry, the measured counts) as compact JSON: by orjson, in a
    tenth of the time `json.dumps` takes on a 150,000-message session's entry (0.003-0.009 s, not
    0.04-0.055 s, the same bytes); by `json.dumps` when orjson refuses (a lone surrogate in a path or an id)."""
    import orjson  # here: a listing reads the cache and writes none

    try:
        return orjson.dumps(entry)
    except orjson.JSONEncodeError:
        return json.dumps(entry, separators=(",", ":"))


def _migratable(session: Session, counts: Sequence[int]) -> int:
    """`plans.migratable_tokens`, imported when counts are stored: a listing only reads them."""
    from smig_tui.core.plans import migratable_tokens

    return migratable_tokens(session, counts)
