# smig: compiled with mypyc where it can (setup.py)
"""Provides the read of one Copilot CLI `events.jsonl` into what its client sends the model on resume.

The file (1.0.102, docs/formats/copilot.md) is one event per line, appended as the session runs.
What the model sees is, in order: each `user.message` (its `transformedContent`, the typed text
after a `<current_datetime>` line the client adds to every prompt; smig keeps the typed text, as the
receiving agent adds its own context), each `assistant.message` (its text, then its `toolRequests`),
and each `tool.execution_complete`'s `result.content` as the answer to its call, paired by
`toolCallId`. An applied compaction (`session.compaction_complete`, outcome `applied`) replaces
everything before its `session.compaction_start` with one user message the client builds from the
earlier prompts and `summaryContent`. The client writes its whole system prompt (`system.message`)
and a compaction's whole request (`model.*`) into the file too: those lines are skipped unparsed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.content_parts import Converted, usage_of
from smig_tui.adapters.agents.file_sessions import line_size, line_store, open_lines
from smig_tui.adapters.json_parse import parse
from smig_tui.adapters.stored_text import LineText, TextStore
from smig_tui.core.models import Kind, Role, Usage

UNSENT_TYPES = (
    rb"system\.message|model\.[a-z_]+|session\.shutdown|session\.usage_checkpoint"
    rb"|tool\.execution_start|assistant\.turn_(?:start|end)"
)
UNSENT = re.compile(rb'^\{\s*"type"\s*:\s*"(?:' + UNSENT_TYPES + rb')"')
"""Events the model never sees and smig needs nothing from: skipped without parsing (the system
prompt is about 23 KB a run, a compaction's recorded request tens of KB)."""
DATETIME = re.compile(r"^<current_datetime>[^<]*</current_datetime>\n\n")
"""What Copilot puts before every prompt it sends (`transformedContent`)."""
SUMMARY_HEAD = (
    "Some of the conversation history has been summarized to free up context.\n\n"
    "You were originally given instructions from a user over one or more turns. Here were the user messages:\n"
)
"""How the message Copilot 1.0.102 sends in place of compacted history begins (seen in its requests)."""


@dataclass
class SessionFile:
    """The events of one `events.jsonl` that matter to smig, in file order, with their line numbers."""

    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    damaged: list[int] = field(default_factory=list)
    """Lines that are not a JSON object with a `type` (half-written, or damaged)."""

    def first(self, kind: str) -> dict[str, Any]:
        """The `data` of the first event of `kind` (an empty one when there is none)."""
        return next((data(event) for _, event in self.events if event.get("type") == kind), {})

    @property
    def session_id(self) -> str | None:
        """The id `session.start` records."""
        value = self.first("session.start").get("sessionId")
        return value if isinstance(value, str) and value else None

    @property
    def cwd(self) -> str | None:
        """The folder the session was started in."""
        context = self.first("session.start").get("context")
        value = context.get("cwd") if isinstance(context, dict) else None
        return value if isinstance(value, str) and value else None

    def last_stamp(self) -> str | None:
        """The time of the last event read."""
        for _, event in self.events[::-1]:  # not `reversed`: mypyc cannot compile it over these pairs
            if isinstance(event.get("timestamp"), str):
                return str(event["timestamp"])
        return None


def data(event: dict[str, Any]) -> dict[str, Any]:
    """An event's `data` (an empty one when it is not an object)."""
    value = event.get("data")
    return value if isinstance(value, dict) else {}


def read_session(path: Path, pack: bool = False) -> SessionFile:
    """Parse the file, skipping what the model never sees (raises OSError when it cannot be read); with
    `pack`, a big file's long tool results are left on disk as each event is parsed (`line_store`)."""
    out = SessionFile()
    with open_lines(path) as handle:
        store, offset = line_store(handle, path, pack, _result_texts), 0
        for number, raw in enumerate(handle, start=1):
            at, offset = offset, offset + len(raw)
            if not raw.strip() or UNSENT.match(raw):
                continue
            try:
                event = parse(raw)
            except (ValueError, RecursionError):  # damaged, or nested too deeply to parse
                out.damaged.append(number)
                continue
            if not isinstance(event, dict) or not isinstance(event.get("type"), str):
                out.damaged.append(number)
                continue
            if store is not None:
                if event["type"] not in READ_DATA:
                    continue
                if event["type"] == "tool.execution_complete":
                    _leave_result(data(event), store, at, line_size(raw))
                event = _lean(event)
            out.events.append((number, event))
    return out


READ_DATA: dict[str, tuple[str, ...] | None] = {
    "session.start": None,
    "user.message": ("content", "transformedContent"),
    "assistant.message": ("reasoningText", "content", "toolRequests", "model"),
    "tool.execution_complete": ("toolCallId", "result", "error", "success"),
    "session.usage_record": ("usage",),
    "session.compaction_start": (),
    "session.compaction_complete": ("outcome", "success", "summaryContent"),
}
"""The events `conversation` reads and the keys of their `data` it reads (None: all of them): a big
file's reader keeps only those (a 500 MB session is about 110,000 events held until the last line)."""


def _lean(event: dict[str, Any]) -> dict[str, Any]:
    """An event as `conversation` needs it: its type, id, time and the `data` keys it reads; a reply's
    tool calls with their arguments already as the text they are sent as."""
    keys = READ_DATA[event["type"]]
    payload = data(event)
    lean: dict[str, Any] = {key: event[key] for key in ("type", "id", "timestamp") if key in event}
    lean["data"] = payload if keys is None else {key: payload[key] for key in keys if key in payload}
    requests = lean["data"].get("toolRequests")
    if isinstance(requests, list):
        lean["data"]["toolRequests"] = [_lean_request(request) for request in requests]
    result = lean["data"].get("result")
    if isinstance(result, dict) and isinstance(result.get("content"), str | LineText):
        lean["data"]["result"] = {"content": result["content"]}  # a result that is text is read for it alone
    return lean


def _lean_request(request: Any) -> Any:
    """A tool call as `_add_reply` reads it: its id, name and arguments (as the text `_add_reply` makes)."""
    if not isinstance(request, dict):
        return request
    arguments = request.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
    lean: dict[str, Any] = {key: request[key] for key in ("toolCallId", "name") if key in request}
    lean["arguments"] = arguments
    return lean


RESULT_TEXTS = ("content", "detailedContent")
"""A result's texts a big file's reader leaves on disk: what the model got, and the UI's (often as long)."""


def _result_texts(event: dict[str, Any]) -> list[str]:
    """A `tool.execution_complete` line's result texts, in the order `_leave_result` numbers them."""
    result = data(event).get("result")
    if not isinstance(result, dict) or not isinstance(result.get("content"), str):
        return []
    return [value for key in RESULT_TEXTS if isinstance(value := result.get(key), str)]


def _leave_result(payload: dict[str, Any], store: TextStore, offset: int, size: int) -> None:
    """Swap a result's long texts for `LineText`s pointing back at their line, in place: `_add_result`
    takes the content as the result's body as it is."""
    result = payload.get("result")
    if not isinstance(result, dict) or not isinstance(result.get("content"), str):
        return
    keys = [key for key in RESULT_TEXTS if isinstance(result.get(key), str)]
    for number, key in enumerate(keys):
        result[key] = store.body(result[key], offset, size, number)


def typed_text(message: dict[str, Any]) -> str:
    """What a `user.message` sent the model, less the date line Copilot adds to every prompt."""
    sent = message.get("transformedContent")
    if not isinstance(sent, str):
        sent = message.get("content")
    return DATETIME.sub("", sent, count=1) if isinstance(sent, str) else ""


def summary_text(prompts: list[str], summary: str) -> str:
    """The user message Copilot sends in place of compacted history (its template, 1.0.102)."""
    asked = "".join(f"<user_message>\n{prompt}\n</user_message>\n" for prompt in prompts)
    return f"{SUMMARY_HEAD}{asked}\nHere is a summary of the prior context:\n<summary>\n{summary}\n</summary>"


def applied_compactions(events: Iterable[tuple[int, dict[str, Any]]]) -> list[tuple[int, str]]:
    """(position of the `compaction_start`, summary) of every compaction the client applied, from
    (position, event) in order (the other events may be left out)."""
    found: list[tuple[int, str]] = []
    started: int | None = None
    for position, event in events:
        kind = event.get("type")
        if kind == "session.compaction_start":
            started = position
        elif kind == "session.compaction_complete":
            payload = data(event)
            summary = payload.get("summaryContent")
            if (
                payload.get("outcome", "applied") == "applied"
                and payload.get("success", True)
                and isinstance(summary, str)
            ):
                found.append((position if started is None else started, summary))
            started = None
    return found


def conversation(session: SessionFile) -> Converted:
    """The messages the client sends on resume, as smig's neutral messages."""
    out = Converted()
    compactions = applied_compactions(enumerate(event for _, event in session.events))
    start = 0
    if compactions:
        cut, summary = compactions[-1]
        prompts = [
            typed_text(data(event))
            for _, event in session.events[:cut]
            if event.get("type") == "user.message" and typed_text(data(event)).strip()
        ]
        line, event = session.events[cut]
        stamp = event.get("timestamp") if isinstance(event.get("timestamp"), str) else None
        out.add(
            str(event.get("id") or f"line{line}"),
            ":summary",
            Role.USER,
            Kind.SUMMARY,
            summary_text(prompts, summary),
            line,
            stamp,
        )
        start = cut + 1
    usage: Usage | None = None
    names: dict[str, str] = {}
    """Each call's tool name by its id, for its result."""
    for line, event in session.events[start:]:
        kind, payload = event.get("type"), data(event)
        event_id = str(event.get("id") or f"line{line}")
        stamp = event.get("timestamp") if isinstance(event.get("timestamp"), str) else None
        if kind == "user.message":
            text = typed_text(payload)
            if text.strip():
                out.add(event_id, "", Role.USER, Kind.TEXT, text, line, stamp)
                out.first_prompt = out.first_prompt or text.strip()
        elif kind == "assistant.message":
            first = len(out.messages)
            _add_reply(out, payload, event_id, line, stamp, names)
            if isinstance(payload.get("model"), str) and payload["model"]:
                out.model = payload["model"]
            if usage is not None:
                out.context_tokens = usage.context_tokens
                if len(out.messages) > first:
                    opening = out.messages[first]
                    out.messages[first] = opening.placed(opening.index, usage)
                usage = None
        elif kind == "tool.execution_complete":
            _add_result(out, payload, event_id, line, stamp, names)
        elif kind == "session.usage_record":
            usage = usage_figures(payload.get("usage"))
    return out


def _add_reply(
    out: Converted, payload: dict[str, Any], event_id: str, line: int, stamp: str | None, names: dict[str, str]
) -> None:
    """A reply's reasoning and text, then each tool call it asked for."""
    reasoning = payload.get("reasoningText")
    if isinstance(reasoning, str) and reasoning.strip():
        out.add(event_id, ":reasoning", Role.ASSISTANT, Kind.REASONING, reasoning, line, stamp)
    text = payload.get("content")
    if isinstance(text, str) and text.strip():
        out.add(event_id, ":text", Role.ASSISTANT, Kind.TEXT, text, line, stamp)
    requests = payload.get("toolRequests")
    for number, request in enumerate(requests if isinstance(requests, list) else []):
        if not isinstance(request, dict):
            continue
        arguments = request.get("arguments")
        if isinstance(arguments, str):  # a call whose arguments were not JSON is sent as they came
            body = arguments
        else:
            body = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
        call_id, name = str(request.get("toolCallId") or ""), str(request.get("name") or "tool")
        names[call_id] = name
        out.add(
            event_id,
            f":call{number}",
            Role.ASSISTANT,
            Kind.TOOL_CALL,
            body,
            line,
            stamp,
            tool_name=name,
            call_id=call_id,
        )


def _add_result(
    out: Converted, payload: dict[str, Any], event_id: str, line: int, stamp: str | None, names: dict[str, str]
) -> None:
    """A call's result as the model got it (`result.content`; an error's message when it failed)."""
    call_id = str(payload.get("toolCallId") or "")
    if call_id in out.answered:
        return
    out.answered.add(call_id)
    result, error = payload.get("result"), payload.get("error")
    text: str | LineText
    if isinstance(result, dict) and isinstance(result.get("content"), str | LineText):
        text = result["content"]  # a long one a big file's reader left on disk (`_leave_result`) is the body
    elif isinstance(error, dict) and isinstance(error.get("message"), str):
        text = error["message"]
    elif isinstance(error, str):
        text = error
    else:
        text = json.dumps(result, ensure_ascii=False) if result is not None else ""
    out.add(
        event_id,
        "",
        Role.TOOL,
        Kind.TOOL_RESULT,
        text,
        line,
        stamp,
        tool_name=names.get(call_id, "tool"),
        call_id=call_id,
        is_error=payload.get("success") is False,
    )


def usage_figures(usage: Any) -> Usage | None:
    """The figures Copilot logged for one model call (`session.usage_record`)."""
    if not isinstance(usage, dict):
        return None

    def number(key: str) -> int:
        value = usage.get(key)
        return int(value) if isinstance(value, int | float) and value >= 0 else 0

    cached, written = number("cacheReadTokens"), number("cacheWriteTokens")
    prompt = number("inputTokens") + cached + written
    return usage_of(
        {"input": prompt, "output": number("outputTokens"), "cached": cached, "total": prompt + number("outputTokens")}
    )
