"""Provides what a plan needs to know about a session's shape, whatever the target: units, cuts, exclusions.

Computed once per session (`analyse`) and reused by every plan, so switching targets re-plans in O(n)
without re-deriving any of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from smig_tui.core.gc_pause import no_cyclic_gc
from smig_tui.core.models import Kind, Message, Role, Session

R_ORPHAN, R_INJECTED, R_OPAQUE = "orphaned tool pair", "injected harness context", "opaque reasoning"


@dataclass(frozen=True)
class Structure:
    """What a plan needs to know about a session that no target changes: compute once, reuse."""

    skip: dict[int, str]
    """Never-migrated messages and why."""
    unit: list[int]
    """Unit id per message."""
    members: dict[int, list[int]]
    """Messages of each unit, in order."""
    valid: list[bool]
    """For each k in 0..n, whether keeping messages k.. splits no unit."""
    first_user: int | None
    """The first message a person typed, if any."""
    edges: dict[int, tuple[str, str, int] | None] = field(default_factory=dict, compare=False, repr=False)
    """Head and tail of tool outputs tools-first has looked at, by message index."""
    tool_units: list[list[int]] = field(default_factory=list, compare=False, repr=False)
    """Units made only of tool traffic, oldest first; filled on first use by tools-first."""


@no_cyclic_gc()  # a list per unit: the collector would walk the whole session several times
def analyse(session: Session) -> Structure:
    """Work out never-migrated messages, units and valid cut points of a session."""
    messages = session.messages
    skip = never_migrated(messages)
    unit = _units(messages, skip)
    members: dict[int, list[int]] = {}
    for i, u in enumerate(unit):
        members.setdefault(u, []).append(i)
    first = next((i for i, m in enumerate(messages) if is_typed_prompt(m) and i not in skip), None)
    return Structure(skip, unit, members, _valid_cuts(unit), first)


def is_typed_prompt(message: Message) -> bool:
    """Tell whether a person typed this message (not tool output, not harness context)."""
    return message.role is Role.USER and message.kind is Kind.TEXT and not message.injected


def never_migrated(messages: Sequence[Message]) -> dict[int, str]:
    """Return the messages no plan migrates, with the reason."""
    calls = {m.call_id for m in messages if m.kind is Kind.TOOL_CALL and m.call_id}
    results = {m.call_id for m in messages if m.kind is Kind.TOOL_RESULT and m.call_id}
    skip: dict[int, str] = {}
    for i, m in enumerate(messages):
        if m.injected:
            skip[i] = R_INJECTED
        elif m.opaque:
            skip[i] = R_OPAQUE
        elif (
            m.kind is Kind.TOOL_CALL
            and m.call_id
            and m.call_id not in results
            or m.kind is Kind.TOOL_RESULT
            and (not m.call_id or m.call_id not in calls)
        ):
            skip[i] = R_ORPHAN
    return skip


def _units(messages: Sequence[Message], skip: dict[int, str]) -> list[int]:
    """Return a unit id per message: call+results, one record's blocks, reasoning+next, joined."""
    parent = list(range(len(messages)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(a: int, b: int) -> None:
        parent[find(b)] = find(a)

    call_at: dict[str, int] = {}
    previous_record: str | None = None  # `_record` of message i - 1, worked out once per message
    for i, m in enumerate(messages):
        if m.kind is Kind.TOOL_CALL and m.call_id:
            call_at.setdefault(m.call_id, i)
        elif m.kind is Kind.TOOL_RESULT and m.call_id in call_at:
            join(call_at[m.call_id], i)
        record = _record(m)
        if previous_record is not None and previous_record == record:
            join(i - 1, i)
        previous_record = record
        if i and messages[i - 1].kind is Kind.REASONING and (i - 1) not in skip and m.role is Role.ASSISTANT:
            join(i - 1, i)
    return [find(i) for i in range(len(messages))]


def _record(message: Message) -> str | None:
    """Return the source record a block came from (`uuid` of `uuid#2`), or None."""
    head, sep, _ = message.id.partition("#")
    return head if sep else None


def _valid_cuts(unit: list[int]) -> list[bool]:
    """Return, for each k in 0..n, whether keeping messages k.. splits no unit."""
    n = len(unit)
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for i, u in enumerate(unit):
        first.setdefault(u, i)
        last[u] = i
    cover = [0] * (n + 2)
    for u, lo in first.items():
        if last[u] > lo:
            cover[lo + 1] += 1
            cover[last[u] + 1] -= 1
    valid, running = [], 0
    for k in range(n + 1):
        running += cover[k]
        valid.append(running == 0)
    return valid
