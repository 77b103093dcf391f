"""Provides the conversion of one Claude Code `user`/`assistant` record into neutral messages."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from smig_tui.core.models import Kind, Message, Role, Usage

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

    messages: list[Message] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Problems worth a warning if the record turns out to be on the active path."""
    usage: Usage | None = None
    group: tuple[str, str] | None = None
    """(message.id, requestId) of the API response an assistant record belongs to."""
    model: str | None = None
    answered: tuple[str, ...] = ()
    """tool_use ids this record carries results for."""
    calls: tuple[str, ...] = ()
    """tool_use ids this record starts."""


def usage_from(raw: Any) -> Usage | None:
    """Turn a Messages API `usage` into Usage; context = input + cache writes + cache reads."""
    if not isinstance(raw, dict):
        return None
    fresh = _int(raw.get("input_tokens"))
    written = _int(raw.get("cache_creation_input_tokens"))
    read = _int(raw.get("cache_read_input_tokens"))
    return Usage(
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


def convert_record(data: dict[str, Any], line: int, offset: int) -> Converted:
    """Convert a `user` or `assistant` record; ids are the uuid, plus `#<block>` if several."""
    message = data.get("message")
    if not isinstance(message, dict):
        return Converted(notes=["record has no message object; skipped"])
    out = _assistant(data, message) if data.get("type") == "assistant" else _user(data, message)
    return _placed(out, data, line, offset)


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


def convert_queued(data: dict[str, Any], prompt: Any, line: int, offset: int) -> Converted:
    """Convert a queued prompt into user messages, like a typed prompt."""
    attachment = data.get("attachment")
    meta = bool(data.get("isMeta")) or (
        isinstance(attachment, dict) and bool(attachment.get("isMeta"))
    )
    out = _user({"isMeta": meta}, {"content": prompt})
    return _placed(out, data, line, offset)


def _placed(out: Converted, data: dict[str, Any], line: int, offset: int) -> Converted:
    """Give the drafted messages their ids and source positions."""
    uuid = str(data.get("uuid") or f"L{line}")
    timestamp = data.get("timestamp") if isinstance(data.get("timestamp"), str) else None
    several = len(out.messages) > 1
    out.messages = [_place(draft, uuid, several, timestamp, line, offset) for draft in out.messages]
    return out


def _place(
    draft: Message, uuid: str, several: bool, timestamp: str | None, line: int, offset: int
) -> Message:
    """Stamp a drafted message with its id and source position (its id holds the block index)."""
    block = draft.id
    return Message(
        index=0,
        id=f"{uuid}#{block}" if several else uuid,
        role=draft.role,
        kind=draft.kind,
        body=draft.text,
        tool_name=draft.tool_name,
        call_id=draft.call_id,
        timestamp=timestamp,
        line=line,
        offset=offset,
        is_error=draft.is_error,
        opaque=draft.opaque,
        injected=draft.injected,
        full_output_path=draft.full_output_path,
    )


def _draft(block: int, role: Role, kind: Kind, text: str, **extra: Any) -> Message:
    """Make a message whose id is, for now, the index of the block it came from."""
    return Message(index=0, id=str(block), role=role, kind=kind, body=text, **extra)


def _assistant(data: dict[str, Any], message: dict[str, Any]) -> Converted:
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
    for index, block in enumerate(content):
        draft = _assistant_block(index, block, out.notes)
        if draft is None:
            continue
        if hidden:
            draft = replace(draft, injected=True)
        if draft.kind is Kind.TOOL_CALL and draft.call_id:
            calls.append(draft.call_id)
        out.messages.append(draft)
    out.calls = tuple(calls)
    return out


def _sent_synthetic(data: dict[str, Any]) -> bool:
    """Tell whether a made-up assistant record is one the client sends to the model.

    Error notices (an `error` field, `isApiErrorMessage`) are shown to the user only; the filler
    reply written when a transcript ended on a user turn carries neither, and the model gets it
    (seen in Claude Code 2.1.332's requests).
    """
    return data.get("error") is None and not data.get("isApiErrorMessage")


def _assistant_block(index: int, block: Any, notes: list[str]) -> Message | None:
    """Convert one assistant content block; thinking signatures are dropped."""
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "text":
        return _draft(index, Role.ASSISTANT, Kind.TEXT, _str(block.get("text")))
    if kind == "thinking":
        return _draft(index, Role.ASSISTANT, Kind.REASONING, _str(block.get("thinking")))
    if kind == "redacted_thinking":
        return _draft(index, Role.ASSISTANT, Kind.REASONING, "[redacted thinking]", opaque=True)
    if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        return _draft(
            index,
            Role.ASSISTANT,
            Kind.TOOL_CALL,
            render_input(block.get("input")),
            tool_name=_str(block.get("name")) or None,
            call_id=_str(block.get("id")) or None,
        )
    if isinstance(kind, str) and kind.endswith("tool_result"):
        return _tool_result(index, block)
    notes.append(f"content block of unknown type {kind!r} skipped")
    return None


def _tool_result(index: int, block: dict[str, Any], injected: bool = False) -> Message:
    """Convert a tool result block, whichever side of the conversation carried it."""
    return _draft(
        index,
        Role.TOOL,
        Kind.TOOL_RESULT,
        result_text(block.get("content")),
        call_id=_str(block.get("tool_use_id")) or None,
        is_error=bool(block.get("is_error")),
        injected=injected,
    )


def _user(data: dict[str, Any], message: dict[str, Any]) -> Converted:
    """Convert a user record: prompts, tool results, images, or the compact summary."""
    out = Converted()
    meta = bool(data.get("isMeta"))
    content = message.get("content")
    if isinstance(content, str):
        if data.get("isCompactSummary"):
            out.messages.append(_draft(0, Role.USER, Kind.SUMMARY, content))
        else:
            injected = meta or is_injected_text(content)
            out.messages.append(_draft(0, Role.USER, Kind.TEXT, content, injected=injected))
        return out
    if not isinstance(content, list):
        return out
    answered: list[str] = []
    persisted = persisted_output_path(data)
    for index, block in enumerate(content):
        draft = _user_block(index, block, meta, bool(data.get("isCompactSummary")), out.notes)
        if draft is None:
            continue
        if persisted and draft.kind is Kind.TOOL_RESULT:
            draft = replace(draft, full_output_path=persisted)
        if draft.kind is Kind.TOOL_RESULT and draft.call_id:
            answered.append(draft.call_id)
        out.messages.append(draft)
    out.answered = tuple(answered)
    return out


def persisted_output_path(data: dict[str, Any]) -> str | None:
    """The file Claude Code saved a large tool output to (`toolUseResult.persistedOutputPath`);
    the model got a `<persisted-output>` preview instead, which is what the record's content holds."""
    result = data.get("toolUseResult")
    path = result.get("persistedOutputPath") if isinstance(result, dict) else None
    return path if isinstance(path, str) and path else None


def _user_block(
    index: int, block: Any, meta: bool, summary: bool, notes: list[str]
) -> Message | None:
    """Convert one user content block."""
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "text":
        text = _str(block.get("text"))
        if summary:
            return _draft(index, Role.USER, Kind.SUMMARY, text)
        return _draft(index, Role.USER, Kind.TEXT, text, injected=meta or is_injected_text(text))
    if kind == "tool_result":
        return _tool_result(index, block, injected=meta)
    if kind in ("image", "document"):
        return _draft(index, Role.USER, Kind.IMAGE, media_placeholder(block), injected=meta)
    notes.append(f"content block of unknown type {kind!r} skipped")
    return None


def render_input(value: Any) -> str:
    """Render a tool call's input as compact JSON, the way the model saw it."""
    if value is None:
        return "{}"
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


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
