"""Provides what a listing shows of a Copilot CLI session, read cheaply from the file's ends, or from
the whole parse when the ends cannot say.

One pass at C speed finds each line of `events.jsonl` and reads its event `type` (the first key, as
the client writes it), so a listing parses only what it shows: the `session.start`, any compaction
(it decides where the conversation the client resumes begins), the first prompt after it, and from
the end back the last event's time and the last reply's model and usage. The message count is left
unknown until a full read, as for Codex and Gemini CLI. A damaged or differently written line, or a
line not ending in `}`, is read whole, as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.copilot.events import (
    UNSENT_TYPES,
    SessionFile,
    applied_compactions,
    conversation,
    data,
    typed_text,
    usage_figures,
)
from smig_tui.adapters.agents.file_sessions import IndexedLines, Line, indexed_lines

HEAD = re.compile(rb'\{"type": ?"([^"\\]+)"')
"""An event's first key as Copilot CLI 1.0.102 writes it (and smig's writer)."""
UNSENT_TYPE = re.compile(UNSENT_TYPES)
COMPACTIONS = (b"session.compaction_start", b"session.compaction_complete")
Parse = Callable[[int, Line], "dict[str, Any] | None"]
"""One line's event, parsed once (None: damaged)."""


@dataclass
class Listing:
    """What a listing shows of one `events.jsonl`."""

    start: dict[str, Any] = field(default_factory=dict)
    """The `data` of the first `session.start`."""
    updated: str | None = None
    """The time of the last event read."""
    first_prompt: str | None = None
    model: str | None = None
    context_tokens: int | None = None
    has_conversation: bool = False
    message_count: int | None = None
    """Known from a whole read only."""

    @property
    def session_id(self) -> str | None:
        """The id `session.start` records."""
        return _text(self.start.get("sessionId"))

    @property
    def cwd(self) -> str | None:
        """The folder the session was started in."""
        context = self.start.get("context")
        return _text(context.get("cwd")) if isinstance(context, dict) else None


def whole_listing(session: SessionFile) -> Listing:
    """The listing of a session read whole."""
    converted = conversation(session)
    return Listing(
        start=session.first("session.start"),
        updated=session.last_stamp(),
        first_prompt=converted.first_prompt,
        model=converted.model,
        context_tokens=converted.context_tokens or None,
        has_conversation=bool(converted.messages),
        message_count=len(converted.messages),
    )


def listing_from_ends(path: Path) -> Listing | None:
    """The listing from the events it needs; None when they cannot say (raises OSError)."""
    with indexed_lines(path, HEAD) as indexed:
        return _from_lines(indexed) if indexed is not None else None


def _from_lines(indexed: IndexedLines) -> Listing | None:
    if any(line.head is None for line in indexed.lines):
        return None
    events = [(number, line) for number, line in enumerate(indexed.lines) if not _unsent(line)]
    parsed: dict[int, dict[str, Any]] = {}

    def event(number: int, line: Line) -> dict[str, Any] | None:
        if number not in parsed:
            record = indexed.record(line)
            if record is None or not isinstance(record.get("type"), str):
                return None
            parsed[number] = record
        return parsed[number]

    out = Listing()
    starts = [(number, line) for number, line in events if _kind(line) == b"session.start"]
    compactions = [(number, line) for number, line in events if _kind(line) in COMPACTIONS]
    needed = [*starts[:1], *compactions]
    if any(event(number, line) is None for number, line in needed):
        return None  # a damaged line the whole read skips: it decides
    out.start = data(parsed[starts[0][0]]) if starts else {}
    applied = applied_compactions((number, parsed[number]) for number, _ in compactions)
    cut = applied[-1][0] if applied else -1
    after = [(number, line) for number, line in events if number > cut]
    for number, line in reversed(events):
        found = event(number, line)
        if found is None:
            return None
        if isinstance(found.get("timestamp"), str):
            out.updated = found["timestamp"]
            break
    for number, line in after:
        if _kind(line) == b"user.message":
            found = event(number, line)
            if found is None:
                return None
            text = typed_text(data(found)).strip()
            if text:
                out.first_prompt = text
                break
    if not _last_reply(after, event, out):
        return None
    out.has_conversation = bool(applied) or out.has_conversation or bool(out.first_prompt)
    return out


def _last_reply(after: list[tuple[int, Line]], event: Parse, out: Listing) -> bool:
    """The last reply's model and the usage the client logged before it, and whether anything was said
    after the cut, read from the end back; False when a line on the way is damaged."""
    awaiting = model_known = usage_known = False
    for number, line in reversed(after):
        kind = _kind(line)
        if kind == b"assistant.message":
            found = event(number, line)
            if found is None:
                return False
            payload = data(found)
            awaiting = not usage_known
            if not model_known and _text(payload.get("model")):
                out.model, model_known = payload["model"], True
            out.has_conversation = out.has_conversation or _says_something(payload)
        elif kind == b"session.usage_record" and awaiting:
            found = event(number, line)
            if found is None:
                return False
            awaiting = False
            figures = usage_figures(data(found).get("usage"))
            if figures is not None:
                out.context_tokens, usage_known = figures.context_tokens or None, True
        elif kind == b"tool.execution_complete":
            out.has_conversation = True
        if model_known and usage_known and out.has_conversation:
            break
    return True


def _says_something(payload: dict[str, Any]) -> bool:
    """Whether a reply becomes a message (its reasoning, its text or a tool call)."""
    requests = payload.get("toolRequests")
    return (
        _stripped(payload.get("reasoningText"))
        or _stripped(payload.get("content"))
        or (isinstance(requests, list) and any(isinstance(request, dict) for request in requests))
    )


def _kind(line: Line) -> bytes | None:
    return line.head[0] if line.head else None


def _unsent(line: Line) -> bool:
    kind = _kind(line)
    return kind is not None and UNSENT_TYPE.fullmatch(kind) is not None


def _stripped(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
