# smig: compiled with mypyc where it can (setup.py)
"""Provides the turn of Crush's message rows into smig's messages, as Crush sends them to its model (no I/O).

A Crush message row holds a role (`user`, `assistant`, `tool`, `system`) and `parts`, a JSON list of
`{"type", "data"}` (docs/formats/crush.md). What Crush sends on the next turn (its `agent.go`):

- from the session's summary message on, when it has one (`sessions.summary_message_id`): that
  assistant message is sent as a user message, so it is a user SUMMARY here;
- a user message: its first text part (trimmed), text attachments appended, then the output of `!`
  shell commands the user ran; an image attachment as an image;
- an assistant message: its text, its reasoning, then its tool calls; one with none of them (a turn
  cancelled before any reply) is not sent;
- a tool message: each result whose call is in the history (the others are dropped); an error
  result is sent as such, a media result as the media;
- a call with no result anywhere gets one saying it was interrupted, right after its message;
- `system` messages, and parts Crush does not send (`finish`, `image_url`), give nothing.

A message whose parts do not parse is skipped with a warning (Crush itself refuses to load the
whole session then); the rest is read.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from smig_tui.adapters.json_parse import parse
from smig_tui.core.models import Kind, Message, Role, StoredText, new_message
from smig_tui.core.timeline import format_iso

if TYPE_CHECKING:
    from smig_tui.adapters.stored_text import TextPacker

INTERRUPTED = (
    "tool call was interrupted and did not produce a result, you may retry this call if the result is still needed"
)
"""What Crush sends as the result of a call that has none (`syntheticToolResultsForOrphanedCalls`)."""
MEDIA_FAILED = "[Image data could not be loaded]"
"""What Crush sends for a media tool result whose data is not base64."""
ATTACHED = (
    "\n<system_info>The files below have been attached by the user, consider them in your response</system_info>\n"
)
"""What Crush puts between a prompt and the text files attached to it."""
PART_TYPES = frozenset(
    ("reasoning", "text", "image_url", "binary", "tool_call", "tool_result", "finish", "shell_command")
)
"""Every part type Crush 0.9x writes; another makes Crush refuse the message."""


@dataclass(frozen=True, slots=True)
class Row:
    """One row of Crush's `messages` table."""

    id: str
    role: str
    parts: str
    model: str | None = None
    created_at: int | None = None
    is_summary: bool = False


@dataclass
class Converted:
    """The messages Crush would send, and what the rows say besides."""

    messages: list[Message] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)
    """Ids of rows whose parts do not parse (skipped)."""
    compactions: int = 0
    """Summaries written in the session up to the one in use."""
    model: str | None = None
    """The model of the last assistant message."""


def iso_seconds(value: object) -> str | None:
    """ISO 8601 UTC of Crush's timestamps: Unix seconds (milliseconds, as its schema's comments say,
    are taken too)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    seconds = value / 1000 if value > 100_000_000_000 else value
    try:
        return format_iso(datetime.fromtimestamp(seconds, UTC))
    except (OverflowError, OSError, ValueError):
        return None


def parse_parts(text: object) -> list[tuple[str, dict[str, Any]]] | None:
    """A row's parts as (type, data), or None when they do not parse as Crush would read them."""
    try:
        parsed = parse(text) if isinstance(text, str | bytes) else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(parsed, list):
        return None
    parts = []
    for part in parsed:
        if not isinstance(part, dict) or part.get("type") not in PART_TYPES:
            return None
        data = part.get("data")
        parts.append((str(part["type"]), data if isinstance(data, dict) else {}))
    return parts


def to_conversation(rows: Iterable[Row], summary_id: str | None, packer: TextPacker | None = None) -> Converted:
    """The messages Crush sends for these rows (in its order), starting at the summary in use; with
    `packer`, long tool results are packed.

    Each row is converted as it is read and let go: parsed all before the first was converted (whether
    a call is answered, or a result's call made, is known only at the end), a 500 MB session's parts
    were held at once and left the heap fragmented (313 MB after the load). The few messages those
    facts decide are settled at the end (`_Pending`): what it gives is what converting the rows after
    all were read gave."""
    out = Converted()
    pending = _Pending()
    summaries, started = 0, False
    for row in rows:
        parts = parse_parts(row.parts)
        if parts is None:
            out.damaged.append(row.id)
            continue
        summaries += row.is_summary
        stamp = iso_seconds(row.created_at) if parts else None
        if not started and summary_id and row.id == summary_id:
            started = True  # what came before the summary in use is not sent
            out.compactions, out.messages, out.model, pending = summaries, [], None, _Pending()
            pending.note(row, parts)
            if parts:
                _add_summary(out, row, parts, stamp)
            continue
        pending.note(row, parts)
        if not parts:
            continue
        if row.role == "user":
            _add_user(out, row, parts, stamp)
        elif row.role == "assistant":
            pending.calls_made(row, _add_assistant(out, row, parts, stamp), stamp, len(out.messages))
        elif row.role == "tool":
            _add_results(out, row, parts, stamp, pending, packer)
    out.messages = pending.settled(out.messages)
    return out


class _Pending:
    """What only the last row can decide: the calls no result has answered yet (each gets an interrupted
    result after its message's calls), and the results whose call has not been made yet (sent when
    it is made later)."""

    def __init__(self) -> None:
        self.calls: set[str] = set()
        self.results: set[str] = set()
        self.unanswered: dict[str, list[tuple[int, int, Message]]] = {}
        """Per call id, each of its calls' interrupted result, where it goes (place, order)."""
        self.early: list[tuple[str, int, int, Message]] = []
        """Results read before their call: its id, where it goes, and the message."""
        self._order = 0

    def note(self, row: Row, parts: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """The calls a row makes and the results it gives (whatever is sent of it)."""
        if row.role == "assistant":
            self.calls.update(_text(data.get("id")) for _, data in _of(parts, "tool_call"))
        elif row.role == "tool":
            for _, data in _of(parts, "tool_result"):
                call_id = _text(data.get("tool_call_id"))
                self.results.add(call_id)
                self.unanswered.pop(call_id, None)

    def calls_made(self, row: Row, calls: Sequence[dict[str, Any]], stamp: str | None, place: int) -> None:
        """An assistant message's calls, sent up to `place`: those not answered yet may need their result."""
        for data in calls:
            call_id = _text(data.get("id"))
            if call_id not in self.results:
                message = new_message(
                    0,
                    f"{row.id}:{call_id}#interrupted",
                    Role.TOOL,
                    Kind.TOOL_RESULT,
                    INTERRUPTED,
                    _tool_name(data),
                    call_id,
                    stamp,
                    is_error=True,
                    injected=True,
                )
                self.unanswered.setdefault(call_id, []).append((place, self._next(), message))

    def result_early(self, call_id: str, place: int, message: Message) -> None:
        """A result read before any call of its id: sent where it is if the call comes later."""
        self.early.append((call_id, place, self._next(), message))

    def settled(self, messages: list[Message]) -> list[Message]:
        """`messages` with the interrupted results and the early results that belong in them, numbered."""
        inserted = [(place, order, message) for found in self.unanswered.values() for place, order, message in found]
        inserted += [(place, order, message) for call_id, place, order, message in self.early if call_id in self.calls]
        if not inserted:
            return messages
        inserted.sort(key=lambda item: (item[0], item[1]))
        merged: list[Message] = []
        at = 0
        for place, _, message in inserted:
            merged += messages[at:place]
            merged.append(message)
            at = place
        merged += messages[at:]
        return [message.placed(index, message.usage) for index, message in enumerate(merged)]

    def _next(self) -> int:
        self._order += 1
        return self._order


@dataclass(frozen=True, slots=True)
class Listed:
    """What a listing shows of a session's conversation: `to_conversation`'s figures, without its messages."""

    message_count: int
    spoken: bool
    """Whether any message is not one smig added (an interrupted call's result)."""
    first_user: str | None
    """The text of the first user message."""
    model: str | None
    damaged: list[str]


def listed(rows: Sequence[Row], summary_id: str | None) -> Listed:
    """`to_conversation`'s count, first user text and model, read without building the assistant's and
    tools' messages (most of a session): a first listing reads every session whole. The user's and the
    summary's messages are built as `to_conversation` builds them (they are few, and give the title)."""
    out = Converted()
    parsed, start, calls, results = _prepared(rows, summary_id, out)
    count = injected = 0
    first_user: str | None = None
    for position, (row, parts) in enumerate(parsed):
        if not parts:
            continue
        if (position == 0 and start is not None) or row.role == "user":
            built = Converted(model=out.model)
            if position == 0 and start is not None:
                _add_summary(built, row, parts, None)
            else:
                _add_user(built, row, parts, None)
            out.model = built.model
            count += len(built.messages)
            if first_user is None and built.messages:
                first_user = built.messages[0].text
        elif row.role == "assistant":
            text = _text(_first(parts, "text").get("text")).strip()
            thinking = _text(_first(parts, "reasoning").get("thinking"))
            ids = [_text(data.get("id")) for _, data in _of(parts, "tool_call")]
            if not (text or thinking or ids):
                continue
            out.model = row.model or out.model
            unanswered = sum(1 for call_id in ids if call_id not in results)
            count += bool(text) + bool(thinking) + len(ids) + unanswered
            injected += unanswered
        elif row.role == "tool":
            count += sum(1 for _, data in _of(parts, "tool_result") if _text(data.get("tool_call_id")) in calls)
    return Listed(count, count > injected, first_user, out.model, out.damaged)


def _prepared(
    rows: Iterable[Row], summary_id: str | None, out: Converted
) -> tuple[list[tuple[Row, list[tuple[str, dict[str, Any]]]]], int | None, set[str], set[str]]:
    """The rows that parse from the summary in use on (damaged ones and compactions noted in `out`), where
    the summary is among them, and the ids of the calls made and the results given (a listing's count;
    `to_conversation` works these out as it goes)."""
    parsed: list[tuple[Row, list[tuple[str, dict[str, Any]]]]] = []
    for row in rows:
        parts = parse_parts(row.parts)
        if parts is None:
            out.damaged.append(row.id)
        else:
            parsed.append((row, parts))
    start = next((i for i, (row, _) in enumerate(parsed) if summary_id and row.id == summary_id), None)
    if start is not None:
        out.compactions = sum(1 for row, _ in parsed[: start + 1] if row.is_summary)
        parsed = parsed[start:]
    calls = {
        _text(data.get("id"))
        for row, parts in parsed
        if row.role == "assistant"
        for kind, data in _of(parts, "tool_call")
    }
    results = {
        _text(data.get("tool_call_id"))
        for row, parts in parsed
        if row.role == "tool"
        for kind, data in _of(parts, "tool_result")
    }
    return parsed, start, calls, results


def _of(parts: Iterable[tuple[str, dict[str, Any]]], kind: str) -> list[tuple[str, dict[str, Any]]]:
    return [part for part in parts if part[0] == kind]


def _first(parts: Sequence[tuple[str, dict[str, Any]]], kind: str) -> dict[str, Any]:
    return next((data for part_kind, data in parts if part_kind == kind), {})


def _add(
    out: Converted, message_id: str, role: Role, kind: Kind, text: str | StoredText, stamp: str | None, **more: Any
) -> None:
    out.messages.append(Message(len(out.messages), message_id, role, kind, text, timestamp=stamp, **more))


def _add_summary(out: Converted, row: Row, parts: Sequence[tuple[str, dict[str, Any]]], stamp: str | None) -> None:
    """The summary in use, which Crush sends as the user's (its text, as a user message's is read)."""
    text = _text(_first(parts, "text").get("text")).strip()
    if text:
        _add(out, row.id, Role.USER, Kind.SUMMARY, text, stamp)
    out.model = row.model or out.model


def _add_user(out: Converted, row: Row, parts: Sequence[tuple[str, dict[str, Any]]], stamp: str | None) -> None:
    text = _text(_first(parts, "text").get("text")).strip()
    binaries = [data for _, data in _of(parts, "binary")]
    attached = [data for data in binaries if _text(data.get("MIMEType")).startswith("text/")]
    if attached:
        text += ATTACHED
        for data in attached:
            path = _text(data.get("Path"))
            text += f"<file path='{path}'>\n" if path else "<file>\n"
            text += "\n" + _decoded(data.get("Data")) + "\n</file>\n"
    for _, data in _of(parts, "shell_command"):
        shell = (
            f"$ {_text(data.get('command'))}\n{_text(data.get('output'))}\n(exit code {_number(data.get('exit_code'))})"
        )
        text = f"{text}\n\n{shell}" if text else shell
    if text:
        _add(out, row.id, Role.USER, Kind.TEXT, text, stamp)
    for number, data in enumerate(binaries):
        mime = _text(data.get("MIMEType"))
        if not mime.startswith("text/"):
            name = _text(data.get("Path")) or mime or "file"
            kind = Kind.IMAGE if mime.startswith("image/") else Kind.TEXT
            _add(
                out,
                f"{row.id}:file{number}",
                Role.USER,
                kind,
                f"[{'image' if kind is Kind.IMAGE else 'file'}: {name}]",
                stamp,
            )


def _add_assistant(
    out: Converted, row: Row, parts: Sequence[tuple[str, dict[str, Any]]], stamp: str | None
) -> list[dict[str, Any]]:
    """An assistant message's text, reasoning and calls; returns the calls (an unanswered one's
    interrupted result is `_Pending`'s to add)."""
    text = _text(_first(parts, "text").get("text")).strip()
    thinking = _text(_first(parts, "reasoning").get("thinking"))
    calls = [data for _, data in _of(parts, "tool_call")]
    if not (text or thinking or calls):
        return []  # cancelled before it replied: Crush does not send it
    out.model = row.model or out.model
    if text:
        _add(out, row.id, Role.ASSISTANT, Kind.TEXT, text, stamp)
    if thinking:
        _add(out, f"{row.id}:reasoning", Role.ASSISTANT, Kind.REASONING, thinking, stamp)
    for data in calls:
        call_id = _text(data.get("id"))
        _add(
            out,
            f"{row.id}:{call_id}",
            Role.ASSISTANT,
            Kind.TOOL_CALL,
            _text(data.get("input")) or "{}",
            stamp,
            tool_name=_tool_name(data),
            call_id=call_id,
        )
    return calls


def _add_results(
    out: Converted,
    row: Row,
    parts: Sequence[tuple[str, dict[str, Any]]],
    stamp: str | None,
    pending: _Pending,
    packer: TextPacker | None,
) -> None:
    """A tool message's results whose call is in the history (Crush drops the others); one read before
    its call is left to `pending`."""
    for _, data in _of(parts, "tool_result"):
        call_id = _text(data.get("tool_call_id"))
        error = data.get("is_error") is True
        content = data.get("content")
        text: str | StoredText
        if not error and _text(data.get("data")):
            media = _text(data.get("mime_type")) or "media"
            text = f"[{media}]" if _base64(_text(data.get("data"))) is not None else MEDIA_FAILED
        elif packer is not None and isinstance(content, str):
            from smig_tui.adapters import stored_text  # a big session only: a listing needs none

            text = stored_text.PackedText.of(content, packer) if len(content) > stored_text.TEXT_CHARS else content
        else:
            text = _text(content)
        message = new_message(
            len(out.messages),
            f"{row.id}:{call_id}",
            Role.TOOL,
            Kind.TOOL_RESULT,
            text,
            _tool_name(data),
            call_id,
            stamp,
            is_error=error,
        )
        if call_id in pending.calls:
            out.messages.append(message)
        else:
            pending.result_early(call_id, len(out.messages), message)


def _tool_name(data: dict[str, Any]) -> str:
    """A call's or result's tool name, interned (a session names a few tools thousands of times)."""
    return sys.intern(_text(data.get("name")) or "tool")


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _number(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _decoded(value: object) -> str:
    """An attachment's bytes (base64 in the JSON, as Go writes a byte slice) as text."""
    raw = _base64(_text(value))
    return raw.decode("utf-8", "replace") if raw is not None else ""


def _base64(value: str) -> bytes | None:
    """`value` decoded from base64, or None when it is not base64."""
    import base64
    import binascii

    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None
