# smig: compiled with mypyc where it can (setup.py)
"""Provides the turn of OpenCode messages and parts into smig's neutral messages (no I/O).

OpenCode stores a conversation as messages (`info`: role, model, tokens, time) each holding parts:
`text`, `reasoning`, `tool` (the call and, in `state`, its output), `file`, and bookkeeping
(`step-start`, `step-finish` with the step's tokens, `patch`, `snapshot`, …). What OpenCode sends
its model on resume, and so what this returns:

- history starts at the last finished compaction: the user message holding a `compaction` part
  (sent as "What did we do so far?") whose summary (an assistant message with `summary: true`)
  finished; that summary is a SUMMARY. The question, and the synthetic "Continue if you have next
  steps…" prompt OpenCode adds after an automatic compaction (a text part marked
  `compaction_continue`), are user turns of the conversation: the model is sent both, item for
  item (checked against a session the real client compacted, tests/fixtures/real/opencode);
- a session reverted to a message ends before it;
- `ignored` text parts are not sent; `synthetic` ones are context OpenCode added (injected);
- a finished tool's output is sent as it is, a cleared one (`time.compacted`) as a fixed note, an
  unfinished one as an error note;
- each `step-finish` is one model call: its tokens become the usage of the last message it produced.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from smig_tui.core.models import Kind, Message, Role, StoredText, Usage
from smig_tui.core.timeline import format_iso

CLEARED_OUTPUT = "[Old tool result content cleared]"
"""What OpenCode sends in place of a tool output it pruned."""
INTERRUPTED = "[Tool execution was interrupted]"
"""What OpenCode sends for a tool call that never finished."""
Pack = Callable[[str], "str | StoredText"]
"""Makes a message's body of its text: `str` keeps the text itself, a big session's reader packs it."""
COMPACTION_PROMPT = "What did we do so far?"
"""What OpenCode 1.18.33 sends for the `compaction` part that asked for a summary (before the summary)."""


@dataclass(frozen=True, slots=True)
class MessageFacts:
    """What the conversion reads of one OpenCode message's `info` (its `data` JSON).

    A reader holds every message's facts until the last one is converted (what is sent depends on the
    last compaction and a revert): as parsed JSON, 85,000 messages of a 500 MB session took 155 MB."""

    id: str
    role: str | None
    created: Any
    """`time.created` as stored (milliseconds)."""
    model: str | None
    """`modelID`, when it is a string."""
    summary: bool
    """`summary: true`: an assistant message that is a compaction's summary."""
    finished: bool
    """`finish` set and no `error`."""
    parent: str | None
    """`parentID`, kept for a summary only (the user message that asked for it)."""
    usage: Usage | None


def facts_of(info: dict[str, Any], message_id: str) -> MessageFacts:
    """The facts of a message's parsed `info`; the strings many messages repeat are interned."""
    role, model = info.get("role"), info.get("modelID")
    summary = info.get("summary") is True
    parent = info.get("parentID") if summary else None
    return MessageFacts(
        message_id,
        sys.intern(role) if isinstance(role, str) else None,
        as_dict(info.get("time")).get("created"),
        sys.intern(model) if isinstance(model, str) else None,
        summary,
        bool(info.get("finish")) and not info.get("error"),
        parent if isinstance(parent, str) else None,
        usage_of(info.get("tokens")),
    )


@dataclass(frozen=True, slots=True)
class Row:
    """One OpenCode message with its parts, as stored (each part's `data` JSON with `id` filled in)."""

    info: MessageFacts
    parts: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Conversation:
    """The model-visible history of a session and what its records say about it."""

    messages: tuple[Message, ...]
    compactions: int
    last_usage: Usage | None
    model: str | None


def iso_ms(value: object) -> str | None:
    """ISO 8601 UTC of a millisecond timestamp (None when absent)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    return format_iso(datetime.fromtimestamp(value / 1000, UTC))


def usage_of(tokens: object) -> Usage | None:
    """The usage of one model call from OpenCode's `tokens` object (input excludes cached tokens)."""
    if not isinstance(tokens, dict):
        return None
    cache = as_dict(tokens.get("cache"))
    fresh, read, written = _int(tokens.get("input")), _int(cache.get("read")), _int(cache.get("write"))
    output = _int(tokens.get("output"))
    if not (fresh or read or written or output):
        return None
    return Usage(
        input_tokens=fresh,
        cached_input_tokens=read,
        cache_creation_tokens=written,
        output_tokens=output,
        reasoning_tokens=_int(tokens.get("reasoning")),
        context_tokens=fresh + read + written,
    )


def active_rows(rows: Sequence[Row], revert: dict[str, Any] | None) -> tuple[list[Row], int]:
    """The rows OpenCode sends on resume (after the last finished compaction, before a revert) and
    how many compactions finished."""
    kept = list(rows)
    if revert and isinstance(revert.get("messageID"), str):
        cut = next((i for i, row in enumerate(kept) if row.info.id == revert["messageID"]), None)
        if cut is not None:
            kept = kept[:cut]
    summaries = [row for row in kept if row.info.role == "assistant" and row.info.summary and row.info.finished]
    if not summaries:
        return kept, 0
    anchor = summaries[-1].info.parent
    start = next((i for i, row in enumerate(kept) if row.info.id == anchor), None)
    return (kept[start:] if start is not None else kept), len(summaries)


def to_conversation(rows: Sequence[Row], revert: dict[str, Any] | None = None) -> Conversation:
    """The neutral messages of a session's rows, in order."""
    kept, compactions = active_rows(rows, revert)
    return converted(kept, compactions)


def converted(kept: Iterable[Row], compactions: int, pack: Pack = str) -> Conversation:
    """The neutral messages of the rows `active_rows` kept, taken one at a time (a reader may make
    each row's parts as it is reached, so a big session's parts are never all held). Each text is
    the message's body as `pack` gives it (a big session's reader packs them, in message order, so
    they are never all held as strings)."""
    out: list[Message] = []
    last_usage: Usage | None = None
    model: str | None = None
    for row in kept:
        info = row.info
        stamp = iso_ms(info.created)
        if info.role == "user":
            for part in row.parts:
                message = _user_part(part, len(out), stamp, pack)
                if message is not None:
                    out.append(message)
            continue
        if info.role != "assistant":
            continue
        model = info.model if info.model is not None else model
        summary = info.summary
        first = step_start = len(out)
        logged = False
        for part in row.parts:
            kind = part.get("type")
            if kind == "step-start":
                step_start = len(out)
            elif kind == "step-finish":
                usage = usage_of(part.get("tokens"))
                made = [i for i in range(step_start, len(out)) if out[i].role is Role.ASSISTANT]
                if usage is not None and made:
                    out[made[-1]] = out[made[-1]].placed(made[-1], usage)
                    last_usage, logged = usage, True
                step_start = len(out)
            else:
                out.extend(_assistant_part(part, len(out), stamp, summary, pack))
        usage = info.usage
        made = [i for i in range(first, len(out)) if out[i].role is Role.ASSISTANT]
        if not logged and usage is not None and made:
            out[made[-1]] = out[made[-1]].placed(made[-1], usage)
            last_usage = usage
    return Conversation(tuple(out), compactions, last_usage, model)


def _user_part(part: dict[str, Any], index: int, stamp: str | None, pack: Pack = str) -> Message | None:
    """A user message's part as a message (None for parts the model is not sent)."""
    pid = str(part.get("id") or f"P{index}")
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str) and not part.get("ignored"):
        context = bool(part.get("synthetic")) and not as_dict(part.get("metadata")).get("compaction_continue")
        return Message(index, pid, Role.USER, Kind.TEXT, pack(part["text"]), timestamp=stamp, injected=context)
    if kind == "compaction":
        return Message(index, pid, Role.USER, Kind.TEXT, COMPACTION_PROMPT, timestamp=stamp)
    if kind == "file":
        name = part.get("filename") or part.get("url") or "file"
        mime = str(part.get("mime") or "")
        if mime.startswith("image/"):
            return Message(index, pid, Role.USER, Kind.IMAGE, f"[image: {name}]", timestamp=stamp)
    return None


def _assistant_part(
    part: dict[str, Any], index: int, stamp: str | None, summary: bool, pack: Pack = str
) -> list[Message]:
    """An assistant message's part as messages: a tool part gives its call and its result."""
    pid = str(part.get("id") or f"P{index}")
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str) and not part.get("ignored"):
        return [
            Message(
                index,
                pid,
                Role.ASSISTANT,
                Kind.SUMMARY if summary else Kind.TEXT,
                pack(part["text"]),
                timestamp=stamp,
                injected=bool(part.get("synthetic")),
            )
        ]
    if kind == "reasoning" and isinstance(part.get("text"), str):
        text = part["text"]
        return [
            Message(
                index,
                pid,
                Role.ASSISTANT,
                Kind.REASONING,
                pack(text),
                timestamp=stamp,
                opaque=not text and bool(part.get("metadata")),
            )
        ]
    if kind != "tool":
        return []
    state = as_dict(part.get("state"))
    name = sys.intern(str(part.get("tool") or "tool"))  # a few names, each on thousands of messages
    call_id = str(part.get("callID") or pid)
    arguments = json.dumps(state.get("input") or {}, ensure_ascii=False)
    call = Message(
        index, pid, Role.ASSISTANT, Kind.TOOL_CALL, pack(arguments), tool_name=name, call_id=call_id, timestamp=stamp
    )
    status = state.get("status")
    if status == "completed":
        cleared = as_dict(state.get("time")).get("compacted")
        output, error = CLEARED_OUTPUT if cleared else str(state.get("output") or ""), False
    elif status == "error":
        output, error = str(state.get("error") or "error"), True
    else:
        output, error = INTERRUPTED, True
    result = Message(
        index + 1,
        f"{pid}#result",
        Role.TOOL,
        Kind.TOOL_RESULT,
        pack(output),
        tool_name=name,
        call_id=call_id,
        timestamp=stamp,
        is_error=error,
    )
    return [call, result]


def as_dict(value: object) -> dict[str, Any]:
    """A JSON object, or an empty one for anything else (records from other versions vary)."""
    return value if isinstance(value, dict) else {}


def _int(value: object) -> int:
    """A whole number of tokens (0 when absent or not a number)."""
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else 0
