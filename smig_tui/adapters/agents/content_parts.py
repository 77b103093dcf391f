# smig: compiled with mypyc where it can (setup.py)
"""Provides the turn of Gemini API `Content` parts into smig's neutral messages, for the agents that store them.

Gemini CLI and Qwen Code (its fork) keep messages as the API's parts: text (a `thought` flag for
reasoning), `functionCall`, `functionResponse`, inline images. Each agent's package walks its own
records and hands each message's parts here. What the clients send on resume decides the rules:
`<session_context>` and `<hook_context>` blocks are the harness's context (kept, marked injected:
the receiving agent adds its own); a call's result is read once, by its id, however often it is
recorded; the figures a client logged for a call go on the reply's first message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from smig_tui.adapters.stored_text import TEXT_CHARS, LineText, PackedText, TextPacker, TextStore
from smig_tui.core.models import Kind, Message, Role, Usage

HARNESS_PREFIXES = ("<session_context>", "<hook_context>")
COMMAND_PREFIXES = ("/", "?")


@dataclass
class Converted:
    """The messages of one session, and the facts gathered on the way."""

    messages: list[Message] = field(default_factory=list)
    model: str | None = None
    """The model of the last reply."""
    context_tokens: int | None = None
    """`tokens.total` of the last reply that logged it."""
    first_prompt: str | None = None
    answered: set[str] = field(default_factory=set)
    """Call ids whose result is already read (the client records each result twice)."""

    def add(
        self,
        record_id: str,
        suffix: str,
        role: Role,
        kind: Kind,
        text: str | PackedText | LineText,
        line: int | None,
        stamp: str | None,
        **extra: Any,
    ) -> None:
        message_id = f"{record_id}{suffix}"
        self.messages.append(
            Message(len(self.messages), message_id, role, kind, text, timestamp=stamp, line=line, **extra)
        )


def part_text(content: Any) -> str:
    """The text parts of a record's content (a string, or a list of parts), thoughts left out."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    return "".join(
        part["text"]
        for part in content
        if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought")
    )


def is_command(text: str) -> bool:
    """A slash command or help request the client handles itself and never sends."""
    stripped = text.strip()
    return not stripped or stripped.startswith(COMMAND_PREFIXES)


def parts_of(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [content]
    return [part for part in content if isinstance(part, dict)] if isinstance(content, list) else []


def _response_bodies(content: Any) -> list[dict[str, Any]]:
    """The `functionResponse.response` objects among a message's parts whose `output` is a text."""
    bodies = []
    for part in content if isinstance(content, list) else (content,):
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict) and isinstance(body.get("output"), str):
            bodies.append(body)
    return bodies


def pack_response_outputs(content: Any, packer: TextPacker) -> None:
    """Swap each long `functionResponse.response.output` among a message's parts for a `PackedText`, in
    place: a big session's reader does so as each record is parsed, since it holds every record until
    its last line (`add_result` takes one as the result's body as it is)."""
    for body in _response_bodies(content):
        if len(body["output"]) > TEXT_CHARS:
            body["output"] = PackedText.of(body["output"], packer)


def response_outputs(content: Any) -> list[str]:
    """The outputs `leave_response_outputs` numbers, in order (a `LineTexts` for one line's parts)."""
    return [body["output"] for body in _response_bodies(content)]


def leave_response_outputs(content: Any, store: TextStore, offset: int, size: int) -> None:
    """Swap each long output among the parts of the line at `offset` for a `LineText` pointing back at
    it, in place (`add_result` takes one as the result's body as it is)."""
    for number, body in enumerate(_response_bodies(content)):
        body["output"] = store.body(body["output"], offset, size, number)


def add_user(
    out: Converted, content: Any, record_id: str, line: int | None, stamp: str | None, drop_commands: bool = True
) -> None:
    """A user message's parts: its text (harness context marked injected; a slash command left out
    unless `drop_commands` is False), images, and the results of the calls it answers."""
    text = part_text(content)
    stripped = text.strip()
    if stripped.startswith(HARNESS_PREFIXES):
        out.add(record_id, "", Role.USER, Kind.TEXT, text, line, stamp, injected=True)
        return
    for number, part in enumerate(parts_of(content)):
        response = part.get("functionResponse")
        if isinstance(response, dict):
            add_result(out, response, f"{record_id}:result{number}", line, stamp)
        elif isinstance(part.get("inlineData"), dict) or isinstance(part.get("fileData"), dict):
            blob = part.get("inlineData") or part.get("fileData") or {}
            out.add(record_id, f":image{number}", Role.USER, Kind.IMAGE, str(blob.get("mimeType") or ""), line, stamp)
    if stripped and not (drop_commands and is_command(stripped)):
        out.add(record_id, "", Role.USER, Kind.TEXT, text, line, stamp)
        out.first_prompt = out.first_prompt or stripped


def add_call(out: Converted, call: dict[str, Any], message_id: str, line: int | None, stamp: str | None) -> None:
    args = call.get("args")
    text = json.dumps(args if args is not None else {}, ensure_ascii=False)
    name = str(call.get("name") or "tool")
    out.add(
        message_id,
        "",
        Role.ASSISTANT,
        Kind.TOOL_CALL,
        text,
        line,
        stamp,
        tool_name=name,
        call_id=call_id_of(call.get("id")),
    )


def add_result(
    out: Converted, response: dict[str, Any], message_id: str, line: int | None, stamp: str | None, failed: bool = False
) -> None:
    call_id = call_id_of(response.get("id"))
    if call_id in out.answered:
        return  # the same result again (recorded in the call and as the next user record)
    out.answered.add(call_id)
    body = response.get("response")
    error = False
    if isinstance(body, dict) and isinstance(body.get("output"), str | PackedText | LineText):
        text = body["output"]  # a long output a big file's reader packed or left on disk is the body
    elif isinstance(body, dict) and isinstance(body.get("error"), str):
        text, error = body["error"], True
    else:
        text = json.dumps(body, ensure_ascii=False)
    out.add(
        message_id,
        "",
        Role.TOOL,
        Kind.TOOL_RESULT,
        text,
        line,
        stamp,
        tool_name=str(response.get("name") or "tool"),
        call_id=call_id,
        is_error=failed or error,
    )


def call_id_of(value: Any) -> str:
    """A call id as the API sees it: the client records `name__id` in the call and `id` in the request."""
    return str(value) if value is not None else ""


def usage_of(tokens: Any) -> Usage | None:
    """The figures the client logged for one model call (`tokens`: input, output, cached, thoughts, tool, total)."""
    if not isinstance(tokens, dict):
        return None

    def number(key: str) -> int:
        value = tokens.get(key)
        return value if isinstance(value, int) and value >= 0 else 0

    thoughts = number("thoughts")
    return Usage(
        input_tokens=number("input"),
        cached_input_tokens=number("cached"),
        output_tokens=number("output") + thoughts,
        reasoning_tokens=thoughts,
        context_tokens=number("total"),
    )


def add_reply_parts(
    out: Converted, parts: list[dict[str, Any]], record_id: str, line: int | None, stamp: str | None
) -> None:
    """A model message's parts in order: thoughts as reasoning, text, and tool calls."""
    for number, part in enumerate(parts):
        if part.get("thought") and isinstance(part.get("text"), str):
            out.add(record_id, f":thought{number}", Role.ASSISTANT, Kind.REASONING, part["text"], line, stamp)
        elif isinstance(part.get("text"), str) and part["text"].strip():
            out.add(record_id, f":text{number}", Role.ASSISTANT, Kind.TEXT, part["text"], line, stamp)
        elif isinstance(part.get("functionCall"), dict):
            add_call(out, part["functionCall"], f"{record_id}:call{number}", line, stamp)


def close_reply(out: Converted, model: Any, usage: Usage | None, first: int) -> None:
    """Note a reply's model, and its usage on its first message (`first`: where the reply's messages begin)."""
    if isinstance(model, str) and model:
        out.model = model
    if usage is not None:
        out.context_tokens = usage.context_tokens
        if len(out.messages) > first:
            # On the call's first message: the next call's prompt grew by this reply and what followed it.
            opening = out.messages[first]
            out.messages[first] = opening.placed(opening.index, usage)
