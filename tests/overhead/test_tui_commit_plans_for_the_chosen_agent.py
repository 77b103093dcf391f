"""The TUI writes a plan made for the agent picked in the commit dialog, not the one it previewed for.

The tabs plan a Codex session for the default target (claude-sonnet-4-5), so Claude Code's overhead
is taken off; committing it to Gemini CLI instead plans again with Gemini CLI's usable window (it
compresses at half the window) and overhead, and says so in
the dialog, before anything is written, and in the result.
"""

from __future__ import annotations

from pathlib import Path

from tui_pilot import commit_dialog_choosing, settle

from smig_tui.core.models import Agent
from smig_tui.services import build_services
from smig_tui.tui.app import SmigApp


async def test_committing_to_another_agent_plans_for_its_window_and_overhead(fake_home: dict[str, Path]) -> None:
    services = build_services()
    app = SmigApp(services=services, here="/home/user/proj")
    notes: list[str] = []
    async with app.run_test(size=(120, 36)) as pilot:
        dialog = await commit_dialog_choosing(
            pilot, lambda info: info.agent == Agent("codex") and info.cwd == "/home/user/proj", "gemini"
        )
        notes.append(" ".join(str(dialog.query_one("#commit-note").render()).split()))
        planned = dialog.plan
        await pilot.click("#confirm")
        await settle(pilot)
        result = app.screen.result
        notes.append(" ".join(str(app.screen.query_one("#result-note").render()).split()))
    record = result.record
    session = services.load_session(services.find_session(record.source.id))
    capacity = services.capacities.lookup(record.target)
    for_claude = services.plan(session, record.target, record.strategy).decision
    for_gemini = services.plan(session, record.target, record.strategy, agent="gemini").decision
    assert for_claude.overhead == services.overhead_tokens(capacity, "claude") != for_gemini.overhead
    assert record.decision["budget"] == for_gemini.budget != for_claude.budget
    assert for_gemini.harness_agent == "gemini" and for_gemini.prompt_limit != for_claude.prompt_limit
    expected = (
        f"Planned again for Gemini CLI (compacts at {for_gemini.prompt_limit:,}, adds {for_gemini.overhead:,}"
        f" a request): budget {for_gemini.budget:,} (was {for_claude.budget:,})"
    )
    assert len(notes) == 2 and all(note.startswith(expected) for note in notes)
    assert planned is not None and planned.decision.budget == for_gemini.budget  # the dialog states what is written


async def test_committing_to_the_previewed_agent_writes_the_preview(fake_home: dict[str, Path]) -> None:
    services = build_services()
    app = SmigApp(services=services, here="/home/user/proj")
    notes: list[str] = []
    async with app.run_test(size=(120, 36)) as pilot:
        await commit_dialog_choosing(
            pilot, lambda info: info.agent == Agent("codex") and info.cwd == "/home/user/proj", "claude"
        )
        notes.append(" ".join(str(app.screen.query_one("#commit-note").render()).split()))
        await pilot.click("#confirm")
        await settle(pilot)
        record = app.screen.result.record
        assert not app.screen.query("#result-note")
    session = services.load_session(services.find_session(record.source.id))
    assert record.decision["budget"] == services.plan(session, record.target, record.strategy).decision.budget
    assert notes == [""]
