# smig: compiled with mypyc where it can (setup.py)
"""Provides the conversion of one Claude Code `user`/`assistant` record into neutral messages."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from smig_tui.core.models import Kind, Message, Role, Usage, new_message, new_usage

SYNTHETIC_MODEL = "<synthetic>"
"""The model Claude Code writes on assistant records it made up itself: API errors, refusals, and
the "No response requested." reply it puts after a transcript that ended on a user turn."""

INJECTED_PREFIXES = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<system-reminder>",
    "[Request interrupted by user",
    "<task-notification>",
)
"""Text the harness puts in user records: slash-command echoes, reminders, interruption markers,
background-task notices (sent to the model inside a `<system-reminder>` "not user input" note)."""


@dataclass(slots=True)
class Converted:
    """The messages one record yields, plus what the loader needs to know about it."""

    messages: Sequence[Message] = ()
    """A tuple once converted: 140,000 one-message lists cost 6 MB more than tuples."""
    notes: Sequence[str] = ()
    """Problems worth a warning if the record turns out to be on the active path."""
    usage: Usage | None = None
    group: tuple[str, str] | None = None
    """(message.id, requestId) of the API response an assistant record belongs to."""
    model: str | None = None
    answered: tuple[str, ...] = ()
    """tool_use ids this record carries results for."""
    calls: tuple[str, ...] = ()
    """tool_use ids this record starts."""
    blocks: Sequence[int] = ()
    """The content block each message came from, kept only when there are several messages (a
    500 MB transcript has 140,000 records, and an empty list each costs 10 MB)."""


def usage_from(raw: Any) -> Usage | None:
    """Turn a Messages API `usage` into Usage; context = input + cache writes + cache reads."""
    if not isinstance(raw, dict):
        return None
    fresh = _int(raw.get("input_tokens"))
    written = _int(raw.get("cache_creation_input_tokens"))
    read = _int(raw.get("cache_read_input_tokens"))
    return new_usage(
        input_tokens=fresh,
        cached_input_tokens=read,
        cache_creation_tokens=written,
        output_tokens=_int(raw.get("output_tokens")),
        context_tokens=fresh + written + read,
    )


def _int(value: Any) -> int:
    """Read a token count, treating anything odd as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def is_injected_text(text: str) -> bool:
    """Tell whether user text was written by the harness rather than typed."""
    return text.lstrip().startswith(INJECTED_PREFIXES)


def convert_record(
    data: dict[str, Any], line: int, offset: int, first_index: int = 0, strings: dict[str, str] | None = None
) -> Converted:
    """Convert a `user` or `assistant` record; ids are the uuid, plus `#<block>` if several.

    Messages are numbered from `first_index`: the loader's guess of where they end up, right
    whenever the conversation has no branches, so it need not copy them to renumber. `strings`
    is the reader's table of tool names and open call ids (see `_Stamp.strings`).
    """
    message = data.get("message")
    if not isinstance(message, dict):
        return Converted(notes=["record has no message object; skipped"])
    stamp = _Stamp.of(data, line, offset, first_index, strings)
    if data.get("type") == "assistant":
        return _numbered(_assistant(data, message, stamp), stamp)
    return _numbered(_user(data, message, stamp), stamp)


def queued_prompt(data: dict[str, Any]) -> Any:
    """Return the prompt of a `queued_command` attachment, or None for any other record.

    Claude Code writes one when the user sends a message while a tool is still running; the model
    acts on it, and it appears nowhere else in the transcript.
    """
    attachment = data.get("attachment")
    if data.get("type") != "attachment" or not isinstance(attachment, dict):
        return None
    if attachment.get("type") != "queued_command":
        return None
    prompt = attachment.get("prompt")
    return prompt if isinstance(prompt, (str, list)) and prompt else None


def convert_queued(
    data: dict[str, Any],
    prompt: Any,
    line: int,
    offset: int,
    first_index: int = 0,
    strings: dict[str, str] | None = None,
) -> Converted:
    """Convert a queued prompt into user messages, like a typed prompt (numbered as `convert_record`)."""
    attachment = data.get("attachment")
    meta = bool(data.get("isMeta")) or (isinstance(attachment, dict) and bool(attachment.get("isMeta")))
    stamp = _Stamp.of(data, line, offset, first_index, strings)
    return _numbered(_user({"isMeta": meta}, {"content": prompt}, stamp), stamp)


@dataclass(slots=True)
class _Stamp:
    """Where a record's messages come from: each is built once, already carrying it."""

    uuid: str
    timestamp: str | None
    line: int
    offset: int
    index: int
    """The index the next message gets."""
    strings: dict[str, str]
    """One string object for each tool name, and for a call id until its result comes: a 500 MB
    transcript would otherwise hold 80,000 copies (4 MB)."""

    @classmethod
    def of(cls, data: dict[str, Any], line: int, offset: int, index: int, strings: dict[str, str] | None) -> _Stamp:
        timestamp = data.get("timestamp")
        return cls(
            str(data.get("uuid") or f"L{line}"),
            timestamp if isinstance(timestamp, str) else None,
            line,
            offset,
            index,
            {} if strings is None else strings,
        )

    def shared(self, value: str | None) -> str | None:
        """The table's copy of a tool name or call id (added when new)."""
        return None if value is None else self.strings.setdefault(value, value)

    def answered(self, call_id: str | None) -> str | None:
        """The call's copy of the id a result answers, taken off the table."""
        return None if call_id is None else self.strings.pop(call_id, call_id)

    def message(
        self,
        role: Role,
        kind: Kind,
        text: str,
        *,
        tool_name: str | None = None,
        call_id: str | None = None,
        is_error: bool = False,
        opaque: bool = False,
        injected: bool = False,
        full_output_path: str | None = None,
    ) -> Message:
        """The record's next message, with the record's uuid as its id (see `_numbered`)."""
        self.index += 1
        return new_message(
            self.index - 1,
            self.uuid,
            role,
            kind,
            text,
            tool_name,
            call_id,
            self.timestamp,
            self.line,
            self.offset,
            None,
            is_error,
            opaque,
            injected,
            full_output_path,
        )


def _numbered(out: Converted, stamp: _Stamp) -> Converted:
    """Give each message of a record with several the index of its block: `<uuid>#<block>`.

    Claude Code writes one content block per record almost always, so the messages are made with
    the bare uuid and only records with several are re-made.
    """
    if len(out.messages) > 1:
        out.messages = tuple(
            replace(message, id=f"{stamp.uuid}#{block}")
            for message, block in zip(out.messages, out.blocks, strict=True)
        )
    return out


def _assistant(data: dict[str, Any], message: dict[str, Any], stamp: _Stamp) -> Converted:
    """Convert an assistant record: one message per content block, in order."""
    model = message.get("model") if isinstance(message.get("model"), str) else None
    synthetic = model == SYNTHETIC_MODEL or bool(data.get("isApiErrorMessage"))
    out = Converted(model=None if model == SYNTHETIC_MODEL else model)
    hidden = synthetic and not _sent_synthetic(data)
    if not synthetic:
        out.usage = usage_from(message.get("usage"))
    msg_id, request_id = message.get("id"), data.get("requestId")
    if isinstance(msg_id, str) and msg_id:
        out.group = (msg_id, request_id if isinstance(request_id, str) else "")
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return out
    calls: list[str] = []
    messages: list[Message] = []
    notes: list[str] = []
    blocks: list[int] = []
    for index, block in enumerate(content):
        converted = _assistant_block(block, hidden, stamp, notes)
        if converted is None:
            continue
        if converted.kind is Kind.TOOL_CALL and converted.call_id:
            calls.append(converted.call_id)
        messages.append(converted)
        blocks.append(index)
    out.calls = tuple(calls)
    return _kept(out, messages, notes, blocks)


def _kept(out: Converted, messages: list[Message], notes: list[str], blocks: list[int]) -> Converted:
    """Keep a record's messages, and its notes and block numbers only when they matter (see
    `Converted.blocks`)."""
    out.messages = tuple(messages)
    if notes:
        out.notes = notes
    if len(blocks) > 1:
        out.blocks = blocks
    return out


def _sent_synthetic(data: dict[str, Any]) -> bool:
    """Tell whether a made-up assistant record is one the client sends to the model.

    Error notices (an `error` field, `isApiErrorMessage`) are shown to the user only; the filler
    reply written when a transcript ended on a user turn carries neither, and the model gets it
    (seen in Claude Code 2.1.332's requests).
    """
    return data.get("error") is None and not data.get("isApiErrorMessage")


def _assistant_block(block: Any, hidden: bool, stamp: _Stamp, notes: list[str]) -> Message | None:
    """Convert one assistant content block; thinking signatures are dropped."""
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "text":
        return stamp.message(Role.ASSISTANT, Kind.TEXT, _str(block.get("text")), injected=hidden)
    if kind == "thinking":
        return stamp.message(Role.ASSISTANT, Kind.REASONING, _str(block.get("thinking")), injected=hidden)
    if kind == "redacted_thinking":
        return stamp.message(Role.ASSISTANT, Kind.REASONING, "[redacted thinking]", opaque=True, injected=hidden)
    if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        return stamp.message(
            Role.ASSISTANT,
            Kind.TOOL_CALL,
            render_input(block.get("input")),
            tool_name=stamp.shared(_str(block.get("name")) or None),
            call_id=stamp.shared(_str(block.get("id")) or None),
            injected=hidden,
        )
    if isinstance(kind, str) and kind.endswith("tool_result"):
        return _tool_result(block, stamp, injected=hidden)
    notes.append(f"content block of unknown type {kind!r} skipped")
    return None


def _tool_result(
    block: dict[str, Any], stamp: _Stamp, injected: bool = False, full_output_path: str | None = None
) -> Message:
    """Convert a tool result block, whichever side of the conversation carried it."""
    return stamp.message(
        Role.TOOL,
        Kind.TOOL_RESULT,
        result_text(block.get("content")),
        call_id=stamp.answered(_str(block.get("tool_use_id")) or None),
        is_error=bool(block.get("is_error")),
        injected=injected,
        full_output_path=full_output_path,
    )


def _user(data: dict[str, Any], message: dict[str, Any], stamp: _Stamp) -> Converted:
    """Convert a user record: prompts, tool results, images, or the compact summary."""
    out = Converted()
    meta = bool(data.get("isMeta"))
    content = message.get("content")
    if isinstance(content, str):
        if data.get("isCompactSummary"):
            out.messages = (stamp.message(Role.USER, Kind.SUMMARY, content),)
        else:
            injected = meta or is_injected_text(content)
            out.messages = (stamp.message(Role.USER, Kind.TEXT, content, injected=injected),)
        return out
    if not isinstance(content, list):
        return out
    answered: list[str] = []
    messages: list[Message] = []
    notes: list[str] = []
    blocks: list[int] = []
    persisted = persisted_output_path(data)
    summary = bool(data.get("isCompactSummary"))
    for index, block in enumerate(content):
        converted = _user_block(block, meta, summary, persisted, stamp, notes)
        if converted is None:
            continue
        if converted.kind is Kind.TOOL_RESULT and converted.call_id:
            answered.append(converted.call_id)
        messages.append(converted)
        blocks.append(index)
    out.answered = tuple(answered)
    return _kept(out, messages, notes, blocks)


def persisted_output_path(data: dict[str, Any]) -> str | None:
    """The file Claude Code saved a large tool output to (`toolUseResult.persistedOutputPath`);
    the model got a `<persisted-output>` preview instead, which is what the record's content holds."""
    result = data.get("toolUseResult")
    path = result.get("persistedOutputPath") if isinstance(result, dict) else None
    return path if isinstance(path, str) and path else None


def _user_block(
    block: Any, meta: bool, summary: bool, persisted: str | None, stamp: _Stamp, notes: list[str]
) -> Message | None:
    """Convert one user content block."""
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "text":
        text = _str(block.get("text"))
        if summary:
            return stamp.message(Role.USER, Kind.SUMMARY, text)
        return stamp.message(Role.USER, Kind.TEXT, text, injected=meta or is_injected_text(text))
    if kind == "tool_result":
        return _tool_result(block, stamp, injected=meta, full_output_path=persisted)
    if kind in ("image", "document"):
        return stamp.message(Role.USER, Kind.IMAGE, media_placeholder(block), injected=meta)
    notes.append(f"content block of unknown type {kind!r} skipped")
    return None


def render_input(value: Any) -> str:
    """Render a tool call's input as compact JSON, the way the model saw it."""
    if value is None:
        return "{}"
    try:
        return _INPUT_JSON.encode(value)
    except (TypeError, ValueError):
        return str(value)


_INPUT_JSON = json.JSONEncoder(ensure_ascii=False)
"""What `json.dumps(value, ensure_ascii=False)` uses, made once: `dumps` makes a new one per call."""


def result_text(content: Any) -> str:
    """Flatten tool output (a string, or text and image blocks) into readable text."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else render_input(content)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(_str(block.get("text")))
        elif isinstance(block, dict) and block.get("type") in ("image", "document"):
            parts.append(media_placeholder(block))
    return "\n".join(parts)


def media_placeholder(block: dict[str, Any]) -> str:
    """Describe an image or document block without its (base64) payload."""
    source = block.get("source")
    media = source.get("media_type") if isinstance(source, dict) else None
    label = "image" if block.get("type") == "image" else "document"
    return f"[{label}: {media}]" if isinstance(media, str) and media else f"[{label}]"


def _str(value: Any) -> str:
    """Read a string field, treating anything else as empty."""
    return value if isinstance(value, str) else ""
