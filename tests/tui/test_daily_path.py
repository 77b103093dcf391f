"""The daily path, driven by keys and counted: filter to a committed migration, export to the clipboard,
over-budget plans said at every step, the filter's arrows, Home/End, the plan's own key, peek, scope."""

from __future__ import annotations

import json
import threading

import pytest
from conftest import HERE, open_session, settle, tree_of
from daily_keys import Keys, text_of
from tui_pilot import build_sized, choose_target

from smig_tui.core.models import Agent, Strategy
from smig_tui.core.native import Destination
from smig_tui.services import build_services
from smig_tui.tui import backend
from smig_tui.tui.app import SmigApp
from smig_tui.tui.screens.browse import BrowseScreen
from smig_tui.tui.screens.commit import CommitChoice, CommitModal
from smig_tui.tui.screens.commit_progress import CommitProgressModal, writing_text
from smig_tui.tui.screens.commit_result import CommitResultModal
from smig_tui.tui.screens.confirm import ConfirmModal
from smig_tui.tui.screens.model_picker import Columns
from smig_tui.tui.screens.peek import PeekModal
from smig_tui.tui.widgets.preview_tabs import PreviewTabs, over_budget, over_budget_text
from smig_tui.tui.widgets.source_tree import SourceTree
from smig_tui.tui.widgets.sources_panel import SourcesPanel

TITLE = "Fix login redirect loop"
"""A Claude Code session of the fixtures, found by typing part of its title."""


@pytest.fixture(autouse=True)
def filter_on_every_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The filter applies on each key: its debounce is a wall-clock timer, and these tests type and then
    read the list, so whether it had fired depended on the machine's speed (a test failed under load).
    The wait itself is tested in tests/tui/test_scale.py."""
    monkeypatch.setattr(SourcesPanel, "filter_delay", 0.0)


def notes_of(app) -> list[str]:
    return [notification.message for notification in app._notifications]


def migrate_a_copy(title: str, to: Destination) -> None:
    """Commit `title`'s session into another agent, as an earlier day's smig would have: a copy titled
    `↪ from …` that the filter matches too."""
    services = build_services()
    info = next(i for i in services.list_sessions() if i.title == title)
    session = services.load_session(info)
    services.migrate(session, services.plan(session, "gpt-5.5", Strategy.TRUNCATE), to={Destination.STORE, to})


async def test_from_smig_to_a_committed_migration_of_a_session_found_by_filter_in_8_keys(
    make_app, isolated_homes
) -> None:
    migrate_a_copy(TITLE, Destination("codex"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        matching = [info for info in tree.sessions if "logi" in (info.title or "").lower()]
        copy, original = sorted(matching, key=lambda info: info.agent == Agent("claude"))
        assert copy.title.startswith("↪ from claude:") and copy.agent == Agent("codex")
        keys = Keys(pilot)
        await keys("slash", *"logi")
        # The copy is listed first (Codex comes before Claude Code); the original is the one highlighted.
        assert [node.data for node in tree._leaves()] == [copy, original]
        assert tree.cursor_node.data == original
        await keys("enter")  # opens the highlighted match: the original
        assert app.screen.info == original and app.screen.plans is not None
        await keys("c", "enter")
        assert isinstance(app.screen, CommitResultModal)
        result = app.screen.result
    assert keys.count == 8
    assert result.record.source.id == original.id


async def test_export_to_the_clipboard_in_4_keys_and_tab_enter_exports_too(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        keys = Keys(pilot)
        await keys("enter", "x", "c", "enter")  # open the newest session, export, clipboard, go
        assert keys.count == 4
        assert isinstance(app.screen, BrowseScreen)
        first = app.clipboard
        assert "Handoff" in first and app.screen.info.title.split()[0] in first
        app.copy_to_clipboard("")
        # Clipboard chosen, then Tab and Enter: Tab never lands on Cancel, so Enter still exports.
        await keys("x", "c", "tab", "enter")
        assert isinstance(app.screen, BrowseScreen) and app.clipboard == first


async def test_enter_on_a_format_exports_in_that_format(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await Keys(pilot)("enter", "x", "c", "down", "down", "enter")  # the cursor on "OpenAI chat JSON"
        chat = json.loads(app.clipboard)
        assert isinstance(chat, list) and chat[0]["role"] in {"user", "system", "developer"}


@pytest.mark.usefixtures("estimated_counts")
async def test_a_plan_over_budget_is_said_in_the_preview_the_dialog_and_the_result(make_app, isolated_homes) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        screen = app.screen
        fitting = screen.plans.plans[Strategy.TRUNCATE]
        assert not over_budget(fitting)
        assert "over the" not in text_of(screen.query_one("#line-truncate"))
        screen.pins = frozenset(item.message.id for item in fitting.dropped if item.reason == "over budget")
        screen.replan()
        await settle(pilot)
        plan = screen.plans.plans[Strategy.TRUNCATE]
        over = over_budget(plan)
        assert over > 0 and plan.tokens_after == plan.decision.budget + over
        warning = f"over the {plan.decision.budget:,}-token budget by {over:,}"
        assert over_budget_text(plan) == warning
        assert f"✗ {warning}" in text_of(screen.query_one("#line-truncate"))

        await pilot.press("c")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, CommitModal)
        stated = text_of(dialog.query_one("#commit-plan"))
        assert stated == f"Truncation · ≈{plan.tokens_before:,} → ≈{plan.tokens_after:,} tokens · ✗ {warning}"
        await pilot.press("enter")  # asks once more
        await settle(pilot)
        assert isinstance(app.screen, ConfirmModal)
        assert f"still {warning} tokens" in text_of(app.screen.query_one("#question"))
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is dialog
        assert not list((isolated_homes["smig"] / "data" / "migrations").rglob("*.json"))  # nothing written
        await pilot.press("enter", "y")
        await settle(pilot)
        result = app.screen
        assert isinstance(result, CommitResultModal)
        assert "over its budget" in text_of(result.query_one("#result-title"))
        assert f"✗ {warning}" in text_of(result.query_one("#result-plan"))
        assert result.has_class("-over")
    record = json.loads(next((isolated_homes["smig"] / "data" / "migrations").rglob("*.json")).read_text())
    assert record["tokens_after"] == plan.tokens_after


async def test_a_plan_that_fits_is_committed_at_once_and_says_so(make_app, isolated_homes) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        plan = app.screen.plans.plans[Strategy.TRUNCATE]
        await Keys(pilot)("c")
        spare = plan.decision.budget - plan.tokens_after
        assert f"fits the {plan.decision.budget:,}-token budget ({spare:,} to spare)" in text_of(
            app.screen.query_one("#commit-plan")
        )
        await Keys(pilot)("enter")
        assert isinstance(app.screen, CommitResultModal) and not app.screen.has_class("-over")
        assert "y copies the resume command" in text_of(app.screen.query_one("#result-hint"))
        assert text_of(app.screen.query_one("#result-hint")).startswith("c continues in Claude Code")


async def test_keys_pressed_while_a_commit_is_written_do_not_reach_the_result(
    make_app, isolated_homes, monkeypatch
) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)
    gate = threading.Event()
    real_commit = backend.commit

    def slow_commit(*args, **kwargs):  # as `opencode import` is: seconds
        assert gate.wait(600)  # a hang guard only: the test opens the gate
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(backend, "commit", slow_commit)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        progress = app.screen
        assert isinstance(progress, CommitProgressModal)  # at once, before the write ends
        assert "Writing smig's record and a session for Claude Code" in text_of(
            progress.query_one("#commit-progress-text")
        )
        await pilot.press("y", "c", "enter", "escape", "m", "q")  # c: "continue now" on the result
        await pilot.pause()
        assert app.screen is progress and app.is_running
        gate.set()
        await settle(pilot)
        assert isinstance(app.screen, CommitResultModal)  # not closed by the Enter pressed while waiting
        assert app.clipboard == ""  # nor its command copied by the `y`
    assert app.return_code in (None, 0)


def test_the_progress_note_names_the_import_command_of_an_agent_that_has_one() -> None:
    plan = object()  # the note reads only the destinations
    slow = writing_text(CommitChoice({"store", "opencode"}, plan))  # type: ignore[arg-type]
    assert slow.startswith("Writing smig's record and a session for OpenCode…")
    assert "The OpenCode session is written by `opencode import`, which takes a few seconds." in slow
    assert "written by" not in writing_text(CommitChoice({"store", "claude"}, plan))  # type: ignore[arg-type]


async def test_the_result_offers_no_resume_command_when_no_native_session_was_written(make_app, isolated_homes) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("end", "enter")  # "No native session" is the last choice
        await settle(pilot)
        result = app.screen
        assert isinstance(result, CommitResultModal) and not result.result.outputs
        hint = text_of(result.query_one("#result-hint"))
        assert "y copies" not in hint and "c continues" not in hint and "no command to resume" in hint
        await pilot.press("y")  # not offered; pressed anyway, it says why and copies nothing
        await pilot.pause()
        assert "nothing to resume" in notes_of(app)[-1] and app.clipboard == ""


async def test_arrows_move_through_the_matches_while_typing_and_enter_opens_the_highlighted_one(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        keys = Keys(pilot)
        await keys("slash", *"home/user")
        matches = [node.data for node in tree._leaves()]
        assert len(matches) >= 4 and tree.cursor_node.data == matches[0]
        await keys("down", "down")
        assert tree.cursor_node.data == matches[2] and app.screen.focused.id == "filter"
        await keys("up")
        assert tree.cursor_node.data == matches[1]
        await keys(*"/p")  # typing on starts from the best match again
        assert tree.cursor_node.data == next(node.data for node in tree._leaves())
        await keys("down", "enter")
        assert app.screen.info == [node.data for node in tree._leaves()][1]


async def test_home_end_v_and_escape_move_between_the_list_and_the_plan(make_app, isolated_homes) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        tree.focus()
        await Keys(pilot)("end")
        assert tree.cursor_line == tree.last_line
        await Keys(pilot)("home")
        assert tree.cursor_line == 0
        await open_session(pilot, lambda i: i.path == info.path)
        await choose_target(pilot, "tiny-test")
        await pilot.press("slash", *"proj")
        app.screen.sources.apply_filter()
        tree.focus()
        await Keys(pilot)("v")  # the plan table, in one key (it took Tab Tab)
        table = app.screen.query_one(PreviewTabs).table()
        assert table.has_focus
        plan = app.screen.plans.plans[Strategy.TRUNCATE]
        await Keys(pilot)("end")
        assert table.highlighted_key() == plan.items[-1].message.id
        await Keys(pilot)("home")
        assert table.cursor_row == 0
        await Keys(pilot)("escape")  # back to the list, the filter kept
        assert tree.has_focus and app.screen.query_one("#filter").value == "proj"
        footer_keys = {binding.key for binding in app.screen.BINDINGS if binding.show}
        assert "v" in footer_keys  # shown in the footer (and so in help)


async def test_space_peeks_without_opening_and_enter_there_opens(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        tree.focus()
        info = tree.cursor_node.data
        await Keys(pilot)("space")
        peek = app.screen
        assert isinstance(peek, PeekModal) and app.screen_stack[0].info is None  # nothing opened
        shown_text = text_of(peek.query_one("#peek-text"))
        session = app.services.load_session(info)
        first_user = next(m for m in session.messages if m.role.value == "user" and m.kind.value == "text")
        assert f"First (user, #{first_user.index}):" in shown_text
        assert " ".join(first_user.text.split())[:40] in shown_text
        await Keys(pilot)("enter")
        assert isinstance(app.screen, BrowseScreen) and app.screen.info == info and app.screen.plans is not None


async def test_h_lists_this_folder_only_and_back(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        every = tree.visible_sessions()
        await Keys(pilot)("h")
        here = tree.visible_sessions()
        assert here and len(here) < len(every) and all(info.cwd == HERE for info in here)
        assert f"{len(here)} of {len(tree.sessions)} sessions here" in text_of(app.screen.query_one("#progress"))
        await Keys(pilot)("h")
        assert tree.visible_sessions() == every


async def test_the_card_counts_each_agents_sessions_before_one_is_opened(four_agents) -> None:
    app = SmigApp(services=build_services(), here=HERE)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        facts = text_of(app.screen.query_one("#facts"))
        tree = app.screen.query_one(SourceTree)
        for agent, name in (
            (Agent("codex"), "Codex"),
            (Agent("claude"), "Claude Code"),
            (Agent("gemini"), "Gemini CLI"),
        ):
            count = sum(1 for info in tree.sessions if info.agent == agent and not info.is_subagent)
            assert f"{name} {count}" in facts
        assert "OpenCode 1" in facts and facts.startswith("Enter opens the highlighted session")


def test_a_local_summarizer_is_suggested_at_the_address_the_code_uses() -> None:
    text = backend.provider_setup(build_services())
    assert "http://127.0.0.1:11434/v1" in text and "8080" not in text


def test_the_picker_drops_text_columns_never_figures() -> None:
    models = list(build_services().capacities.models)
    narrow, wide = Columns.fitting(models, 74), Columns.fitting(models, 106)
    assert narrow.status and not narrow.provider and not narrow.agent_name
    assert wide.status and wide.provider and wide.agent_name
    nothing = Columns.fitting(models, 40)
    assert not (nothing.status or nothing.provider or nothing.agent_name or nothing.retired_date)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_with_no_color_a_session_opens_and_its_plan_draws(make_app, monkeypatch, size) -> None:
    """NO_COLOR makes Textual filter every piece of every line; a narrow plan table's dropped columns
    left a piece without a style, which ended the app ("'NoneType' object has no attribute 'color'")."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await Keys(pilot)("enter")
        table = app.screen.query_one(PreviewTabs).table()
        assert app.screen.plans is not None and table.row_count
        assert 0 in [column.width for column in table.columns.values()]  # a column dropped, drawn fine
    assert app.return_code in (None, 0)
