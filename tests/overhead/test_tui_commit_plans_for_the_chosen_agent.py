"""The TUI writes a plan made for the agent picked in the commit dialog, not the one it previewed for.

The tabs plan a Codex session for the default target (claude-sonnet-4-5), so Claude Code's overhead
is taken off; committing it to Gemini CLI instead plans again with Gemini CLI's overhead, and says so.
"""

from __future__ import annotations

from pathlib import Path

from tui_pilot import commit_dialog_choosing, settle

from smig_tui.core.models import Agent
from smig_tui.services import build_services
from smig_tui.tui.app import SmigApp


async def test_committing_to_another_agent_plans_for_its_overhead(fake_home: dict[str, Path]) -> None:
    services = build_services()
    app = SmigApp(services=services, here="/home/user/proj")
    notes: list[str] = []
    async with app.run_test(size=(120, 36)) as pilot:
        await commit_dialog_choosing(
            pilot, lambda info: info.agent == Agent("codex") and info.cwd == "/home/user/proj", "gemini"
        )
        app.notify = lambda message, *args, **kwargs: notes.append(str(message))  # type: ignore[method-assign]
        await pilot.click("#confirm")
        await settle(pilot)
        result = app.screen.result
    record = result.record
    session = services.load_session(services.find_session(record.source.id))
    capacity = services.capacities.lookup(record.target)
    for_claude = services.plan(session, record.target, record.strategy).decision
    for_gemini = services.plan(session, record.target, record.strategy, agent="gemini").decision
    assert for_claude.overhead == services.overhead_tokens(capacity, "claude") != for_gemini.overhead
    assert record.decision["budget"] == for_gemini.budget != for_claude.budget
    expected = f"Planned again for gemini, which adds {for_gemini.overhead:,} tokens"
    assert any(note.startswith(expected) for note in notes)


async def test_committing_to_the_previewed_agent_writes_the_preview(fake_home: dict[str, Path]) -> None:
    services = build_services()
    app = SmigApp(services=services, here="/home/user/proj")
    notes: list[str] = []
    async with app.run_test(size=(120, 36)) as pilot:
        await commit_dialog_choosing(
            pilot, lambda info: info.agent == Agent("codex") and info.cwd == "/home/user/proj", "claude"
        )
        app.notify = lambda message, *args, **kwargs: notes.append(str(message))  # type: ignore[method-assign]
        await pilot.click("#confirm")
        await settle(pilot)
        record = app.screen.result.record
    session = services.load_session(services.find_session(record.source.id))
    assert record.decision["budget"] == services.plan(session, record.target, record.strategy).decision.budget
    assert not any(note.startswith("Planned again") for note in notes)
