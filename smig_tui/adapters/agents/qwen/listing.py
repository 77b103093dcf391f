"""Provides what a listing shows of a Qwen Code session, read cheaply from the file's ends, or from the
whole parse when the ends cannot say.

What the client resumes is the `parentUuid` chain from the last record back, so a listing must know
the chain. One pass at C speed finds each line and reads its first bytes (`uuid`, `parentUuid`, `type`,
in the order the client writes them): when every record's parent is the line before it, the chain is
the whole file, in order, and a listing parses only what it shows: the first record (id, folder,
start), the first prompt, the `/rename` titles (found by a byte search in the `system` lines), and
from the end back the last record (time, version) and the last reply (model, context). The message
count is left unknown until a full read, as for Codex and Gemini CLI. Anything else (a rewind, a
fragment, a compression the last reply is not after, a damaged or differently written line, a line
not ending in `}`) is read whole, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.content_parts import HARNESS_PREFIXES, part_text, parts_of
from smig_tui.adapters.agents.file_sessions import IndexedLines, Line, indexed_lines
from smig_tui.adapters.agents.qwen.records import MESSAGE_TYPES, SessionFile, conversation, usage
from smig_tui.core.words import title_line

TITLE_MAX = 120
HEAD = re.compile(
    rb'\{"uuid": ?"([^"\\]+)", ?"parentUuid": ?(?:null|"([^"\\]+)"), ?"sessionId": ?"[^"\\]*",'
    rb' ?"timestamp": ?"[^"\\]*", ?"type": ?"([^"\\]+)"'
)
"""A record's first keys as Qwen Code 0.24.4 writes them (and smig's writer, and the benchmark's)."""
TITLE_MARK = b'"custom_title"'
COMPRESSION_MARK = b'"chat_compression"'


@dataclass
class Listing:
    """What a listing shows of one session file."""

    session_id: str | None
    cwd: str | None = None
    created: str | None = None
    updated: str | None = None
    version: str | None = None
    title: str | None = None
    """The last `/rename` on the chain (cut to a title line)."""
    first_prompt: str | None = None
    model: str | None = None
    context_tokens: int | None = None
    has_conversation: bool = False
    message_count: int | None = None
    """Known from a whole read only."""


def whole_listing(session: SessionFile) -> Listing:
    """The listing of a session read whole."""
    if session.session_id is None:
        return Listing(None)
    converted = conversation(session)
    first, last = session.first, session.chain[-1]
    return Listing(
        session_id=session.session_id,
        cwd=_text(first.get("cwd")),
        created=_text(first.get("timestamp")),
        updated=_text(last.get("timestamp")),
        version=_text(last.get("version")),
        title=_title(session.chain),
        first_prompt=_first_prompt(session.chain) or converted.first_prompt,
        model=converted.model,
        context_tokens=converted.context_tokens or None,
        has_conversation=any(not message.injected for message in converted.messages),
        message_count=len(converted.messages),
    )


def listing_from_ends(path: Path) -> Listing | None:
    """The listing from the file's first and last records; None when they cannot say (raises OSError)."""
    with indexed_lines(path, HEAD) as indexed:
        return _from_lines(indexed) if indexed is not None else None


def _from_lines(indexed: IndexedLines) -> Listing | None:
    lines = indexed.lines
    titles: list[Line] = []
    compression = -1
    """The line of the last compression (-1: none)."""
    previous: bytes | None = None
    seen: set[bytes] = set()
    for number, line in enumerate(lines):
        if line.head is None:
            return None
        uuid, parent, kind = line.head
        if parent != previous or uuid in seen or uuid is None:
            return None  # a rewind, a fragment, a record out of place: the chain is not the file
        seen.add(uuid)
        previous = uuid
        if kind == b"system":
            if indexed.holds(line, TITLE_MARK):
                titles.append(line)
            if indexed.holds(line, COMPRESSION_MARK):
                compression = number
    first, last = indexed.record(lines[0]), indexed.record(lines[-1])
    if first is None or last is None:
        return None
    session_id = _text(first.get("sessionId"))
    if session_id is None:
        return None
    prompt = _first_user_text(indexed, lines)
    if prompt is None:
        return None  # no prompt typed: the whole read decides what the title is
    reply = _last_reply(indexed, lines[compression + 1 :])
    if reply is None or (compression >= 0 and not reply.complete):
        return None  # what the compression's history says is for the whole read
    renames = [indexed.record(line) for line in titles]
    if None in renames:
        return None
    return Listing(
        session_id=session_id,
        cwd=_text(first.get("cwd")),
        created=_text(first.get("timestamp")),
        updated=_text(last.get("timestamp")),
        version=_text(last.get("version")),
        title=_title([record for record in renames if record is not None]),
        first_prompt=prompt,
        model=reply.model,
        context_tokens=reply.context_tokens or None,
        has_conversation=reply.has_message,
    )


@dataclass
class _Reply:
    """What the records after the last compression say, read from the end back."""

    model: str | None = None
    context_tokens: int | None = None
    has_message: bool = False
    complete: bool = False
    """All three known before the lines ran out."""


def _last_reply(indexed: IndexedLines, lines: list[Line]) -> _Reply | None:
    """The last reply's model and context, and whether anything is said (None: a damaged line on the way)."""
    out = _Reply()
    model_known = usage_known = False
    for line in reversed(lines):
        if line.head is None or line.head[2] not in MESSAGE_KINDS:
            continue
        record = indexed.record(line)
        if record is None:
            return None
        message = record.get("message")
        if record.get("type") not in MESSAGE_TYPES or not isinstance(message, dict):
            continue
        if not model_known and message.get("role") == "model" and _text(record.get("model")):
            out.model, model_known = record["model"], True
        if not usage_known and message.get("role") == "model":
            figures = usage(record)
            if figures is not None:
                out.context_tokens, usage_known = figures.context_tokens, True
        out.has_message = out.has_message or _says_something(message)
        if model_known and usage_known and out.has_message:
            out.complete = True
            break
    return out


MESSAGE_KINDS = tuple(kind.encode() for kind in MESSAGE_TYPES)


def _says_something(message: dict[str, Any]) -> bool:
    """Whether a record's `Content` becomes a message the model reads (the conversion's rules)."""
    parts = parts_of(message.get("parts"))
    if message.get("role") == "model":
        return any(
            (part.get("thought") and isinstance(part.get("text"), str))
            or (isinstance(part.get("text"), str) and part["text"].strip())
            or isinstance(part.get("functionCall"), dict)
            for part in parts
        )
    stripped = part_text(message.get("parts")).strip()
    if stripped.startswith(HARNESS_PREFIXES):
        return False  # the harness's context: kept, but marked injected
    return bool(stripped) or any(
        isinstance(part.get(key), dict) for part in parts for key in ("functionResponse", "inlineData", "fileData")
    )


def _first_user_text(indexed: IndexedLines, lines: list[Line]) -> str | None:
    """The first user record's text, from the top (one line, as a rule)."""
    for line in lines:
        if line.head is None or line.head[2] != b"user":
            continue
        record = indexed.record(line)
        if record is None:
            return None
        prompt = _prompt(record)
        if prompt:
            return prompt
    return None


def _title(chain: list[dict[str, Any]]) -> str | None:
    """The title the user gave the session (`/rename`: the last `custom_title` record), if any."""
    title = None
    for record in chain:
        payload = record.get("systemPayload")
        if record.get("type") == "system" and record.get("subtype") == "custom_title" and isinstance(payload, dict):
            title = _text(payload.get("customTitle")) or title
    return title_line(title, TITLE_MAX)


def _first_prompt(chain: list[dict[str, Any]]) -> str | None:
    """The first thing the user typed, as the client's picker shows it (a compression leaves it in the file)."""
    for record in chain:
        prompt = _prompt(record)
        if prompt:
            return prompt
    return None


def _prompt(record: dict[str, Any]) -> str | None:
    message = record.get("message")
    if record.get("type") == "user" and isinstance(message, dict):
        return part_text(message.get("parts")).strip() or None
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
