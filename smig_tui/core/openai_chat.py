"""Provides the conversion between OpenAI-chat-style message arrays and smig's neutral messages (pure).

Accepted input, per element: `{"role": "system"|"developer"|"user"|"assistant"|"tool",
"content": str | [parts] | null}`; parts are `{"type": "text"|"input_text"|"output_text", "text"}`,
image parts (kept as a marker, never as pixels) and `refusal` parts. An assistant message may carry
`tool_calls` (`{"id", "function": {"name", "arguments"}}`); a `tool` message answers one by
`tool_call_id`. Each element gets the id `m<position>`; a tool call inside it `m<position>.c<n>`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from smig_tui.core.errors import SmigError
from smig_tui.core.models import Kind, Message, Role

MAX_CHAT_BYTES = 20_000_000
"""Largest JSON document accepted (20 MB), so a runaway caller cannot exhaust memory."""
MAX_CHAT_MESSAGES = 50_000

_ROLES = {
    "system": Role.SYSTEM,
    "developer": Role.DEVELOPER,
    "user": Role.USER,
    "assistant": Role.ASSISTANT,
    "tool": Role.TOOL,
}
_TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
_IMAGE_PARTS = frozenset({"image_url", "input_image", "image"})
IMAGE_MARKER = "[image]"
"""What an image part becomes: pixels are not text and are not migrated."""


class ChatInputError(SmigError):
    """A chat message array is malformed or too large; the message says where."""

    exit_code = 2


def load_chat(data: str | Sequence[Any]) -> tuple[Message, ...]:
    """Parse a JSON text (or an already decoded list) of chat messages into neutral messages."""
    if isinstance(data, str):
        if len(data.encode("utf-8", "surrogatepass")) > MAX_CHAT_BYTES:
            raise ChatInputError(f"The messages JSON is larger than {MAX_CHAT_BYTES // 1_000_000} MB.")
        try:
            data = json.loads(data)
        except json.JSONDecodeError as error:
            raise ChatInputError(
                f"The messages are not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})."
            ) from None
    if not isinstance(data, list):
        raise ChatInputError('The messages must be a JSON array of {"role", "content"} objects.')
    if len(data) > MAX_CHAT_MESSAGES:
        raise ChatInputError(f"{len(data):,} messages is more than the limit of {MAX_CHAT_MESSAGES:,}.")
    if not data:
        raise ChatInputError("The messages array is empty; there is nothing to migrate.")
    out: list[Message] = []
    for position, item in enumerate(data):
        out.extend(_parse_one(position, item, len(out)))
    return tuple(out)


def _parse_one(position: int, item: Any, start: int) -> list[Message]:
    """Turn one chat element into one or more messages (an assistant turn with tool calls splits)."""
    where = f"messages[{position}]"
    if not isinstance(item, Mapping):
        raise ChatInputError(f'{where} must be an object with "role" and "content".')
    role = _ROLES.get(str(item.get("role", "")))
    if role is None:
        raise ChatInputError(f"{where}.role must be one of {', '.join(_ROLES)}, not {item.get('role')!r}.")
    text = _content_text(item.get("content"), where)
    mid = f"m{position}"
    if role is Role.TOOL:
        return [
            Message(
                start,
                mid,
                Role.TOOL,
                Kind.TOOL_RESULT,
                text,
                tool_name=_opt_str(item.get("name")),
                call_id=_opt_str(item.get("tool_call_id")),
            )
        ]
    messages: list[Message] = []
    if text or not item.get("tool_calls"):
        messages.append(Message(start, mid, role, Kind.TEXT, text))
    if role is Role.ASSISTANT:
        for n, call in enumerate(_tool_calls(item.get("tool_calls"), where)):
            name, arguments, call_id = call
            messages.append(
                Message(
                    start + len(messages),
                    f"{mid}.c{n}",
                    Role.ASSISTANT,
                    Kind.TOOL_CALL,
                    arguments,
                    tool_name=name,
                    call_id=call_id,
                )
            )
    return messages


def _content_text(content: Any, where: str) -> str:
    """Return a content field's readable text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise ChatInputError(f"{where}.content must be a string, an array of parts, or null.")
    texts: list[str] = []
    for n, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
            continue
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind in _TEXT_PARTS and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "refusal" and isinstance(part.get("refusal"), str):
            texts.append(part["refusal"])
        elif kind in _IMAGE_PARTS:
            texts.append(IMAGE_MARKER)
        else:
            raise ChatInputError(f"{where}.content[{n}] is not a text, refusal or image part.")
    return "\n".join(texts)


def _tool_calls(calls: Any, where: str) -> list[tuple[str, str, str]]:
    """Return (name, arguments, id) for each tool call of an assistant message."""
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise ChatInputError(f"{where}.tool_calls must be an array.")
    out = []
    for n, call in enumerate(calls):
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise ChatInputError(f"{where}.tool_calls[{n}] needs a function with a name.")
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        out.append((function["name"], arguments, str(call.get("id") or f"call_{where}_{n}")))
    return out


def _opt_str(value: Any) -> str | None:
    """A string field, or None."""
    return str(value) if value else None


def to_chat(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """Render neutral messages as OpenAI chat messages, tool calls regrouped on their assistant turn."""
    out: list[dict[str, Any]] = []
    origins: list[str] = []
    for message in messages:
        if message.opaque or message.kind is Kind.REASONING:
            continue
        origin = message.id.split(".", 1)[0]
        if message.kind is Kind.TOOL_CALL:
            call = {
                "id": message.call_id,
                "type": "function",
                "function": {"name": message.tool_name or "tool", "arguments": message.text},
            }
            if out and out[-1]["role"] == "assistant" and origins[-1] == origin:
                out[-1].setdefault("tool_calls", []).append(call)
                continue
            entry: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        elif message.kind is Kind.TOOL_RESULT:
            entry = {"role": "tool", "tool_call_id": message.call_id, "content": message.text}
        else:
            role = Role.USER if message.kind is Kind.SUMMARY or message.role is Role.TOOL else message.role
            entry = {"role": role.value, "content": message.text}
        out.append(entry)
        origins.append(origin)
    return out
