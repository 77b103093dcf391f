"""Provides what a listing shows of a Pi session, read cheaply from the file's ends, or from the whole
parse when the ends cannot say.

Pi resumes the path from the file's last entry back to the root, and its picker shows the last name
and the first prompt of the whole file. One pass at C speed finds each line and reads its first bytes
(`type`, `id`, `parentId`, in the order Pi writes them), so a listing knows the tree without parsing
it, and parses only what it shows: the header, the first user message, the last `session_info`,
and, walking the path back from the last entry, the last message's time and the last reply's model
and context. The message count is left unknown until a full read, as for Codex and Gemini CLI. A
compaction the last reply is not after, a damaged or differently written line, a line not ending in
`}`, or a loop in the tree is read whole, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.file_sessions import IndexedLines, Line, indexed_lines
from smig_tui.adapters.agents.pi.records import DROPPED_STOPS, SessionFile, content_text, conversation
from smig_tui.core.timeline import format_iso

HEAD = re.compile(rb'\{"type": ?"([^"\\]+)"(?:, ?"id": ?"([^"\\]+)", ?"parentId": ?(?:null|"([^"\\]+)"))?')
"""An entry's first keys as Pi 0.73.1 writes them (and smig's writer): the header has only its `type` there."""
PARSED = (b"message", b"compaction", b"branch_summary")
"""The entries whose content a listing looks at on the path (the rest are settings, names, labels and
an extension's own data, none of them said to the model but as injected context)."""
UNSET = "unset"


@dataclass
class Listing:
    """What a listing shows of one session file."""

    header: dict[str, Any]
    name: str | None = None
    first_prompt: str | None = None
    updated: str | None = None
    """The time of the path's last user or assistant message."""
    model: str | None = None
    context_tokens: int | None = None
    has_conversation: bool = False
    message_count: int | None = None
    """Known from a whole read only."""

    @property
    def session_id(self) -> str | None:
        """The header's id (None: not a Pi session)."""
        value = self.header.get("id")
        return value if self.header.get("type") == "session" and isinstance(value, str) and value else None


def whole_listing(session: SessionFile) -> Listing:
    """The listing of a session read whole."""
    converted = conversation(session)
    updated = next((stamp for entry in reversed(session.path) if (stamp := activity(entry)) != UNSET), None)
    return Listing(
        header=session.header,
        name=session.name,
        first_prompt=session.first_prompt or converted.first_prompt,
        updated=updated,
        model=converted.model,
        context_tokens=converted.context_tokens or None,
        has_conversation=any(not message.injected for message in converted.messages),
        message_count=len(converted.messages),
    )


def listing_from_ends(path: Path) -> Listing | None:
    """The listing from the lines it needs; None when they cannot say (raises OSError)."""
    with indexed_lines(path, HEAD) as indexed:
        return _from_lines(indexed) if indexed is not None else None


def _from_lines(indexed: IndexedLines) -> Listing | None:
    lines = indexed.lines
    if any(line.head is None or (number and line.head[1] is None) for number, line in enumerate(lines)):
        return None  # a damaged line, an entry written otherwise, or no header first
    header = indexed.record(lines[0])
    if header is None or header.get("type") != "session" or len(lines) < 2:
        return None
    by_id = {line.head[1]: number for number, line in enumerate(lines) if number and line.head and line.head[1]}
    out = Listing(header=header)
    names = [line for line in lines[1:] if line.head and line.head[0] == b"session_info"]
    if names:
        entry = indexed.record(names[-1])
        if entry is None:
            return None
        name = entry.get("name")
        out.name = (name.strip() or None) if isinstance(name, str) else None
    for line in lines[1:]:
        if line.head and line.head[0] == b"message":
            entry = indexed.record(line)
            if entry is None:
                return None
            out.first_prompt = _user_text(entry)
            if out.first_prompt:
                break
    return out if _walk_path(indexed, lines, by_id, out) else None


def _walk_path(indexed: IndexedLines, lines: list[Line], by_id: dict[bytes, int], out: Listing) -> bool:
    """Fill in what the path from the last entry back says; False when the lines cannot say it."""
    updated: str | None = UNSET
    model_known = usage_known = compacted = False
    seen: set[int] = set()
    number: int | None = len(lines) - 1
    while number is not None:
        if number in seen:
            return False  # a loop: the whole read stops where Pi does
        seen.add(number)
        head = lines[number].head
        if head is None:
            return False
        if head[0] in PARSED:
            entry = indexed.record(lines[number])
            if entry is None:
                return False
            if updated == UNSET:
                updated = activity(entry)
            if not compacted:
                if entry.get("type") == "compaction":
                    compacted = True
                    out.has_conversation = True  # its summary is a message
                    if not (model_known and usage_known):
                        return False  # the reply may be among the entries the compaction kept
                else:
                    reply = _reply(entry)
                    if reply is not None:
                        model, usage = reply
                        if not model_known and model:
                            out.model, model_known = model, True
                        if not usage_known and usage is not None:
                            out.context_tokens, usage_known = usage or None, True
                    out.has_conversation = out.has_conversation or _says_something(entry)
        if updated != UNSET and model_known and usage_known and out.has_conversation:
            break
        parent = head[2]
        number = by_id.get(parent) if parent is not None else None
    out.updated = updated if updated != UNSET else None
    return True


def activity(entry: dict[str, Any]) -> str | None:
    """The time of a user or assistant message (what Pi's picker orders by); UNSET for any other entry."""
    message = entry.get("message")
    if (
        entry.get("type") != "message"
        or not isinstance(message, dict)
        or message.get("role") not in ("user", "assistant")
    ):
        return UNSET
    stamp = message.get("timestamp")
    if isinstance(stamp, int | float) and not isinstance(stamp, bool) and 0 < stamp < 1e14:
        return format_iso(datetime.fromtimestamp(stamp / 1000, UTC))
    return _text(entry.get("timestamp"))


def _reply(entry: dict[str, Any]) -> tuple[str | None, int | None] | None:
    """A reply sent again on resume: its model and its `usage.totalTokens` (0 when it has usage without it)."""
    message = entry.get("message")
    if entry.get("type") != "message" or not isinstance(message, dict) or message.get("role") != "assistant":
        return None
    if message.get("stopReason") in DROPPED_STOPS:
        return None
    usage = message.get("usage")
    total = usage.get("totalTokens") if isinstance(usage, dict) else None
    figures = (total if isinstance(total, int) and total >= 0 else 0) if isinstance(usage, dict) else None
    return _text(message.get("model")), figures


def _says_something(entry: dict[str, Any]) -> bool:
    """Whether an entry on the path becomes a message the model reads (the conversion's rules)."""
    kind = entry.get("type")
    raw = entry.get("message")
    message: dict[str, Any] = raw if isinstance(raw, dict) else {}
    role = message.get("role") if kind == "message" else kind
    if role == "compaction":
        return True
    if role == "branch_summary":
        return bool(entry.get("summary"))
    if role == "toolResult":
        return True
    if role == "bashExecution":
        return not message.get("excludeFromContext")
    content = message.get("content")
    if role == "user":
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        return isinstance(blocks, list) and any(
            isinstance(block, dict)
            and (block.get("type") == "image" or (block.get("type") == "text" and _text(block.get("text"))))
            for block in blocks
        )
    if role == "assistant" and message.get("stopReason") not in DROPPED_STOPS:
        return isinstance(content, list) and any(
            isinstance(block, dict)
            and (
                (block.get("type") == "thinking" and _stripped(block.get("thinking")))
                or (block.get("type") == "text" and _stripped(block.get("text")))
                or block.get("type") == "toolCall"
            )
            for block in content
        )
    return False


def _user_text(entry: dict[str, Any]) -> str | None:
    """A user message's text (what Pi's picker shows when the session has no name)."""
    message = entry.get("message")
    if entry.get("type") == "message" and isinstance(message, dict) and message.get("role") == "user":
        return content_text(message.get("content")).strip() or None
    return None


def _stripped(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
