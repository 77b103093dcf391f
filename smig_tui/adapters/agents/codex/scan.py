# smig: compiled with mypyc where it can (setup.py)
"""Provides the cheap reads behind Codex discovery: rollout tree, names, state DB, heads, tails.

Nothing here parses a whole rollout: a head read stops once it has what a listing needs, and a tail
read looks only at the last 256 KB, so a 500 MB file costs about the same as a 5 KB one.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.codex.items import (
    convert,
    cwd_from_environment,
    is_injected_text,
    typed_prompt,
)
from smig_tui.adapters.fs import not_a_session_file
from smig_tui.adapters.json_parse import loads
from smig_tui.adapters.jsonl import iter_lines
from smig_tui.adapters.sqlite_read import read_only_uri
from smig_tui.adapters.zstd_files import SUFFIX, GeneratorFile, is_compressed, open_binary
from smig_tui.core.models import Kind, ReadWarning, Role
from smig_tui.core.ports import WarningSink

HEAD_LINES = 250
"""Codex itself looks for a preview within 10 + 200 lines (FORMATS.md 1.14)."""
HEAD_BYTES = 4 << 20
"""Give up looking for a title after this much of the file."""
HEAD_CHUNK = 64 * 1024
TAIL_BYTES = 256 * 1024
TAIL_FIRST = 32 * 1024
"""Most rollouts end with a token_count a few lines from the end: try a small tail read first."""
_HEAD_WANTED = (b'"session_meta"', b'"turn_context"', b'"user_message"', b'"role":"user"', b'"item_completed"')
_HISTORY_REWRITES = (b'"type":"compacted"', b'"type":"thread_rolled_back"')
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
_TS_FIELD = re.compile(rb'"timestamp"\s*:\s*"([^"]{10,40})"')
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_NAME_ID = re.compile(rf"-({_UUID})(?:_{_UUID})?\.jsonl(?:\.zst)?$")
"""`rollout-<time>-<thread>.jsonl`, or `…-<thread>_<segment>.jsonl` for a later file of the thread (0.171)."""
_STATE_DB = re.compile(r"^state_(\d+)\.sqlite$")
_THREAD_COLUMNS = ("id", "title", "model", "first_user_message")


def iso_or_none(value: Any) -> str | None:
    """Keep a value only if it looks like an ISO 8601 timestamp."""
    return value if isinstance(value, str) and _ISO.match(value) else None


@dataclass(slots=True)
class Head:
    """What the first lines of a rollout say."""

    meta: dict[str, Any] = field(default_factory=dict)
    """The first `session_meta` payload (or the bare-era first line)."""
    model: str | None = None
    prompt: str | None = None
    """The first typed prompt, from its `user_message` event (what Codex's own picker shows)."""
    typed: str | None = None
    """The first user message that is not harness context: the title when no event has one."""
    cwd: str | None = None
    """From `<environment_context>`, for bare-era files that have no cwd in their meta."""
    bare: bool = False


@dataclass(slots=True)
class Tail:
    """What the last 256 KB of a rollout say."""

    updated: str | None = None
    model: str | None = None
    last_usage: dict[str, Any] | None = None
    window: int | None = None


@dataclass(frozen=True, slots=True)
class ThreadRow:
    """The columns smig uses from Codex's `threads` table."""

    title: str | None
    model: str | None
    first_user_message: str | None


def walk_rollouts(roots: list[Path], warn: WarningSink) -> list[str]:
    """Return every `rollout-*.jsonl` and `rollout-*.jsonl.zst` under the roots, newest first.

    Codex compresses idle rollouts and materialises a plain copy again before appending, so both
    forms of one file can sit side by side for a while: the one modified last is kept.
    """
    chosen: dict[str, tuple[float, str]] = {}
    for root in roots:
        for path in _walk(str(root), warn):
            name = os.path.basename(path)
            if not name.startswith("rollout-"):
                continue
            if name.endswith(".jsonl"):
                stem = path
            elif name.endswith(".jsonl.zst"):
                stem = path[: -len(SUFFIX)]
            else:
                continue
            mtime = _mtime(path)
            kept = chosen.get(stem)
            if kept is None or mtime > kept[0] or (mtime == kept[0] and path == stem):
                chosen[stem] = (mtime, path)
    found = [path for _, path in chosen.values()]
    # The name starts with the local start time, so sorting names sorts sessions by age.
    found.sort(key=os.path.basename, reverse=True)
    return found


def _mtime(path: str) -> float:
    """A file's mtime, or 0 when it cannot be read (the read that follows reports why)."""
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def thread_id_of(path: str) -> str | None:
    """The thread id Codex puts in a rollout's name (a revert's new segment adds `_<segment id>`)."""
    match = _NAME_ID.search(os.path.basename(path))
    return match.group(1) if match else None


def _walk(root: str, warn: WarningSink) -> Iterator[str]:
    """Yield files below `root`, reporting folders that cannot be read instead of failing."""
    try:
        with os.scandir(root) as entries:
            listed = list(entries)
    except FileNotFoundError:
        return
    except OSError as error:
        warn(
            ReadWarning(
                root,
                None,
                f"cannot read folder ({error.strerror or error}); its sessions are not listed",
            )
        )
        return
    for entry in listed:
        try:
            if entry.is_dir(follow_symlinks=False):
                if entry.name.endswith(".jsonl"):
                    warn(ReadWarning(entry.path, None, "named like a session but it is a folder; looked inside"))
                yield from _walk(entry.path, warn)
            elif entry.is_file():
                yield entry.path
            elif entry.name.endswith(".jsonl"):
                warn(ReadWarning(entry.path, None, not_a_session_file(entry) or "not a regular file; skipped"))
        except OSError as error:
            why = not_a_session_file(entry) if entry.name.endswith(".jsonl") else None
            warn(ReadWarning(entry.path, None, why or f"cannot read ({error.strerror or error}); skipped"))


def read_session_index(path: Path, warn: WarningSink) -> dict[str, str]:
    """Map thread ids to the names the user gave them; the last row per id wins."""
    names: dict[str, str] = {}
    if not path.is_file():
        return names
    try:
        for _, _, raw, _ in iter_lines(str(path)):
            try:
                row = loads(raw)
            except (ValueError, RecursionError):  # damaged or nested too deeply
                continue
            if isinstance(row, dict) and isinstance(row.get("id"), str):
                name = row.get("thread_name")
                if isinstance(name, str) and name.strip():
                    names[row["id"]] = name.strip()
                else:
                    names.pop(row["id"], None)
    except OSError as error:
        warn(ReadWarning(str(path), None, f"cannot read thread names ({error.strerror or error})"))
    return names


def find_state_db(folders: list[Path]) -> Path | None:
    """Return the newest-schema `state_N.sqlite` in the first folder that has one."""
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        numbered = [(int(m.group(1)), name) for name in names if (m := _STATE_DB.match(name))]
        if numbered:
            return folder / max(numbered)[1]
    return None


def read_state_db(path: Path, warn: WarningSink) -> dict[str, ThreadRow]:
    """Read titles and models from Codex's state DB, read-only and creating nothing beside it
    (`sqlite_read`); a bad DB is only a warning."""
    try:
        connection = sqlite3.connect(read_only_uri(path.resolve()), uri=True, timeout=0.2)
    except sqlite3.Error as error:
        warn(
            ReadWarning(
                str(path),
                None,
                f"cannot open Codex state DB ({error}); using the rollout files only",
            )
        )
        return {}
    try:
        columns = {row[1] for row in connection.execute("PRAGMA table_info(threads)")}
        if "id" not in columns:
            return {}
        wanted = [name for name in _THREAD_COLUMNS if name in columns]
        rows = connection.execute(f"SELECT {', '.join(wanted)} FROM threads").fetchall()
    except sqlite3.Error as error:
        warn(
            ReadWarning(
                str(path),
                None,
                f"cannot read Codex state DB ({error}); using the rollout files only",
            )
        )
        return {}
    finally:
        connection.close()
    threads: dict[str, ThreadRow] = {}
    for row in rows:
        values = dict(zip(wanted, row, strict=True))
        threads[str(values["id"])] = ThreadRow(
            _text(values.get("title")),
            _text(values.get("model")),
            _text(values.get("first_user_message")),
        )
    return threads


def _text(value: Any) -> str | None:
    """Keep non-blank strings only."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def _head_lines(path: str) -> Iterator[tuple[int, bytes]]:
    """Yield (line number, raw line) from the start, reading small chunks so a stop costs little."""
    with GeneratorFile(open_binary(path)) as handle:
        pending, number, read = b"", 1, 0
        while read < HEAD_BYTES:
            chunk = handle.read(HEAD_CHUNK)
            if not chunk:
                break
            read += len(chunk)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                yield number, raw
                number += 1
        if pending and read < HEAD_BYTES:
            yield number, pending


def scan_head(path: str) -> Head:
    """Read the first lines of a rollout for its meta, first model and first typed prompt."""
    head = Head()
    for number, raw in _head_lines(path):
        if number > HEAD_LINES or (head.meta and head.model and head.prompt):
            break
        if number > 1 and not head.bare and not any(tag in raw[:200] for tag in _HEAD_WANTED):
            continue
        try:
            data = loads(raw)
        except (ValueError, RecursionError):  # damaged or nested too deeply
            continue
        if isinstance(data, dict):
            _absorb_head(head, data, number)
    return head


def _absorb_head(head: Head, data: dict[str, Any], number: int) -> None:
    """Take what a listing needs from one head record."""
    kind, payload = data.get("type"), data.get("payload")
    if number == 1 and "payload" not in data and "id" in data and kind is None:
        head.meta, head.bare = data, True
    elif not isinstance(payload, dict):
        if head.bare and kind == "message":
            _absorb_bare_message(head, data)
    elif kind == "session_meta" and not head.meta:
        head.meta = payload
    elif kind == "turn_context" and head.model is None and isinstance(payload.get("model"), str):
        head.model = payload["model"]
    elif kind == "event_msg" and payload.get("type") == "user_message" and head.prompt is None:
        text = typed_prompt(str(payload.get("message") or ""))
        head.prompt = text or None
    elif kind == "event_msg" and payload.get("type") == "item_completed" and head.prompt is None:
        head.prompt = completed_user_text(payload.get("item")) or None
    elif kind == "response_item" and payload.get("type") == "message":
        _absorb_bare_message(head, payload)


def completed_user_text(item: Any) -> str | None:
    """The typed prompt of a paginated thread's `item_completed` UserMessage (Codex 0.154+)."""
    if not isinstance(item, dict) or item.get("type") != "UserMessage":
        return None
    parts = item.get("content")
    texts = (
        [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
        if isinstance(parts, list)
        else []
    )
    return typed_prompt("".join(texts)) or None


def _absorb_bare_message(head: Head, item: dict[str, Any]) -> None:
    """Take the cwd and a fallback prompt from user messages (bare-era and paginated files)."""
    for message in convert(item, {}):
        if message.role is not Role.USER or message.kind is not Kind.TEXT:
            continue
        if message.text.lstrip().startswith("<environment_context") and head.cwd is None:
            head.cwd = cwd_from_environment(message.text)
        elif not is_injected_text(message.text) and head.typed is None:
            head.typed = typed_prompt(message.text) or None


def scan_tail(path: str, size: int) -> Tail:
    """Read up to the last 256 KB for the last timestamp, model and token usage, newest line first.

    A 32 KB read settles most files; the model is taken from the tail only when its turn_context
    falls inside what was read (the head's model is the fallback). A compressed rollout cannot be
    entered at its end, so it is streamed through, keeping only its last 256 KB.
    """
    if is_compressed(path):
        blob, cut = _stream_tail(path)
        return _scan_tail_blob(blob, cut)
    with open(path, "rb") as handle:
        for window in (TAIL_FIRST, TAIL_BYTES):
            handle.seek(max(0, size - window))
            tail = _scan_tail_blob(handle.read(window), cut=size > window)
            if tail.updated and tail.last_usage is not None or size <= window:
                return tail
    return tail


def _stream_tail(path: str) -> tuple[bytes, bool]:
    """The last `TAIL_BYTES` of a compressed file's content, and whether anything came before."""
    kept, cut = b"", False
    with open_binary(path) as handle:
        while chunk := handle.read(1 << 20):
            kept += chunk
            if len(kept) > 2 * TAIL_BYTES:
                kept, cut = kept[-TAIL_BYTES:], True
    if len(kept) > TAIL_BYTES:
        kept, cut = kept[-TAIL_BYTES:], True
    return kept, cut


def _scan_tail_blob(blob: bytes, cut: bool) -> Tail:
    """Look through the complete lines of a tail read, newest first."""
    tail = Tail()
    unterminated = not blob.endswith(b"\n")
    for raw in _reversed_lines(blob, cut):
        if not raw.strip():
            continue
        if unterminated:
            unterminated = False
            if not _payload(raw) and not _parses(raw):
                continue  # a line still being written: the full read skips it too
        if tail.updated is None:
            stamp = _TS_FIELD.search(raw[:120])
            tail.updated = iso_or_none(stamp.group(1).decode("ascii", "replace")) if stamp else None
        if tail.last_usage is None and any(tag in raw[:120] for tag in _HISTORY_REWRITES):
            tail.last_usage = {}  # compacted or rolled back after the last call: figure is stale
        if tail.last_usage is None and b'"token_count"' in raw[:200] and b'"info":null' not in raw:
            _absorb_usage(tail, raw)
        if tail.model is None and b'"turn_context"' in raw[:200]:
            payload = _payload(raw)
            tail.model = payload.get("model") if isinstance(payload.get("model"), str) else None
        if tail.updated and tail.last_usage is not None and tail.model:
            break
    return tail


def _reversed_lines(blob: bytes, cut: bool) -> Iterator[bytes]:
    """Yield the lines of a tail read from the last one back, without splitting all of it."""
    end = len(blob)
    while end > 0:
        start = blob.rfind(b"\n", 0, end) + 1
        if start == 0 and cut:
            return  # most likely the end of a line cut by the seek
        yield blob[start:end]
        end = start - 1


def _absorb_usage(tail: Tail, raw: bytes) -> None:
    """Take the last call's usage and the window from a `token_count` line."""
    info = _payload(raw).get("info")
    if isinstance(info, dict) and isinstance(info.get("last_token_usage"), dict):
        tail.last_usage = info["last_token_usage"]
        window = info.get("model_context_window")
        tail.window = window if isinstance(window, int) and window > 0 else None


def _parses(raw: bytes) -> bool:
    """Tell whether a line is a JSON object."""
    try:
        return isinstance(loads(raw), dict)
    except (ValueError, RecursionError):  # damaged or nested too deeply
        return False


def _payload(raw: bytes) -> dict[str, Any]:
    """Parse a line's payload, or return {} for damage."""
    try:
        data = loads(raw)
    except (ValueError, RecursionError):  # damaged or nested too deeply
        return {}
    payload = data.get("payload") if isinstance(data, dict) else None
    return payload if isinstance(payload, dict) else {}
