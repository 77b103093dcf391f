"""The cheap listing of a Copilot CLI session (its events' types, a few events parsed) equals the whole
read field by field but the message count, on every recorded file, on generated homes and on odd
files (compactions applied or cancelled, usage without figures, huge lines); where the lines cannot
say (a damaged or differently written line) it declines and the whole read answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import listing_equality as equality
import pytest

from smig_devtools.copilot_corpus import generate_copilot
from smig_tui.adapters.agents.copilot import source as copilot_source
from smig_tui.adapters.agents.copilot.events import read_session
from smig_tui.adapters.agents.copilot.listing import listing_from_ends, whole_listing
from smig_tui.adapters.agents.copilot.source import CopilotSource
from smig_tui.core.models import SessionInfo

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "copilot"
RECORDED = sorted(REAL.rglob("events.jsonl"))
COMPACT = REAL / "home" / ".copilot" / "session-state" / "81f9fa50-7cc8-4a3a-b3b7-fbbfc18e0729" / "events.jsonl"


def same_as_whole(path: Path, cheap_expected: bool) -> None:
    equality.same_as_whole(path, cheap_expected, listing_from_ends, lambda p: whole_listing(read_session(p)))


def described(path: Path, monkeypatch: pytest.MonkeyPatch, cheap: bool) -> tuple[SessionInfo | None, list[str]]:
    return equality.described(CopilotSource(path.parent.parent), copilot_source, path, monkeypatch, cheap)


@pytest.mark.parametrize("path", RECORDED, ids=[f"{p.parents[2].name}-{p.parent.name[:8]}" for p in RECORDED])
def test_every_recorded_session_lists_cheaply_as_the_whole_read_does(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    same_as_whole(path, cheap_expected=True)
    equality.same_entry(CopilotSource(path.parent.parent), copilot_source, path, monkeypatch)


def test_generated_sessions_list_cheaply_as_the_whole_read_does(tmp_path: Path) -> None:
    entries = equality.generated_entries(tmp_path)
    generate_copilot(tmp_path / "made", entries)
    files = sorted((tmp_path / "made").rglob("events.jsonl"))
    assert len(files) == len(entries)
    for path in files:
        same_as_whole(path, cheap_expected=True)


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(folder: Path, events: list[dict[str, Any]], tail: str = "") -> Path:
    folder.mkdir(parents=True)
    path = folder / "events.jsonl"
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events) + tail, encoding="utf-8")
    return path


def _event(kind: str, **payload: Any) -> dict[str, Any]:
    return {"type": kind, "data": payload, "id": f"e-{kind}", "timestamp": "2026-12-05T03:00:00.000Z", "parentId": None}


def test_a_compaction_decides_where_the_conversation_begins(tmp_path: Path) -> None:
    """No workspace name: the title is the first prompt after the compaction; a cancelled one changes nothing."""
    events = _events(COMPACT)
    path = _write(tmp_path / "compact", events)
    same_as_whole(path, cheap_expected=True)
    cheap = listing_from_ends(path)
    assert cheap is not None and cheap.first_prompt == "COMPACT-3: what colour?"
    cancelled = [
        {**e, "data": {**e["data"], "outcome": "cancelled"}} if e["type"] == "session.compaction_complete" else e
        for e in events
    ]
    path = _write(tmp_path / "cancelled", cancelled)
    same_as_whole(path, cheap_expected=True)
    cheap = listing_from_ends(path)
    assert cheap is not None and cheap.first_prompt == "COMPACT-1: remember the colour teal"
    started = next(n for n, e in enumerate(events) if e["type"] == "session.compaction_start")
    reply = next(e for e in events if e["type"] == "assistant.message" and e["data"]["content"])
    during = [
        *events[: started + 1],
        {**reply, "data": {**reply["data"], "model": "during-model"}},
        *events[started + 1 :],
    ]
    path = _write(tmp_path / "during", [e for e in during if e["type"] != "assistant.message" or e is not reply])
    same_as_whole(path, cheap_expected=True)


def test_usage_without_figures_before_the_last_reply_leaves_the_figures_before(tmp_path: Path) -> None:
    events = _events(COMPACT)
    last = max(n for n, e in enumerate(events) if e["type"] == "assistant.message")
    odd = [*events[:last], _event("session.usage_record", usage="none"), *events[last:]]
    path = _write(tmp_path / "odd", odd)
    same_as_whole(path, cheap_expected=True)
    cheap = listing_from_ends(path)
    assert cheap is not None and cheap.context_tokens is None  # the compaction left only the last reply


def test_a_half_written_last_line_and_a_reordered_event_are_read_whole(tmp_path: Path) -> None:
    events = _events(COMPACT)
    same_as_whole(_write(tmp_path / "half", events, tail='{"type":"user.message","data":{"content":"half'), False)
    reordered = dict(reversed(list(events[-3].items())))
    same_as_whole(_write(tmp_path / "reordered", [*events[:-3], reordered, *events[-2:]]), cheap_expected=False)


def test_a_line_bigger_than_any_window(tmp_path: Path) -> None:
    events = _events(COMPACT)
    huge = _event("tool.execution_complete", toolCallId="t-huge", success=True, result={"content": "z" * 3_000_000})
    path = _write(tmp_path / "huge", [*events, huge])
    same_as_whole(path, cheap_expected=True)


def test_a_session_with_nothing_said_is_not_listed_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events = _events(COMPACT)
    path = _write(tmp_path / "quiet", [events[0], events[2]])  # the start and the system prompt
    same_as_whole(path, cheap_expected=True)
    assert described(path, monkeypatch, cheap=True) == described(path, monkeypatch, cheap=False) == (None, [])
