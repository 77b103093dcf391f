"""Provides the flattening of a migrated conversation into turns any agent's API accepts.

A native session written for another agent must never hold a tool call the target cannot pair with
its result, reasoning it cannot verify, or harness context meant for the source agent. So tool calls
and results become tagged assistant text, reasoning and injected context are left out, and runs of
the same role are merged, which gives strictly alternating user/assistant turns.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace

from smig_tui.core.json_text import LONG_TEXT_CHARS
from smig_tui.core.models import Kind, Message, Plan, Role, Session
from smig_tui.core.native import Lineage, Turn
from smig_tui.core.redact import redact, redact_many
from smig_tui.core.words import one_line

TOOL_CALL_OPEN = "[tool call: {name}]"
TOOL_CALL_CLOSE = "[/tool call]"
TOOL_RESULT_OPEN = "[tool result{error}]"
TOOL_RESULT_CLOSE = "[/tool result]"
NOTE_PREFIX = "[smig: this conversation was migrated"
"""Start of the lineage note; readers and loop guards can recognise a migrated session by it."""
TITLE_PREFIX = "↪ from {agent}: "
"""Start of a migrated session's title, so pickers and smig's own list tell it from the original."""


def is_migrated_title(title: str | None) -> bool:
    """Whether a session's title says smig wrote it (a migration, not an original)."""
    return bool(title) and str(title).startswith(TITLE_PREFIX.split("{", 1)[0])


def flatten(message: Message) -> tuple[Role, str] | None:
    """Return the role and text a message takes in a native session, or None to leave it out."""
    found = flat_pieces(message)
    if found is None:
        return None
    role, pieces = found
    return role, pieces[0] if len(pieces) == 1 else "".join(pieces)


def flat_pieces(message: Message) -> tuple[Role, tuple[str, ...]] | None:
    """`flatten`'s role and text, the text as the pieces it is joined from (one, unless a tool's text is
    huge): the OpenAI export writes them one after another, so a huge output is never copied into its frame."""
    if message.injected or message.opaque or message.kind is Kind.REASONING:
        return None
    if message.role in (Role.SYSTEM, Role.DEVELOPER) and message.kind is not Kind.SUMMARY:
        return None
    if message.kind is Kind.SUMMARY:
        return Role.USER, (message.text,)
    if message.kind is Kind.TOOL_CALL:
        name = message.tool_name or "tool"
        return Role.ASSISTANT, _framed(TOOL_CALL_OPEN.format(name=name), message.text, TOOL_CALL_CLOSE)
    if message.kind is Kind.TOOL_RESULT:
        error = ": error" if message.is_error else ""
        return Role.ASSISTANT, _framed(TOOL_RESULT_OPEN.format(error=error), message.text, TOOL_RESULT_CLOSE)
    text = message.text if message.kind is not Kind.IMAGE else f"[image omitted] {message.text}".strip()
    if not text or text.isspace():  # (not `strip`, which copies a huge text)
        return None
    role = Role.USER if message.role is Role.USER else Role.ASSISTANT
    return role, (text,)


def _framed(opening: str, text: str, closing: str) -> tuple[str, ...]:
    """A tool call's or result's text between its markers: one string, or three for a huge text."""
    if len(text) < LONG_TEXT_CHARS:
        return (f"{opening}\n{text}\n{closing}",)
    return f"{opening}\n", text, f"\n{closing}"


def to_turns(messages: Iterable[Message], note: str | None = None) -> tuple[Turn, ...]:
    """Merge migrated messages into alternating turns, the lineage note leading the first user turn."""
    turns = list(iter_turns(messages))
    if note:
        if turns and turns[0].role is Role.USER:
            first = turns[0]
            turns[0] = Turn(Role.USER, f"{note}\n\n{first.text}", first.timestamp, first.source_ids)
        else:
            stamp = turns[0].timestamp if turns else None
            turns.insert(0, Turn(Role.USER, note, stamp))
    return tuple(turns)


TURN_SEPARATOR = "\n\n"
"""Between the texts of one turn's messages."""


def iter_turns(messages: Iterable[Message]) -> Iterator[Turn]:
    """The turns of `to_turns` (no note) each as soon as it ends, so an export holds one at a time; a
    turn's texts are joined once (adding each to the last made a long run of tool results quadratic)."""
    role: Role | None = None
    texts: list[str] = []
    ids: list[str] = []
    stamp: str | None = None
    for message in messages:
        flat = flatten(message)
        if flat is None:
            continue
        if texts and flat[0] is role:
            texts.append(flat[1])
            ids.append(message.id)
            stamp = message.timestamp or stamp
            continue
        if role is not None and texts:
            yield Turn(role, TURN_SEPARATOR.join(texts), stamp, tuple(ids))
        role, texts, ids, stamp = flat[0], [flat[1]], [message.id], message.timestamp
    if role is not None and texts:
        yield Turn(role, TURN_SEPARATOR.join(texts), stamp, tuple(ids))


def migration_note(lineage: Lineage) -> str:
    """Say, at the top of the migrated session, where it came from and what was left out."""
    if lineage.omitted:
        tokens = f" ({lineage.omitted_tokens:,} tokens)" if lineage.omitted_tokens else ""
        omitted = f"{lineage.omitted} earlier messages{tokens} were left out ({lineage.strategy})"
    else:
        omitted = "nothing was left out"
    moved = f"; it was recorded in {lineage.origin_cwd}" if lineage.origin_cwd else ""
    return (
        f"{NOTE_PREFIX} from {lineage.source_agent} session {lineage.source_id} by smig "
        f"(migration {lineage.migration_id}){moved}; {omitted}. Tool calls and results appear as text.]"
    )


def goal_of(messages: Iterable[Message]) -> str | None:
    """Return the first real user message: what the person set out to do."""
    message = goal_message(messages)
    return message.text.strip() if message else None


def goal_message(messages: Iterable[Message]) -> Message | None:
    """The message `goal_of` quotes."""
    for message in messages:
        if message.role is Role.USER and message.kind is Kind.TEXT and not message.injected and message.text.strip():
            return message
    return None


def native_title(source_agent: str, title: str | None, goal: str | None) -> str:
    """Title for the target agent's picker, marked as a migration from the source agent."""
    body = one_line(title or goal or "migrated session", 80)
    return TITLE_PREFIX.format(agent=source_agent) + body


def redact_messages(messages: Iterable[Message]) -> tuple[tuple[Message, ...], dict[str, int]]:
    """Replace secrets in every migrated message, returning the counts by kind.

    A migrated conversation goes to another agent and its provider, so credentials the source saw
    (keys in tool output, env dumps) are replaced with `[REDACTED:<kind>]` markers first.
    """
    counts: Counter[str] = Counter()
    out: list[Message] = []
    batch: list[Message] = []
    for message in messages:
        batch.append(message)
        if len(batch) == _REDACT_BATCH:
            _redact_batch(batch, out, counts)
            batch = []
    _redact_batch(batch, out, counts)
    return tuple(out), dict(counts)


_REDACT_BATCH = 512
"""Messages redacted together (`redact_many` looks for needles in a whole run of texts at once)."""


def _redact_batch(batch: list[Message], out: list[Message], counts: Counter[str]) -> None:
    for message, result in zip(batch, redact_many([message.text for message in batch]), strict=True):
        counts.update(result.counts)
        out.append(replace(message, body=result.text) if result.total else message)


def redact_title(session: Session) -> Session:
    """The session with secrets replaced in its title (a memory note redacts what it reads of the rest)."""
    title = redact(session.info.title).text if session.info.title else None
    return replace(session, info=replace(session.info, title=title))


def redact_header(session: Session) -> Session:
    """The session as a header for renderers: title redacted, messages cut to the redacted goal.

    Renderers take the conversation they write as its own argument (redacted with `redact_messages`)
    and read only the title and the goal from the session; redacting a huge session's other hundred
    thousand messages here (reading each stored text back) was most of a migration's time.
    """
    goal = goal_message(session.messages)
    messages, _ = redact_messages(() if goal is None else (goal,))
    return replace(redact_title(session), messages=messages)


def redact_plan(plan: Plan) -> Plan:
    """The plan with secrets replaced in the text it adds: the placeholder note and the summary.

    The placeholder quotes the first omitted prompt and the summary may echo what it read; the
    messages themselves go through `redact_messages` wherever they are rendered (or read: the memory note).
    """
    return replace(
        plan,
        placeholder=redact(plan.placeholder).text if plan.placeholder else plan.placeholder,
        summary=redact(plan.summary).text if plan.summary else plan.summary,
    )
