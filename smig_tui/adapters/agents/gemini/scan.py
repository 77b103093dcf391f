"""Provides the cheap listing read of a Gemini CLI session: its head and its tail, never the middle.

A session file can hold megabytes of tool output, and a listing needs little: the metadata line
and the first prompt (both in the first lines the client writes), and the latest title, model,
token figures and time (in the last lines). Reading a few kilobytes at each end keeps listing
2,000 sessions as cheap as Codex's. The message count is left unknown until a full read, as for
Codex. A tail whose lines are too long to hold a whole reply is read again larger, and as a last
resort the whole file is parsed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.gemini.convert import HARNESS_PREFIXES, is_command, part_text

HEAD_BYTES = 64 * 1024
TAIL_STEPS = (16 * 1024, 256 * 1024, 4 * 1024 * 1024)


@dataclass
class Facts:
    """What the ends of a session file say."""

    meta: dict[str, Any]
    first_prompt: str | None = None
    summary: str | None = None
    model: str | None = None
    context_tokens: int | None = None
    updated: str | None = None
    has_reply: bool = False
    started: str | None = None
    """`startTime` of the last start record: every resume appends one, and `--resume latest` goes by it."""
    half_written: bool = False
    """The last line does not parse (the client is writing it, or it was cut)."""

    @property
    def has_conversation(self) -> bool:
        """A prompt or a reply: the client never lists a start-up only session."""
        return bool(self.first_prompt) or self.has_reply


def scan(path: Path, size: int) -> Facts | None:
    """Facts from the head and tail of a JSON-lines session; None when that is not enough to say."""
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
        lines = head.split(b"\n")
        if len(head) == HEAD_BYTES:
            lines = lines[:-1]  # the cut last line
        facts: Facts | None = None
        for raw in lines:
            record = _loads(raw)
            if record is None:
                continue
            if facts is None:
                if not (isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str)):
                    return None  # not the JSON-lines layout (an older document, or damage): parse it all
                facts = Facts(meta=record, started=_string(record.get("startTime")))
                continue
            _head_record(facts, record)
            if facts.first_prompt:
                break
        if facts is None:
            return None
        for step in TAIL_STEPS:
            start = max(0, size - step)
            handle.seek(start)
            tail = handle.read(size - start)
            if _tail(facts, tail, whole=start == 0):
                return facts
    return None


def _head_record(facts: Facts, record: dict[str, Any]) -> None:
    """The first prompt, from a message record or a conversation the client wrote in one `$set`."""
    update = record.get("$set")
    candidates = update.get("messages") if isinstance(update, dict) else [record]
    for message in candidates if isinstance(candidates, list) else []:
        if isinstance(message, dict) and message.get("type") == "user":
            text = part_text(message.get("content")).strip()
            if text and not is_command(text) and not text.startswith(HARNESS_PREFIXES):
                facts.first_prompt = text
                return


def _tail(facts: Facts, tail: bytes, whole: bool) -> bool:
    """Take the latest facts from the tail's whole lines; False when no reply record was among them."""
    lines = tail.split(b"\n")
    if not whole:
        lines = lines[1:]  # the first line is cut
    last = next((raw for raw in reversed(lines) if raw.strip()), b"")
    facts.half_written = bool(last) and _loads(last) is None
    found = False
    for raw in lines:
        record = _loads(raw)
        if record is None:
            continue
        update = record.get("$set")
        if isinstance(update, dict):
            if isinstance(update.get("summary"), str) and update["summary"]:
                facts.summary = update["summary"]
            if isinstance(update.get("lastUpdated"), str):
                facts.updated = update["lastUpdated"]
            messages = update.get("messages")
            for message in messages if isinstance(messages, list) else []:
                found = _reply(facts, message) or found
        elif isinstance(record.get("id"), str):
            found = _reply(facts, record) or found
        elif isinstance(record.get("sessionId"), str):
            facts.updated = record.get("lastUpdated") if isinstance(record.get("lastUpdated"), str) else facts.updated
            facts.started = _string(record.get("startTime")) or facts.started
            if isinstance(record.get("summary"), str) and record["summary"]:
                facts.summary = record["summary"]
    return found or whole


def _reply(facts: Facts, message: Any) -> bool:
    """Note a reply's model and token figures; True when `message` is a reply."""
    if not isinstance(message, dict) or message.get("type") != "gemini":
        return False
    facts.has_reply = True
    if isinstance(message.get("model"), str) and message["model"]:
        facts.model = message["model"]
    tokens = message.get("tokens")
    if isinstance(tokens, dict) and isinstance(tokens.get("total"), int) and tokens["total"] > 0:
        facts.context_tokens = tokens["total"]
    return True


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _loads(raw: bytes) -> dict[str, Any] | None:
    if not raw.strip():
        return None
    try:
        record = json.loads(raw)
    except (ValueError, RecursionError):  # damaged or nested too deeply
        return None
    return record if isinstance(record, dict) else None
