"""Provides the turn of Gemini CLI message records into smig's neutral messages.

It follows what the client sends the model on resume (`convertSessionToClientHistory`, 0.61.0):
`info`/`error`/`warning` records are display only; a user record that starts with `/` or `?` (a
slash command) is not sent; `<session_context>` and `<hook_context>` blocks are the harness's
context (kept, marked injected: the receiving agent adds its own); a reply's thoughts, text and
tool calls come in that order, then the calls' results. A call's result is recorded twice, in the
call (`toolCalls[].result`) and as the next user record's `functionResponse`; it is read once. The
figures the client logged for a call (`tokens`) go on the reply's first message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

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
        text: str,
        line: int | None,
        stamp: str | None,
        **extra: Any,
    ) -> None:
        message_id = f"{record_id}{suffix}"
        self.messages.append(
            Message(len(self.messages), message_id, role, kind, text, timestamp=stamp, line=line, **extra)
        )


def convert(records: Iterable[dict[str, Any]], lines: dict[str, int], drop_commands: bool = True) -> Converted:
    """All messages of the records, in order; `drop_commands=False` keeps a user text starting with `/`
    or `?`, for a client that records its slash commands apart (Qwen Code)."""
    out = Converted()
    for record in records:
        kind = record.get("type")
        record_id = str(record.get("id"))
        line = lines.get(record_id)
        stamp = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        if kind == "user":
            _user(out, record, record_id, line, stamp, drop_commands)
        elif kind == "gemini":
            _reply(out, record, record_id, line, stamp)
    return out


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


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [content]
    return [part for part in content if isinstance(part, dict)] if isinstance(content, list) else []


def _user(
    out: Converted, record: dict[str, Any], record_id: str, line: int | None, stamp: str | None, drop_commands: bool
) -> None:
    content = record.get("content")
    text = part_text(content)
    stripped = text.strip()
    if stripped.startswith(HARNESS_PREFIXES):
        out.add(record_id, "", Role.USER, Kind.TEXT, text, line, stamp, injected=True)
        return
    for number, part in enumerate(_parts(content)):
        response = part.get("functionResponse")
        if isinstance(response, dict):
            _result(out, response, f"{record_id}:result{number}", line, stamp)
        elif isinstance(part.get("inlineData"), dict) or isinstance(part.get("fileData"), dict):
            blob = part.get("inlineData") or part.get("fileData") or {}
            out.add(record_id, f":image{number}", Role.USER, Kind.IMAGE, str(blob.get("mimeType") or ""), line, stamp)
    if stripped and not (drop_commands and is_command(stripped)):
        out.add(record_id, "", Role.USER, Kind.TEXT, text, line, stamp)
        out.first_prompt = out.first_prompt or stripped


def _reply(out: Converted, record: dict[str, Any], record_id: str, line: int | None, stamp: str | None) -> None:
    parts = _parts(record.get("content"))
    first = len(out.messages)
    if any("functionCall" in part or part.get("thought") for part in parts):
        # A conversation the client rewrote (resume, compression) keeps each reply as API parts.
        for number, part in enumerate(parts):
            if part.get("thought") and isinstance(part.get("text"), str):
                out.add(record_id, f":thought{number}", Role.ASSISTANT, Kind.REASONING, part["text"], line, stamp)
            elif isinstance(part.get("text"), str) and part["text"].strip():
                out.add(record_id, f":text{number}", Role.ASSISTANT, Kind.TEXT, part["text"], line, stamp)
            elif isinstance(part.get("functionCall"), dict):
                _call(out, part["functionCall"], f"{record_id}:call{number}", line, stamp)
    else:
        for number, thought in enumerate(record.get("thoughts") or []):
            if isinstance(thought, dict) and (thought.get("description") or thought.get("subject")):
                subject, description = thought.get("subject"), thought.get("description") or ""
                text = f"**{subject}** {description}" if subject else str(description)
                out.add(record_id, f":thought{number}", Role.ASSISTANT, Kind.REASONING, text, line, stamp)
        text = part_text(record.get("content"))
        if text.strip():
            out.add(record_id, "", Role.ASSISTANT, Kind.TEXT, text, line, stamp)
        calls = [call for call in record.get("toolCalls") or [] if isinstance(call, dict)]
        for number, call in enumerate(calls):
            _call(out, call, f"{record_id}:call{number}", line, stamp)
        for number, call in enumerate(calls):
            _call_result(out, call, f"{record_id}:result{number}", line, stamp)
    if isinstance(record.get("model"), str) and record["model"]:
        out.model = record["model"]
    usage = _usage(record.get("tokens"))
    if usage is not None:
        out.context_tokens = usage.context_tokens
        if len(out.messages) > first:
            # On the call's first message: the next call's prompt grew by this reply and what followed it.
            opening = out.messages[first]
            out.messages[first] = opening.placed(opening.index, usage)


def _call(out: Converted, call: dict[str, Any], message_id: str, line: int | None, stamp: str | None) -> None:
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
        call_id=_call_id(call.get("id")),
    )


def _call_result(out: Converted, call: dict[str, Any], message_id: str, line: int | None, stamp: str | None) -> None:
    """The result recorded inside a tool call: a string, a list of parts, or a `functionResponse` part."""
    result = call.get("result")
    call_id = _call_id(call.get("id"))
    failed = call.get("status") in ("error", "cancelled")
    if isinstance(result, str):
        _result(
            out,
            {"id": call.get("id"), "name": call.get("name"), "response": {"output": result}},
            message_id,
            line,
            stamp,
            failed,
        )
        return
    for part in _parts(result):
        response = part.get("functionResponse")
        if isinstance(response, dict):
            _result(out, {**response, "id": response.get("id") or call.get("id")}, message_id, line, stamp, failed)
        elif isinstance(part.get("text"), str) and call_id not in out.answered:
            out.answered.add(call_id)
            out.add(
                message_id,
                "",
                Role.TOOL,
                Kind.TOOL_RESULT,
                part["text"],
                line,
                stamp,
                tool_name=str(call.get("name") or "tool"),
                call_id=call_id,
                is_error=failed,
            )


def _result(
    out: Converted, response: dict[str, Any], message_id: str, line: int | None, stamp: str | None, failed: bool = False
) -> None:
    call_id = _call_id(response.get("id"))
    if call_id in out.answered:
        return  # the same result again (recorded in the call and as the next user record)
    out.answered.add(call_id)
    body = response.get("response")
    error = False
    if isinstance(body, dict) and isinstance(body.get("output"), str):
        text = body["output"]
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


def _call_id(value: Any) -> str:
    """A call id as the API sees it: the client records `name__id` in the call and `id` in the request."""
    return str(value) if value is not None else ""


def _usage(tokens: Any) -> Usage | None:
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
