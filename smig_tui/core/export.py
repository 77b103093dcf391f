"""Provides the Markdown handoff document and the JSON exports of a migrated conversation (pure)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import StrEnum
from itertools import groupby
from operator import itemgetter
from typing import Any

from smig_tui.core.handoff import TURN_SEPARATOR, flat_pieces, goal_of, iter_turns
from smig_tui.core.json_text import LONG_TEXT_CHARS, MESSAGE_BATCH, STRING_PIECE, FlatRows, JoinedText
from smig_tui.core.migration import message_to_json
from smig_tui.core.models import Kind, Message, Plan, Role, Session
from smig_tui.core.words import one_line

LEAD_IDS = frozenset({"smig-placeholder", "smig-summary"})
"""Ids the planner gives the note or summary that stands in for dropped messages."""


class ExportFormat(StrEnum):
    """What `smig export --format` produces."""

    MARKDOWN = "markdown"
    JSON = "json"
    """The full record: source, decision, plan outcome and every migrated message."""
    OPENAI = "openai"
    """OpenAI chat messages, `[{"role", "content"}]`, tools flattened to text."""
    MEMORY = "memory"
    """A memory note (goal, files, commands, last state) with Claude memory-topic frontmatter."""


def _fence(text: str) -> str:
    """A backtick fence longer than any run inside `text`, so code blocks never break."""
    if "```" not in text:  # most texts: no run of three, so three is enough (and no regex pass)
        return "```"
    longest = max((found.end() - found.start() for found in _BACKTICKS.finditer(text)), default=0)
    return "`" * max(3, longest + 1)


_BACKTICKS = re.compile(r"`+")


def _facts(session: Session, plan: Plan | None) -> list[tuple[str, str]]:
    """The header table of the handoff document."""
    info = session.info
    facts = [
        ("Source session", f"`{info.id}`"),
        ("Agent", info.agent.value),
        ("Model", info.model or "unknown"),
        ("Working directory", f"`{info.cwd}`" if info.cwd else "unknown"),
        ("Source file", f"`{info.path}`"),
    ]
    if plan is not None:
        decision = plan.decision
        verdict = "fits as-is" if decision.fits else f"must compress (over by {decision.over_by:,} tokens)"
        facts += [
            ("Target", f"{decision.target} ({decision.window:,}-token window, {decision.reserve:,} reserved)"),
            ("Decision", verdict),
            ("Strategy", plan.strategy.value),
            ("Messages kept", f"{len(plan.kept)} of {len(plan.items)}"),
            ("Tokens", f"{plan.tokens_before:,} before → {plan.tokens_after:,} after"),
        ]
    return facts


_ROLE_NAMES = {role: role.value.capitalize() for role in Role}


def _heading(position: int, message: Message) -> str:
    """`### 3. Assistant · tool call shell · 2026-…` for one message."""
    heading = f"### {position}. {_ROLE_NAMES[message.role]}"
    kind = message.kind
    if kind is Kind.TOOL_CALL:
        heading += f" · tool call `{message.tool_name or 'tool'}`"
    elif kind is Kind.TOOL_RESULT:
        heading += " · tool result (error)" if message.is_error else " · tool result"
    elif kind is not Kind.TEXT:
        heading += f" · {kind.value}"
    return f"{heading} · {message.timestamp}" if message.timestamp else heading


def _body(message: Message, text: str) -> str:
    """A message's text: prose as it is, tool traffic fenced."""
    if message.kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT):
        fence = _fence(text)
        if message.full_output_path:
            return f"{fence}\n{text}\n{fence}{_full_output(message)}"
        return f"{fence}\n{text}\n{fence}"
    return text.strip() or "_(empty)_"


def _long_body(message: Message, text: str) -> Iterator[str]:
    """`_body` of a huge text, in slices of `STRING_PIECE` characters: neither framed nor stripped as
    one string, each a copy of it."""
    if message.kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT):
        fence = _fence(text)
        yield f"{fence}\n"
        yield from _slices(text, 0, len(text))
        yield f"\n{fence}{_full_output(message) if message.full_output_path else ''}"
        return
    first = _NOT_SPACE.search(text)
    if first is None:
        yield "_(empty)_"
        return
    end = len(text)
    while text[end - 1].isspace():
        end -= 1
    yield from _slices(text, first.start(), end)


def _full_output(message: Message) -> str:
    """Said after a tool result whose whole output the agent kept in a file of its own."""
    return f"\n\n_Full output: `{message.full_output_path}` (the model saw the preview above)._"


_NOT_SPACE = re.compile(r"\S")
"""Where `str.strip` stops: `re`'s `\\s` and `str.isspace` are the same Unicode test (a test checks)."""


def _slices(text: str, start: int, end: int) -> Iterator[str]:
    """`text[start:end]`, a `STRING_PIECE` of characters at a time."""
    for at in range(start, end, STRING_PIECE):
        yield text[at : min(at + STRING_PIECE, end)]


def to_markdown(session: Session, messages: Iterable[Message], plan: Plan | None = None) -> str:
    """The handoff document a person (or another agent) reads to pick the work up."""
    return "".join(markdown_chunks(session, tuple(messages), plan))


BATCH_MESSAGES = 512
"""Messages rendered per piece: enough to batch reading and redaction, few enough to keep memory low."""


def markdown_chunks(
    session: Session,
    messages: Sequence[Message],
    plan: Plan | None = None,
    prepare: Callable[[Iterable[Sequence[Message]]], Iterable[Sequence[Message]]] = lambda batches: batches,
) -> Iterator[str]:
    """The handoff document in pieces, one per batch of messages, so a whole session streams to its file.

    `prepare` turns the stream of batches into the batches rendered (the caller reads each batch's
    texts back and redacts them, possibly a few batches ahead), so no second copy of the
    conversation is ever built.
    """
    title = session.info.title or goal_of(session.messages) or session.info.id
    lines = [f"# Handoff: {one_line(title, 100)}", "", "| | |", "|---|---|"]
    lines += [f"| {key} | {value} |" for key, value in _facts(session, plan)]
    goal = goal_of(message for message in session.messages)
    if goal:
        lines += ["", "## Goal", "", *[f"> {line}" if line else ">" for line in goal.splitlines()]]
    lead = [message for message in messages if message.id in LEAD_IDS]
    if lead:
        lead = [message for batch in prepare([lead]) for message in batch]
    if lead:
        heading = "Summary of earlier conversation" if plan and plan.summary else "What was left out"
        lines += ["", f"## {heading}", "", *(message.text.strip() for message in lead)]
    lines += ["", "## Conversation"]
    yield "\n".join(lines)
    batches = (
        [m for m in messages[start : start + BATCH_MESSAGES] if m.id not in LEAD_IDS and not m.opaque]
        for start in range(0, len(messages), BATCH_MESSAGES)
    )
    position = 0
    for batch in prepare(batches):
        pieces = []
        for message in batch:
            position += 1
            text = message.text
            if len(text) < LONG_TEXT_CHARS:
                pieces.append(f"\n\n{_heading(position, message)}\n\n{_body(message, text)}")
                continue
            yield "".join(pieces)  # a huge text goes out in slices, not joined into the batch's text
            yield f"\n\n{_heading(position, message)}\n\n"
            yield from _long_body(message, text)
            pieces = []
        yield "".join(pieces)
    yield "\n"


def to_openai(messages: Iterable[Message]) -> list[dict[str, str]]:
    """OpenAI chat messages: strictly alternating user/assistant, tools flattened to text."""
    return list(openai_messages(messages))


def openai_messages(messages: Iterable[Message]) -> Iterator[dict[str, str]]:
    """`to_openai`'s messages one by one, as each turn ends."""
    return ({"role": turn.role.value, "content": turn.text} for turn in iter_turns(messages))


def streamed_openai_messages(messages: Iterable[Message]) -> Iterator[dict[str, Any]]:
    """`openai_messages` for `indented_json`, each turn's content a `JoinedText` of its messages' texts read
    as it is written: a turn may be a whole session (an agent's run of calls and results after one prompt
    is one assistant turn), so none is ever held whole. Each turn must be written before the next is asked for."""
    flat = (pair for pair in map(flat_pieces, messages) if pair is not None)
    for role, turn in groupby(flat, key=itemgetter(0)):  # `iter_turns`' turns: a run of one role
        yield {"role": role.value, "content": JoinedText(TURN_SEPARATOR, (pieces for _, pieces in turn))}


def to_record(
    session: Session, messages: Iterable[Message], plan: Plan | None = None, lazy: bool = False
) -> dict[str, Any]:
    """The full JSON export: where the conversation came from, what the plan did, every message
    (with `lazy`, made a batch at a time as `indented_json` writes them, each batch encoded by orjson:
    `FlatRows`, where a `LazyList` encoded each message's fields one by one in Python)."""
    info = session.info
    record: dict[str, Any] = {
        "source": {
            "agent": info.agent.value,
            "id": info.id,
            "path": info.path,
            "cwd": info.cwd,
            "model": info.model,
            "title": info.title,
        },
        "goal": goal_of(session.messages),
        "messages": FlatRows(map(message_to_json, messages), MESSAGE_BATCH, "text")
        if lazy
        else [message_to_json(message) for message in messages],
    }
    if plan is not None:
        record["plan"] = {
            "target": plan.decision.target,
            "window": plan.decision.window,
            "reserve": plan.decision.reserve,
            "fits": plan.decision.fits,
            "strategy": plan.strategy.value,
            "tokens_before": plan.tokens_before,
            "tokens_after": plan.tokens_after,
            "kept": len(plan.kept),
            "dropped": len(plan.dropped),
            "placeholder": plan.placeholder,
            "summary": plan.summary,
        }
    return record
