"""Pilot tests of the whole flow: measure, change target, preview, pin, summarise, commit, export."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import open_session, settle
from fake_llm_server import FakeLLM, llm_server_fixture  # noqa: F401 - fixture
from tui_pilot import build_sized, choose_target

from smig_tui.core.models import Strategy
from smig_tui.core.plans import left_out
from smig_tui.tui.screens.commit import CommitModal
from smig_tui.tui.screens.commit_result import CommitResultModal
from smig_tui.tui.screens.export import ExportModal
from smig_tui.tui.widgets.plan_table import PLACEHOLDER_KEY
from smig_tui.tui.widgets.preview_tabs import PreviewTabs
from smig_tui.tui.widgets.session_card import SessionCard


@pytest.fixture
def sized_app(make_app, isolated_homes):
    return build_sized(make_app, isolated_homes)


@pytest.mark.usefixtures("exact_tokens")
async def test_changing_target_flips_the_decision_and_remembers_it(sized_app, isolated_homes) -> None:
    app, info, tokens = sized_app
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "roomy-test")
        screen = app.screen
        decision = screen.plans.plans[Strategy.TRUNCATE].decision
        assert decision.target == "roomy-test" and decision.fits
        assert decision.session_tokens == tokens
        assert "fits as-is" in str(screen.query_one(SessionCard).query_one("#decision").render())

        await choose_target(pilot, "tiny-test")
        decision = screen.plans.plans[Strategy.TRUNCATE].decision
        assert not decision.fits
        assert decision.over_by == tokens - decision.budget > 0
        shown = str(screen.query_one(SessionCard).query_one("#decision").render())
        assert f"must compress by {decision.over_by:,} tokens" in shown
        assert f"{tokens:,} counted" in str(screen.query_one(SessionCard).query_one("#tokens").render())

    saved = json.loads((isolated_homes["smig"] / "data" / "tui.json").read_text())
    assert saved["recent_targets"][:2] == ["tiny-test", "roomy-test"]


async def test_the_card_shows_the_receiving_agents_overhead_in_the_budget(sized_app) -> None:
    app, info, _ = sized_app
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "gpt-5.5")
        decision = app.screen.plans.plans[Strategy.TRUNCATE].decision
        assert decision.target == "gpt-5.5" and decision.overhead == 7_820  # Codex 0.171.0, measured
        shown = str(app.screen.query_one(SessionCard).query_one("#decision").render())
        assert f"agent overhead {decision.overhead:,} · budget {decision.budget:,}" in shown


@pytest.mark.usefixtures("exact_tokens")
async def test_truncation_preview_marks_dropped_rows_under_the_placeholder(sized_app) -> None:
    app, info, _ = sized_app
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        plan = app.screen.plans.plans[Strategy.TRUNCATE]
        table = app.screen.query_one(PreviewTabs).table(Strategy.TRUNCATE)
        assert plan.dropped and plan.placeholder
        assert table.get_row_at(0)[5].plain.startswith(plan.placeholder.split()[0])
        assert table.coordinate_to_cell_key((0, 0)).row_key.value == PLACEHOLDER_KEY
        assert table.row_count == len(plan.items) + 1
        markers = [str(table.get_row_at(row)[0]) for row in range(1, table.row_count)]
        assert markers == ["+" if item.kept else "−" for item in plan.items]
        tokens_column = [str(table.get_row_at(row)[4]).strip() for row in range(1, table.row_count)]
        assert tokens_column == [f"{item.tokens:,}" for item in plan.items]


async def test_every_preview_tab_opens(sized_app) -> None:
    app, info, _ = sized_app
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        tabs = app.screen.query_one(PreviewTabs)
        for key, strategy in zip(
            "1234", (Strategy.TRUNCATE, Strategy.TOOLS_FIRST, Strategy.SUMMARY, Strategy.SUMMARY_TAIL), strict=True
        ):
            await pilot.press(key)
            await settle(pilot)
            assert tabs.strategy is strategy
            line = str(tabs.query_one(f"#line-{tabs.query_one('TabbedContent').active.removeprefix('tab-')}").render())
            plan = app.screen.plans.plans[strategy]
            omitted, omitted_tokens = left_out(plan)  # the figures the lineage note and placeholder give
            assert f"leaves out {omitted:,} ({omitted_tokens:,} tokens)" in line
        notice = str(tabs.summary_pane(Strategy.SUMMARY_TAIL).query_one("#notice").render())
        assert "No API key" in notice and "OPENAI_API_KEY" in notice


async def test_pinning_a_dropped_message_keeps_it(sized_app) -> None:
    app, info, _ = sized_app
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        plan = app.screen.plans.plans[Strategy.TRUNCATE]
        victim = next(item.message for item in plan.dropped if item.message.role.value == "user")
        table = app.screen.query_one(PreviewTabs).table(Strategy.TRUNCATE)
        table.focus()
        table.move_cursor(row=table.get_row_index(victim.id))
        await pilot.press("p")
        await settle(pilot)
        replanned = {item.message.id: item for item in app.screen.plans.plans[Strategy.TRUNCATE].items}
        assert replanned[victim.id].kept and replanned[victim.id].reason == "pinned"
        assert app.screen.pins == frozenset({victim.id})
        assert str(table.get_row_at(table.get_row_index(victim.id))[0]) == "📌"
        await pilot.press("p")
        await settle(pilot)
        assert not {i.message.id: i for i in app.screen.plans.plans[Strategy.TRUNCATE].items}[victim.id].kept


async def test_commit_writes_storage_and_a_claude_session(sized_app, isolated_homes) -> None:
    app, info, _ = sized_app
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CommitModal)
        assert app.screen.chosen == {"store", "claude"}
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CommitResultModal)
        result = app.screen.result
    records = list((isolated_homes["smig"] / "data" / "migrations").rglob("*.json"))
    assert [str(path) for path in records] == [result.record_path]
    record = json.loads(records[0].read_text())
    assert record["source"]["id"] == info.id and record["target"] == "tiny-test"
    written = list((isolated_homes["claude"] / "projects").rglob("*.jsonl"))
    native = [path for path in written if str(path) in {output.path for output in result.outputs}]
    assert len(native) == 1 and "claude --resume" in result.resume_commands[0]
    assert Path(info.path).exists()


async def test_commit_dialog_writes_the_session_for_another_project_folder(sized_app, isolated_homes, tmp_path) -> None:
    app, info, _ = sized_app
    moved = tmp_path / "moved" / "repo"
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        session_info = await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CommitModal)
        field = app.screen.query_one("#cwd")
        assert field.value == session_info.cwd  # the source's folder unless changed
        field.value = str(moved)
        await pilot.click("#confirm")
        await settle(pilot)
        assert isinstance(app.screen, CommitResultModal)
        [output] = app.screen.result.outputs
    assert output.resume_command.startswith(f"cd {moved} && claude --resume ")
    first = json.loads(Path(output.path).read_text(encoding="utf-8").splitlines()[0])
    assert first["cwd"] == str(moved) and Path(output.path).parent.name == re.sub(r"[^A-Za-z0-9]", "-", str(moved))
    assert f"it was recorded in {session_info.cwd}" in first["message"]["content"]


async def test_export_to_a_markdown_file_and_the_clipboard(sized_app, tmp_path) -> None:
    app, info, _ = sized_app
    target = tmp_path / "handoff.md"
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        session_info = await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "roomy-test")
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ExportModal)
        app.screen.query_one("#export-path").value = str(target)
        await settle(pilot)  # a long path shows whole below the field: the buttons move
        await pilot.click("#confirm")
        await settle(pilot)
        text = target.read_text(encoding="utf-8")
        assert session_info.title.split()[0] in text
        assert any(
            f"Wrote the markdown export ({len(text):,} characters) to {target}" in n.message for n in app._notifications
        )

        await pilot.press("x")
        await settle(pilot)
        await pilot.click("#dest-clipboard")
        await pilot.click("#format-openai")
        await pilot.click("#confirm")
        await settle(pilot)
        chat = json.loads(app.clipboard)
        assert chat[0]["role"] in {"user", "system", "developer"}
        assert any("clipboard" in n.message for n in app._notifications)


async def test_export_refuses_to_clobber(sized_app, tmp_path) -> None:
    app, info, _ = sized_app
    target = tmp_path / "mine.md"
    target.write_text("my notes\n")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("x")
        await settle(pilot)
        app.screen.query_one("#export-path").value = str(target)
        await settle(pilot)  # a long path shows whole below the field: the buttons move
        await pilot.click("#confirm")
        await settle(pilot)
        assert "already exists" in str(app.screen.query_one("#question").render())
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ExportModal)
        assert target.read_text() == "my notes\n"


async def test_summary_streams_then_plans_with_the_edit(make_app, isolated_homes, llm_server: FakeLLM) -> None:
    extra = f'\n[summarizer]\nprovider = "local"\nbase_url = "{llm_server.url}"\nmodel = "test-model"\n'
    app, info, _ = build_sized(make_app, isolated_homes, extra)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        await pilot.press("4")
        await settle(pilot)
        pane = app.screen.query_one(PreviewTabs).summary_pane()
        notice = str(pane.query_one("#notice").render())
        assert "Press s to send" in notice and "local/test-model" in notice
        assert not llm_server.requests
        await pilot.press("s")
        await settle(pilot)
        assert len(llm_server.requests) == 1
        assert "## Goal" in pane.text
        plan = app.screen.plans.plans[Strategy.SUMMARY_TAIL]
        assert plan.summary == pane.text
        await pilot.press("e")
        area = pane.query_one("TextArea")
        assert area.has_focus
        before = area.text.count("/")
        await pilot.press("slash")  # a character in the editor: it does not jump to the filter
        assert area.has_focus and area.text.count("/") == before + 1
        area.text = "## Goal\nEdited by hand.\n"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.plans.plans[Strategy.SUMMARY_TAIL].summary == "## Goal\nEdited by hand.\n"


async def test_commit_waits_for_an_open_summary_edit(make_app, isolated_homes, llm_server: FakeLLM) -> None:
    """Committing from the footer while the editor is open would drop the unsaved edit: it is refused until Escape."""
    extra = f'\n[summarizer]\nprovider = "local"\nbase_url = "{llm_server.url}"\nmodel = "test-model"\n'
    app, info, _ = build_sized(make_app, isolated_homes, extra)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        pane = app.screen.query_one(PreviewTabs).summary_pane()
        await pilot.press("e")
        pane.query_one("TextArea").text = "## Goal\nEdited, not kept yet.\n"
        app.screen.action_commit()  # what a click on the footer's Commit does
        await settle(pilot)
        assert any("Finish editing the summary first" in n.message for n in app._notifications)
        assert not isinstance(app.screen, CommitModal)
        await pilot.press("escape")
        await settle(pilot)
        app.screen.action_commit()
        await settle(pilot)
        assert isinstance(app.screen, CommitModal)
        assert app.screen_stack[-2].plans.plans[Strategy.SUMMARY_TAIL].summary == "## Goal\nEdited, not kept yet.\n"


@pytest.mark.usefixtures("exact_tokens")
@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_card_gives_the_error_of_the_sessions_own_mix_of_text(sized_app, size) -> None:
    app, info, _ = sized_app
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "gemini-2.5-pro")
        services = app.screen.services
        session = services.load_session(info)
        mix = services.count_mix(session, services.capacities.lookup("gemini-2.5-pro"))
        assert mix is not None and mix.error is not None
        card = app.screen.query_one(SessionCard)
        shown = " ".join(str(card.query_one("#tokens").render()).split())
        if card.compact:  # 80x24: the factor and the mix's ± in two lines, nothing cut
            assert f"(× 1.047 ±{mix.error:.0%})" in shown and shown.endswith("logged by the agent")
            assert len(shown) <= 2 * (card.query_one("#tokens").size.width - 1)
        else:
            assert f"(o200k_split_digits × 1.047 by class, ±{mix.error:.0%} for its mix)" in shown
