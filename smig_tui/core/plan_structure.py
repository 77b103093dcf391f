# smig: compiled with mypyc where it can (setup.py)
"""Provides what a plan needs to know about a session's shape, whatever the target: units, cuts, exclusions.

Computed once per session (`analyse`) and reused by every plan, so switching targets re-plans in O(n)
without re-deriving any of it.
"""

from __future__ import annotations

from collections.abc import Sequence, ValuesView
from dataclasses import dataclass, field
from itertools import accumulate, islice
from operator import ge

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
    skip, unit = _skip_and_units(messages)
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
    return _skip_and_units(messages, units=False)[0]


def _skip_and_units(messages: Sequence[Message], units: bool = True) -> tuple[dict[int, str], list[int]]:
    """The messages no plan migrates, with the reason, and (with `units`) a unit id per message: a
    tool call with its results, one record's blocks, reasoning with the message after it, joined. A
    unit's id is the index of its first message.

    One pass over the messages for both (each pass is a tenth of a second on a 500 MB session), then
    one over the tool traffic: whether a call or result lost its other half is known only at the end.
    """
    parent = list(range(len(messages))) if units else []

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(a: int, b: int) -> None:
        first, second = find(a), find(b)
        if first < second:
            parent[second] = first
        elif second < first:
            parent[first] = second  # a unit is named by its first message (`_valid_cuts` relies on it)

    skip: dict[int, str] = {}
    calls: set[str | None] = set()
    results: set[str | None] = set()
    tools: list[int] = []
    """Tool calls and results not skipped already: the ones that may be orphans."""
    call_at: dict[str, int] = {}
    previous_record: str | None = None  # the source record of message i - 1 (`uuid` of `uuid#2`)
    previous_kind: Kind | None = None
    previous_skipped = False
    call, result, reasoning, assistant = Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.REASONING, Role.ASSISTANT
    for i, m in enumerate(messages):
        kind, call_id = m.kind, m.call_id
        skipped = True
        if m.injected:
            skip[i] = R_INJECTED
        elif m.opaque:
            skip[i] = R_OPAQUE
        else:
            skipped = False
        if kind is call:
            calls.add(call_id)
            if not skipped:
                tools.append(i)
            if units and call_id:
                call_at.setdefault(call_id, i)
        elif kind is result:
            results.add(call_id)
            if not skipped:
                tools.append(i)
            if units and call_id in call_at:
                join(call_at[call_id], i)
        if units:
            message_id = m.id
            record = message_id.partition("#")[0] if "#" in message_id else None
            if record is not None and previous_record == record:
                join(i - 1, i)
            previous_record = record
            if previous_kind is reasoning and m.role is assistant and not previous_skipped:
                join(i - 1, i)
            previous_kind, previous_skipped = kind, skipped
    for i in tools:
        m = messages[i]
        call_id = m.call_id
        if (call_id and call_id not in results) if m.kind is call else (not call_id or call_id not in calls):
            skip[i] = R_ORPHAN
    return skip, [i if parent[i] == i else find(i) for i in range(len(parent))]


def _valid_cuts(unit: list[int]) -> list[bool]:
    """Return, for each k in 0..n, whether keeping messages k.. splits no unit: whether every message
    from k on is in a unit that begins at k or later. A unit's id is its first message, so that is the
    least id from k on being k or more, all in C (where a dict of each unit's last message and a
    Python loop over the cuts took 35-40 ms of a 139,000-message session's first plan)."""
    n = len(unit)
    if n == 0:
        return [True]
    least = list(accumulate(reversed(unit), min))  # least id from each message on, the last first
    least.reverse()
    return [True, *map(ge, islice(least, 1, None), range(1, n)), True]
