"""The short paths the 500 MB work added give the results of the long ones.

The Claude reader numbers messages where it guesses they land and walks parent links without a
visited set; plans reuse the item a message had in the previous plan. Each test takes the case where
the shortcut does not hold (a rewound branch, a loop of parent links, a re-plan that changes fates)
and checks the answer is the one the general path gives.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plan_helpers import Builder, capacity, measure, words

from smig_tui.adapters.agents.claude.home import resolve_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.core.decide import decide
from smig_tui.core.models import Message, PlanItem, Session, Strategy
from smig_tui.core.plan_structure import analyse
from smig_tui.core.plans import make_plan

SESSION = "3b2a1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d"


def _record(kind: str, uuid: str, parent: str | None, content: Any, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(id=f"msg_{uuid}", model="claude-sonnet-4-5", usage={"input_tokens": 10, "output_tokens": 5})
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": kind,
        "uuid": uuid,
        "sessionId": SESSION,
        "timestamp": "2026-12-01T10:00:00.000Z",
        "cwd": "/work/app",
        "message": message,
        **extra,
    }


def _load(claude_home: Path, records: list[dict[str, Any]]) -> tuple[list[Message], list[str]]:
    path = claude_home / "projects" / "-work-app" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    source = ClaudeSource(resolve_home())
    warnings: list[Any] = []
    (info,) = [info for info in source.discover(warnings.append) if info.id == SESSION]
    session = source.load(info, warnings.append)
    return list(session.messages), [str(warning) for warning in warnings]


def test_a_rewound_branch_renumbers_the_messages_after_it(isolated_homes: dict[str, Path]) -> None:
    tool = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
    records = [
        _record("user", "u1", None, "List the files"),
        _record("assistant", "a1", "u1", [{"type": "text", "text": "Listing."}, tool]),
        _record("user", "r1", "a1", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py"}]),
        _record("assistant", "a2", "r1", "One file."),
        _record("user", "u2", "a2", "Delete it"),  # abandoned: the user rewound to a2 and asked again
        _record("assistant", "a3", "u2", "Deleted."),
        _record("user", "u3", "a2", "Keep it, rename it"),
        _record("assistant", "a4", "u3", "Renamed."),
    ]
    messages, _ = _load(isolated_homes["claude"], records)
    assert [m.id for m in messages] == ["u1", "a1#0", "a1#1", "r1", "a2", "u3", "a4"]
    assert [m.index for m in messages] == list(range(7))
    call, result = messages[2], messages[3]
    assert (call.tool_name, call.call_id, result.call_id) == ("Bash", "toolu_1", "toolu_1")
    assert result.call_id is call.call_id  # one string for both ends of the pair


def test_a_loop_of_parent_links_lists_each_record_once(isolated_homes: dict[str, Path]) -> None:
    records = [
        _record("user", "u1", "a2", "Start"),  # a damaged link: the first record points at the last
        _record("assistant", "a1", "u1", "Started."),
        _record("user", "u2", "a1", "Go on"),
        _record("assistant", "a2", "u2", "Done."),
    ]
    messages, _ = _load(isolated_homes["claude"], records)
    assert [m.text for m in messages] == ["Start", "Started.", "Go on", "Done."]
    assert [m.index for m in messages] == [0, 1, 2, 3]


def _session() -> Session:
    builder = Builder()
    for turn in range(12):
        builder.user(words(30, f"ask{turn}"))
        builder.tool(f"c{turn}", words(5), words(200, "out"))
        builder.assistant(words(40, f"reply{turn}"))
    return builder.session()


def _fates(items: tuple[PlanItem, ...]) -> list[tuple[str, int, bool, str, str | None]]:
    return [(item.message.id, item.tokens, item.kept, item.reason, item.text) for item in items]


def test_re_plans_reuse_items_only_when_the_fate_is_the_same() -> None:
    session = _session()
    counts = [len(m.text.split()) + 4 for m in session.messages]
    shared = analyse(session)
    cases = [
        (700, Strategy.TRUNCATE),
        (2_000, Strategy.TRUNCATE),
        (700, Strategy.TOOLS_FIRST),
        (700, Strategy.TRUNCATE),
        (50_000, Strategy.TRUNCATE),
    ]
    for budget, strategy in cases:
        decision = decide(sum(counts), capacity(budget, max_output=0))
        reused = make_plan(session, counts, decision, strategy, measure, structure=shared)
        fresh = make_plan(session, counts, decision, strategy, measure, structure=analyse(session))
        assert _fates(reused.items) == _fates(fresh.items)
        assert (reused.tokens_after, reused.placeholder) == (fresh.tokens_after, fresh.placeholder)
    assert {item.kept for item in reused.items} == {True}  # the last one fits: every dropped fate changed back


def _grouped(unit: list[int]) -> dict[int, list[int]]:
    """Every unit's messages, grouped as the plan's structure always grouped them."""
    every: dict[int, list[int]] = {}
    for i, u in enumerate(unit):
        every.setdefault(u, []).append(i)
    return every


def test_a_units_messages_found_when_asked_are_the_ones_grouped_at_once() -> None:
    """A plan asks for a few units' messages, found when asked (a list per unit was 25 MB of a 285,000-message
    session's plan): each unit's are the ones grouping every unit gives, a unit named by a member that is
    not its first too, and tools-first's every unit comes in the same order."""
    from smig_tui.core.plan_structure import Members

    for unit in ([0, 3, 0, 3, 4, 3, 6, 6], analyse(_session()).unit):
        every = _grouped(unit)
        asked = Members(unit)
        assert [asked[u] for u in reversed(unit)] == [every[u] for u in reversed(unit)]
        assert list(asked.values()) == list(every.values())
        assert [asked[u] for u in unit] == [every[u] for u in unit]
        fresh = Members(unit)
        assert list(fresh.values()) == list(every.values()) and fresh == asked
    many = [n // 3 for n in range(3 * 200)]  # more units asked for than are scanned one by one
    every, asked = _grouped(many), Members(many)
    assert [asked[u] for u in reversed(many)] == [every[u] for u in reversed(many)]
    with pytest.raises(KeyError):
        Members([0, 0])[1]  # a unit no message is in
