"""Provides the read of one Qwen Code session file into what its client sends the model on resume.

The file (0.24.4) is JSON lines chained by `parentUuid`, each message holding Gemini API `Content`
(`role: user|model`, `parts`). The client rebuilds a conversation (`prepareTranscriptRecords`)
from the last record back through `parentUuid` (records sharing a `uuid` are fragments of one,
merged), and from the last `chat_compression` record on, that record's `compressedHistory` (the
summary, the reply holding the pending call, its result) stands for everything before it. Each
message's parts are read as Gemini CLI's are (`content_parts`). Unlike Gemini CLI, Qwen Code records
a slash command as a `system` record (`slash_command`), so a user message starting with `/` is a
prompt the model saw.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.content_parts import (
    Converted,
    add_reply_parts,
    add_user,
    close_reply,
    leave_response_outputs,
    parts_of,
    response_outputs,
    usage_of,
)
from smig_tui.adapters.agents.file_sessions import line_size, line_store, open_lines
from smig_tui.adapters.json_parse import parse
from smig_tui.adapters.stored_text import TextStore
from smig_tui.core.models import Kind, Usage

MESSAGE_TYPES = ("user", "assistant", "tool_result")
COMPRESSION = "chat_compression"


@dataclass
class SessionFile:
    """A session file's records on the chain the client resumes, and what it says about itself."""

    chain: list[dict[str, Any]] = field(default_factory=list)
    """From the first record to the last, along `parentUuid`."""
    lines: dict[str, int] = field(default_factory=dict)
    """The line (1-based) of each record's first fragment, by `uuid`."""
    damaged: list[int] = field(default_factory=list)
    """Lines that are not a JSON object (half-written, or damaged)."""

    @property
    def first(self) -> dict[str, Any]:
        """The first record (its `cwd` is the project it belongs to), or an empty one."""
        return self.chain[0] if self.chain else {}

    @property
    def session_id(self) -> str | None:
        """The id every record carries."""
        value = self.first.get("sessionId")
        return value if isinstance(value, str) and value else None


def read_session(path: Path, pack: bool = False) -> SessionFile:
    """Parse the file and walk its chain (raises OSError when it cannot be read); with `pack`, a big
    file's long tool outputs are left on disk as each record is parsed (`line_store`)."""
    out = SessionFile()
    records: dict[str, dict[str, Any]] = {}
    last: str | None = None
    with open_lines(path) as handle:
        store, offset = line_store(handle, path, pack, _line_outputs), 0
        for number, raw in enumerate(handle, start=1):
            at, offset = offset, offset + len(raw)
            if not raw.strip():
                continue
            try:
                record = parse(raw)
            except (ValueError, RecursionError):  # damaged, or nested too deeply to parse (issue 33)
                out.damaged.append(number)
                continue
            uuid = record.get("uuid") if isinstance(record, dict) else None
            if not isinstance(uuid, str):
                out.damaged.append(number)
                continue
            if store is not None:
                record = _lean(record, store, at, line_size(raw))
            if uuid in records:
                records[uuid] = _merged(records[uuid], record)
            else:
                records[uuid] = record
                out.lines[uuid] = number
            last = uuid
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    while last is not None and last in records and last not in seen:
        seen.add(last)
        record = records[last]
        chain.append(record)
        parent = record.get("parentUuid")
        last = parent if isinstance(parent, str) else None
    out.chain = chain[::-1]
    return out


READ_KEYS = ("uuid", "parentUuid", "type", "subtype", "timestamp", "model", "usageMetadata", "message")
"""What `conversation` reads of a record (with a compression's `systemPayload`)."""


def _lean(record: dict[str, Any], store: TextStore, offset: int, size: int) -> dict[str, Any]:
    """A big file's record as `conversation` needs it: its long tool outputs left on disk, and only the
    keys it reads (a 500 MB session is about 100,000 records, half of them telemetry, each key's value
    its own object)."""
    lean = {key: record[key] for key in READ_KEYS if key in record}
    if record.get("subtype") == COMPRESSION and "systemPayload" in record:
        lean["systemPayload"] = record["systemPayload"]
    message = lean.get("message")
    if isinstance(message, dict):
        leave_response_outputs(message.get("parts"), store, offset, size)
    return lean


def _line_outputs(record: dict[str, Any]) -> list[str]:
    """The tool outputs of one parsed line, as `_lean` numbers them."""
    message = record.get("message")
    return response_outputs(message.get("parts")) if isinstance(message, dict) else []


def _merged(earlier: dict[str, Any], later: dict[str, Any]) -> dict[str, Any]:
    """Two fragments of one record: the later's fields, the messages' parts joined."""
    merged = {**earlier, **later}
    first, second = _parts(earlier), _parts(later)
    if first is not None and second is not None:
        message = later.get("message")
        merged["message"] = {**(message if isinstance(message, dict) else {}), "parts": first + second}
    return merged


def _parts(record: dict[str, Any]) -> list[Any] | None:
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return parts if isinstance(parts, list) else None


def conversation(session: SessionFile) -> Converted:
    """The messages the client sends on resume, as smig's neutral messages."""
    start = 0
    contents: list[tuple[dict[str, Any], str, dict[str, Any]]] = []
    for position, record in enumerate(session.chain):
        if record.get("type") == "system" and record.get("subtype") == COMPRESSION:
            start = position + 1
            payload = record.get("systemPayload")
            history = payload.get("compressedHistory") if isinstance(payload, dict) else None
            contents = [
                (content, f"{record['uuid']}:{number}", record)
                for number, content in enumerate(history if isinstance(history, list) else [])
                if isinstance(content, dict)
            ]
    summary = contents[0][1] if contents and contents[0][0].get("role") == "user" else None
    for record in session.chain[start:]:
        if record.get("type") in MESSAGE_TYPES and isinstance(record.get("message"), dict):
            contents.append((record["message"], str(record["uuid"]), record))
    out = Converted()
    for content, message_id, record in contents:
        line = session.lines.get(str(record.get("uuid")))
        stamp = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        parts = parts_of(content.get("parts"))
        if content.get("role") == "model":
            first = len(out.messages)
            add_reply_parts(out, parts, message_id, line, stamp)
            close_reply(out, record.get("model"), usage(record), first)
        else:
            # Qwen Code records a slash command as a `system` record: a user message's text is a prompt.
            add_user(out, parts, message_id, line, stamp, drop_commands=False)
    if summary is not None:
        # The compression summary stands for the conversation before it, as a user message.
        out.messages = [replace(m, kind=Kind.SUMMARY) if m.id == summary else m for m in out.messages]
    return out


def usage(record: dict[str, Any]) -> Usage | None:
    """The figures the client logged for a reply (`usageMetadata`, the Gemini API's names)."""
    usage = record.get("usageMetadata")
    if record.get("type") != "assistant" or not isinstance(usage, dict):
        return None
    return usage_of(
        {
            "input": usage.get("promptTokenCount"),
            "output": usage.get("candidatesTokenCount"),
            "cached": usage.get("cachedContentTokenCount"),
            "thoughts": usage.get("thoughtsTokenCount"),
            "total": usage.get("totalTokenCount"),
        }
    )
