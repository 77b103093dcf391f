"""Provides what a plan needs to know about a session's shape, whatever the target: units, cuts, exclusions.

Computed once per session (`analyse`) and reused by every plan, so switching targets re-plans in O(n)
without re-deriving any of it.
"""

from __future__ import annotations

from collections.abc import Sequence, ValuesView
from dataclasses import dataclass, field
from itertools import accumulate

from smig_tui.core.models import Kind, Message, Role, Session

R_ORPHAN, R_INJECTED, R_OPAQUE = "orphaned tool pair", "injected harness context", "opaque reasoning"
NOT_MIGRATED = frozenset({R_INJECTED, R_OPAQUE, R_ORPHAN})
"""Why a message is never migrated by any plan (harness context, opaque reasoning, orphaned tool halves)."""


@dataclass(frozen=True)
class Structure:
    """What a plan needs to know about a session that no target changes: compute once, reuse."""

    skip: dict[int, str]
    """Never-migrated messages and why."""
    unit: list[int]
    """Unit id per message."""
    members: Members
    """Messages of each unit, in order."""
    valid: list[bool]
    """For each k in 0..n, whether keeping messages k.. splits no unit."""
    first_user: int | None
    """The first message a person typed, if any."""
    edges: dict[int, tuple[str, str, int] | None] = field(default_factory=dict, compare=False, repr=False)
    """Head and tail of tool outputs tools-first has looked at, by message index."""
    tool_units: list[list[int]] = field(default_factory=list, compare=False, repr=False)
    """Units made only of tool traffic, oldest first; filled on first use by tools-first."""


def analyse(session: Session) -> Structure:
    """Work out never-migrated messages, units and valid cut points of a session."""
    messages = session.messages
    skip = never_migrated(messages)
    unit = _units(messages, skip)
    first = next((i for i, m in enumerate(messages) if is_typed_prompt(m) and i not in skip), None)
    return Structure(skip, unit, Members(unit), _valid_cuts(unit), first)


SCANS_BEFORE_GROUPING = 64
"""Units looked up one scan each before `Members` groups them all at once (a scan is about a millisecond
for 285,000 messages)."""


class Members:
    """The messages of each unit, in order, found when asked: a plan asks for the units of a few
    messages (its pins, the newest prompt), and a list per unit was 25 MB of the plan of a session of
    285,000 messages. Every unit's at once (`values`, for tools-first) is made once, as it always was."""

    __slots__ = ("_all", "_found", "_unit")

    def __init__(self, unit: list[int]) -> None:
        self._unit = unit
        self._found: dict[int, list[int]] = {}
        self._all: dict[int, list[int]] | None = None

    def __getitem__(self, unit_id: int) -> list[int]:
        if self._all is None and len(self._found) >= SCANS_BEFORE_GROUPING:
            self.values()  # many pins: one grouping pass, not a scan of every message per unit
        if self._all is not None:
            return self._all[unit_id]
        found = self._found.get(unit_id)
        if found is None:
            found, unit, at = [], self._unit, -1
            try:
                while True:
                    at = unit.index(unit_id, at + 1)  # a scan in C: about a millisecond a 285,000 messages
                    found.append(at)
            except ValueError:
                pass
            if not found:
                raise KeyError(unit_id)
            self._found[unit_id] = found
        return found

    def values(self) -> ValuesView[list[int]]:
        """Every unit's messages, units in the order of their first message."""
        if self._all is None:
            every: dict[int, list[int]] = {}
            for i, u in enumerate(self._unit):
                every.setdefault(u, []).append(i)
            self._all = every
        return self._all.values()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Members) and other._unit == self._unit


def is_typed_prompt(message: Message) -> bool:
    """Tell whether a person typed this message (not tool output, not harness context)."""
    return message.role is Role.USER and message.kind is Kind.TEXT and not message.injected


def never_migrated(messages: Sequence[Message]) -> dict[int, str]:
    """Return the messages no plan migrates, with the reason."""
    calls: set[str | None] = set()
    results: set[str | None] = set()
    for m in messages:  # one pass for both sides of every tool pair
        if m.kind is Kind.TOOL_CALL:
            calls.add(m.call_id)
        elif m.kind is Kind.TOOL_RESULT:
            results.add(m.call_id)
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
    previous_record: str | None = None  # the source record of message i - 1 (`uuid` of `uuid#2`)
    previous_kind: Kind | None = None
    for i, m in enumerate(messages):
        kind, call_id, message_id = m.kind, m.call_id, m.id
        if kind is Kind.TOOL_CALL and call_id:
            call_at.setdefault(call_id, i)
        elif kind is Kind.TOOL_RESULT and call_id in call_at:
            join(call_at[call_id], i)
        record = message_id.partition("#")[0] if "#" in message_id else None
        if record is not None and previous_record == record:
            join(i - 1, i)
        previous_record = record
        if previous_kind is Kind.REASONING and m.role is Role.ASSISTANT and (i - 1) not in skip:
            join(i - 1, i)
        previous_kind = kind
    return [i if parent[i] == i else find(i) for i in range(len(messages))]


def _valid_cuts(unit: list[int]) -> list[bool]:
    """Return, for each k in 0..n, whether keeping messages k.. splits no unit."""
    n = len(unit)
    last = {u: i for i, u in enumerate(unit)}
    first = {u: i for i, u in zip(range(n - 1, -1, -1), reversed(unit), strict=True)}
    cover = [0] * (n + 2)
    for u, lo in first.items():
        hi = last[u]
        if hi > lo:
            cover[lo + 1] += 1
            cover[hi + 1] -= 1
    return [running == 0 for running in accumulate(cover[: n + 1])]
