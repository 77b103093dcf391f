# smig: compiled with mypyc where it can (setup.py)
"""Provides the turn of Gemini CLI message records into smig's neutral messages (their parts: `content_parts`).

It follows what the client sends the model on resume (`convertSessionToClientHistory`, 0.61.0):
`info`/`error`/`warning` records are display only; a user record that starts with `/` or `?` (a
slash command) is not sent; `<session_context>` and `<hook_context>` blocks are the harness's
context (kept, marked injected: the receiving agent adds its own); a reply's thoughts, text and
tool calls come in that order, then the calls' results. A call's result is recorded twice, in the
call (`toolCalls[].result`) and as the next user record's `functionResponse`; it is read once. The
figures the client logged for a call (`tokens`) go on the reply's first message.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from smig_tui.adapters.agents.content_parts import (
    COMMAND_PREFIXES,
    HARNESS_PREFIXES,
    Converted,
    add_call,
    add_reply_parts,
    add_result,
    add_user,
    call_id_of,
    close_reply,
    is_command,
    part_text,
    parts_of,
    usage_of,
)
from smig_tui.core.models import Kind, Role

__all__ = ["COMMAND_PREFIXES", "HARNESS_PREFIXES", "Converted", "convert", "is_command", "part_text"]


def convert(records: Iterable[dict[str, Any]], lines: dict[str, int]) -> Converted:
    """All messages of the records, in order."""
    out = Converted()
    for record in records:
        kind = record.get("type")
        record_id = str(record.get("id"))
        line = lines.get(record_id)
        stamp = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        if kind == "user":
            add_user(out, record.get("content"), record_id, line, stamp)
        elif kind == "gemini":
            _reply(out, record, record_id, line, stamp)
    return out


def _reply(out: Converted, record: dict[str, Any], record_id: str, line: int | None, stamp: str | None) -> None:
    parts = parts_of(record.get("content"))
    first = len(out.messages)
    if any("functionCall" in part or part.get("thought") for part in parts):
        # A conversation the client rewrote (resume, compression) keeps each reply as API parts.
        add_reply_parts(out, parts, record_id, line, stamp)
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
            add_call(out, call, f"{record_id}:call{number}", line, stamp)
        for number, call in enumerate(calls):
            _call_result(out, call, f"{record_id}:result{number}", line, stamp)
    close_reply(out, record.get("model"), usage_of(record.get("tokens")), first)


def _call_result(out: Converted, call: dict[str, Any], message_id: str, line: int | None, stamp: str | None) -> None:
    """The result recorded inside a tool call: a string, a list of parts, or a `functionResponse` part."""
    result = call.get("result")
    call_id = call_id_of(call.get("id"))
    failed = call.get("status") in ("error", "cancelled")
    if isinstance(result, str):
        add_result(
            out,
            {"id": call.get("id"), "name": call.get("name"), "response": {"output": result}},
            message_id,
            line,
            stamp,
            failed,
        )
        return
    for part in parts_of(result):
        response = part.get("functionResponse")
        if isinstance(response, dict):
            add_result(out, {**response, "id": response.get("id") or call.get("id")}, message_id, line, stamp, failed)
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
