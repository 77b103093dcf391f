"""Provides the parse of one Gemini CLI session file into its metadata and message records.

Gemini CLI 0.61.0 appends JSON lines to `session-*.jsonl`: a metadata line (`sessionId`,
`projectHash`, `startTime`, `kind`, …), message records (`id`, `type`, `content`, …; a record with
a known id replaces the earlier one in place, as the client updates a reply with its tool calls and
token figures), `{"$set": {...}}` metadata updates (a `messages` array there replaces the whole
conversation, as on resume or compression) and `{"$rewindTo": id}`, which drops that message and
everything after it. Older releases wrote one JSON document (`session-*.json`) holding `messages`.
The rules follow the client's own `loadConversationRecord`, so smig sees the conversation it resumes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class ConversationFile:
    """What a session file holds, in the client's order, with where each message record was last seen."""

    meta: dict[str, Any] = field(default_factory=dict)
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Message records by id, in conversation order."""
    lines: dict[str, int] = field(default_factory=dict)
    """1-based line of each message's latest record (the document's line 1 for a legacy file)."""
    damaged: list[int] = field(default_factory=list)
    """Lines that are not JSON (a half-written last line while the client writes, or damage)."""
    legacy: bool = False
    """One JSON document (before Gemini CLI wrote JSON lines)."""

    @property
    def session_id(self) -> str | None:
        value = self.meta.get("sessionId")
        return value if isinstance(value, str) and value else None


class NotASession(ValueError):
    """The file is neither a JSON-lines session nor a whole session document."""


def read_conversation(path: Path) -> ConversationFile:
    """Parse a session file, tolerating damaged lines; raise NotASession when nothing is usable."""
    raw = path.read_bytes()
    parsed = _parse_lines(raw)
    if parsed.session_id and isinstance(parsed.meta.get("projectHash"), str):
        return parsed
    return _parse_document(raw, parsed)


def _parse_lines(raw: bytes) -> ConversationFile:
    conversation = ConversationFile()
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # damaged or nested too deeply
            conversation.damaged.append(number)
            continue
        if isinstance(record, dict):
            _apply(conversation, record, number)
        else:
            conversation.damaged.append(number)
    return conversation


def _apply(conversation: ConversationFile, record: dict[str, Any], number: int) -> None:
    """Fold one line into the conversation, as the client does."""
    messages = conversation.messages
    if isinstance(record.get("$rewindTo"), str):
        ids = list(messages)
        target = record["$rewindTo"]
        for removed in ids[ids.index(target) :] if target in messages else ids:
            del messages[removed]
    elif isinstance(record.get("id"), str):
        messages[record["id"]] = record
        conversation.lines[record["id"]] = number
    elif isinstance(record.get("$set"), dict):
        update = record["$set"]
        if isinstance(update.get("messages"), list):
            messages.clear()
            _add_all(conversation, update["messages"], number)
        conversation.meta.update({key: value for key, value in update.items() if key != "messages"})
    elif isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str):
        started = conversation.meta.get("startTime")  # a resume writes the metadata again, restamped
        conversation.meta.update({key: value for key, value in record.items() if key != "messages"})
        if started:
            conversation.meta["startTime"] = started
        if isinstance(record.get("messages"), list):
            _add_all(conversation, record["messages"], number)


def _add_all(conversation: ConversationFile, records: list[Any], number: int) -> None:
    for message in records:
        if isinstance(message, dict) and isinstance(message.get("id"), str):
            conversation.messages[message["id"]] = message
            conversation.lines[message["id"]] = number


def _parse_document(raw: bytes, lines: ConversationFile) -> ConversationFile:
    """A legacy `.json` session: one document with `sessionId` and `messages`."""
    try:
        document = json.loads(raw)
    except RecursionError:
        if lines.session_id:
            return lines
        raise NotASession("not a readable Gemini CLI session (its JSON is nested too deeply)") from None
    except ValueError as error:
        if lines.session_id:  # JSON lines with a metadata line that lacks projectHash: keep what there is
            return lines
        where = f" at line {error.lineno}, column {error.colno}" if isinstance(error, json.JSONDecodeError) else ""
        raise NotASession(f"not a readable Gemini CLI session (its JSON is cut off or damaged{where})") from error
    if not isinstance(document, dict) or not isinstance(document.get("sessionId"), str):
        raise NotASession("not a Gemini CLI session (no sessionId)")
    conversation = ConversationFile(legacy=True)
    conversation.meta = {key: value for key, value in document.items() if key != "messages"}
    if isinstance(document.get("messages"), list):
        _add_all(conversation, document["messages"], 1)
    return conversation
