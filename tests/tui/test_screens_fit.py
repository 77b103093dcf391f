"""Every screen and dialog, walked at 80×24, 120×40 and 200×60: each widget inside the screen, every id,
path and number shown whole (paths may wrap, ids and numbers never split), buttons on screen.

`screen_fit` reads the cells the compositor draws, so a string cut by a border, a column or the
screen's edge fails here. The figures come from the plan on show, so the check follows the data.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from conftest import HERE, open_session, settle, tree_of
from screen_fit import assert_fits, shown
from tui_pilot import build_sized, choose_target

from smig_tui.core.models import Plan, Strategy
from smig_tui.tui import backend
from smig_tui.tui.screens.commit import CommitModal
from smig_tui.tui.screens.commit_progress import CommitProgressModal
from smig_tui.tui.screens.commit_result import CommitResultModal
from smig_tui.tui.screens.confirm import ConfirmModal
from smig_tui.tui.screens.export import ExportModal
from smig_tui.tui.screens.help import HelpModal
from smig_tui.tui.screens.message_viewer import MessageViewer
from smig_tui.tui.screens.model_picker import ModelPickerModal
from smig_tui.tui.screens.peek import PeekModal
from smig_tui.tui.screens.search import SearchModal
from smig_tui.tui.widgets.plan_table import PlanTable
from smig_tui.tui.widgets.preview_tabs import TABS, PreviewTabs, over_budget, over_budget_text

SIZES = [(80, 24), (120, 40), (200, 60)]
SIZE_IDS = [f"{width}x{height}" for width, height in SIZES]


def figures(plan: Plan) -> list[str]:
    """The plan's numbers as the screens write them."""
    return [f"{plan.tokens_before:,}", f"{plan.tokens_after:,}", f"{plan.decision.budget:,}"]


def table_rows_whole(app, table: PlanTable) -> None:
    """Each row on screen shows its message's index and token count whole."""
    drawn = shown(app).lines
    region = table.content_region
    first = int(table.scroll_offset.y)
    plan_rows = table.row_count
    checked = 0
    for screen_y in range(region.y + 1, region.bottom):  # the header is the first line
        row = first + screen_y - region.y - 1
        if row >= plan_rows:
            break
        item = table.plan.items[row - table._first_item_row] if row >= table._first_item_row else None
        if item is None:
            continue
        line = drawn[screen_y][region.x : region.right]
        assert re.search(rf"(?<![\d,]){item.message.index}(?![\d,])", line), line
        assert re.search(rf"(?<![\d,]){item.tokens:,}(?![\d,])", line), line
        checked += 1
    assert checked, "no plan row was on screen"


def over_plan(app) -> Plan:
    """Pin every message truncation drops for lack of room, so the plan cannot fit; returns it."""
    screen = app.screen
    plan = screen.plans.plans[Strategy.TRUNCATE]
    screen.pins = frozenset(item.message.id for item in plan.dropped if item.reason == "over budget")
    screen.replan()
    return plan


@pytest.fixture
def walked(make_app, four_agents, estimated_counts):
    return build_sized(make_app, four_agents)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_every_screen_and_dialog_fits(walked, four_agents, size, monkeypatch, tmp_path) -> None:
    app, info, _ = walked
    # The export dialog proposes a file in the working folder, and the walk writes it: a folder whose
    # path is longer than the field at 80 columns, so the dialog must show it whole below the field.
    monkeypatch.chdir(tmp_path)
    gate = threading.Event()
    real_commit = backend.commit

    def held_commit(*args, **kwargs):
        assert gate.wait(
            600
        )  # a hang guard only: released by the test once the progress dialog is checked; never a sleep
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(backend, "commit", held_commit)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        # The list, nothing open: how many sessions each agent has, whole.
        tree = tree_of(pilot)
        counts = backend.detected(app.services, tree.sessions)
        assert {name for name, _ in counts} == {entry.name for entry in app.services.agents}  # every agent, 0 or more
        assert_fits(app, whole=[f"{name} {count}" for name, count in counts])

        # Peek (Space) at the session, then open it.
        tree.focus()
        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("space")
        await settle(pilot)
        assert isinstance(app.screen, PeekModal)
        assert_fits(app, whole=[info.id], wrapped=[info.cwd])
        await pilot.press("escape")
        await settle(pilot)

        # Over budget: the card, the plan line and its warning, the tabs, the rows.
        await choose_target(pilot, "tiny-test")
        over_plan(app)
        await settle(pilot)
        screen = app.screen
        plan = screen.plans.plans[Strategy.TRUNCATE]
        assert over_budget(plan)
        decision = plan.decision
        card = [f"{decision.budget:,}", f"{decision.over_by:,}"]
        card += [] if screen.query_one("#card").compact else [info.id]
        assert_fits(app, whole=[*card, *figures(plan), over_budget_text(plan)], wrapped=[info.cwd])
        tabs = screen.query_one(PreviewTabs)
        titles = [title for _, _, title in TABS]
        bar = " ".join(shown(app).lines)
        assert all(title in bar for title in titles) or tabs.short_titles
        table = tabs.table(Strategy.TRUNCATE)
        table_rows_whole(app, table)
        for key in "234":
            await pilot.press(key)
            await settle(pilot)
            assert_fits(app, whole=figures(screen.plans.plans[tabs.strategy]))
        await pilot.press("1")
        await settle(pilot)

        # The message viewer.
        await pilot.press("v")
        await settle(pilot)
        assert table.has_focus
        await pilot.press("end", "enter")
        await settle(pilot)
        assert isinstance(app.screen, MessageViewer)
        item = table.highlighted_item()
        assert_fits(app, whole=[f"#{item.message.index}", f"{item.tokens:,} tokens"])
        await pilot.press("escape")
        await settle(pilot)

        # Help, scrolled through: every key's description whole (wrapped in its cell).
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpModal)
        await help_described_whole(pilot)
        await pilot.press("escape")
        await settle(pilot)

        # The target picker: each row's name and its three figures on one line.
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, ModelPickerModal)
        assert_fits(app)
        picker_rows_whole(app)
        await pilot.press("escape")
        await settle(pilot)

        # The commit dialog states the plan and where it writes; the second question; progress; result.
        await pilot.press("c")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, CommitModal)
        written = dialog.plan
        native_where = backend.shown(Path(four_agents["claude"] / "projects"))
        assert_fits(
            app,
            whole=[*figures(written), f"{over_budget(written):,}"],
            wrapped=[f"{backend.shown(four_agents['smig'])}", native_where],
        )
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmModal)
        assert_fits(app, whole=[f"{written.decision.budget:,}-token", f"by {over_budget(written):,}"])
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, CommitProgressModal)
        assert_fits(app)
        gate.set()
        await settle(pilot)
        result_screen = app.screen
        assert isinstance(result_screen, CommitResultModal)
        result = result_screen.result
        [output] = result.outputs
        assert_fits(
            app,
            # The files' names hold the ids: a path may wrap, but after a `/`, never inside a name.
            whole=[
                result.migration_id,
                output.session_id,
                *figures(written),
                Path(output.path).name,
                Path(result.record_path).name,
            ],
            wrapped=[backend.shown(Path(result.record_path)), backend.shown(Path(output.path))],
        )
        await pilot.press("enter")
        await settle(pilot)

        # Export, and the question before replacing a file.
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ExportModal)
        path = app.screen.query_one("#export-path").value
        assert_fits(app, wrapped=[path])
        existing = Path(path).expanduser()
        existing.write_text("mine\n")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmModal)
        assert_fits(app, wrapped=[backend.shown(existing)])
        await pilot.press("n", "escape")
        await settle(pilot)

        # Search, with hits.
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, SearchModal)
        await pilot.press(*"verbose")
        app.screen.run_query()
        await settle(pilot)
        assert app.screen.hits
        assert_fits(app, whole=[hit.session_id[:13] for hit in app.screen.hits[:2]])
        await pilot.press("escape")
        await settle(pilot)


async def help_described_whole(pilot) -> None:
    """Scroll through the help: the panel fits, and each key's description shows whole in its cell at some
    point (one cut by the panel's edge shows whole further down).

    `down` scrolls it a line; from there it moves the panel's height less its tallest cell's at a time:
    each cell then lies whole in view at one of the stops, as it did at one line of the line-by-line walk
    (which drew the screen 60 times at 80x24, a quarter of this test's CPU, to look at the same cells)."""
    from screen_fit import _squeezed

    app = pilot.app
    panel = app.screen.query_one("VerticalScroll")
    cells = [widget for widget in panel.walk_children() if not widget.children and widget.display]
    step = max(1, panel.scrollable_content_region.height - max(cell.region.height for cell in cells))
    blocks: set[str] = set()
    assert_fits(app)
    blocks |= {_squeezed(block) for block in shown(app).joined}
    await pilot.press("down")
    await pilot.pause()
    assert panel.scroll_y == min(1, panel.max_scroll_y), "down does not scroll the help a line"
    for _ in range(300):
        assert_fits(app)
        blocks |= {_squeezed(block) for block in shown(app).joined}
        if panel.scroll_y >= panel.max_scroll_y:
            break
        panel.scroll_to(y=min(panel.scroll_y + step, panel.max_scroll_y), animate=False)
        await pilot.pause()
    else:
        raise AssertionError("the help never reached its end")
    for binding in app.screen._documented:
        assert _squeezed(binding.tooltip) in blocks, binding.tooltip


def picker_rows_whole(app) -> None:
    """Every model row on screen has its name and its window, in-agent window and output limit whole."""
    picker = app.screen
    models = {model.name: model for model in picker._models}
    region = picker.query_one("#picker-list").region
    lines = [line[region.x : region.right] for line in shown(app).lines[region.y : region.bottom]]
    checked = 0
    for line in lines:
        names = [name for name in models if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", line)]
        if not names:
            continue
        model = models[max(names, key=len)]
        usable = model.harness_window or (model.agents[0].usable if model.agents else None)
        for figure in (model.context_window, usable, model.max_output):
            if figure is not None:
                assert f"{figure:,}" in line, line
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_first_run_screen_fits(empty_app, size) -> None:
    app = empty_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        places = backend.searched_places(app.services)
        # every agent where it looks (one whose sessions are in the project folders, Aider, has no one place)
        named = [e for e in app.services.agents if e.sessions_folder is None or e.where_sessions(None) is not None]
        assert [name for name, _, _ in places] == [entry.name for entry in named] and len(named) >= 6
        assert_fits(app, wrapped=[f"{name}: {where}" for name, where, _ in places])


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_memory_screen_and_its_sync_question_fit(memory_home, size) -> None:
    from smig_tui.services import build_services
    from smig_tui.tui.app import SmigApp
    from smig_tui.tui.screens.memory import MemoryScreen, MemorySyncModal

    app = SmigApp(services=build_services(), here=HERE)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MemoryScreen) and screen.plan is not None and screen.plan.writes
        assert_fits(app)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, MemorySyncModal)
        assert_fits(app, wrapped=[backend.shown(Path(write.path)) for write in screen.plan.writes[:1]])
        await pilot.press("tab")
        assert app.screen.focused is app.screen.query_one("#confirm")  # Tab never lands on Cancel
        await pilot.press("escape")
        await settle(pilot)


async def test_the_checker_sees_a_dialog_past_the_edge_a_cut_path_and_a_split_number() -> None:
    """The checks above can fail: a 110-wide box on an 80-wide screen, a path cut by it, a number split."""
    from screen_fit import cut, outside
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    path = "/home/someone/.smig/data/migrations/user-proj-7d73bf4fde/0190a1b2c3d4e5f6.json"

    class TooWide(App[None]):
        CSS = "#wide { width: 110; } #narrow { width: 6; }"

        def compose(self) -> ComposeResult:
            yield Static(f"stored   {path}", id="wide")
            yield Static("tokens 1,234,567", id="narrow")

    app = TooWide()
    async with app.run_test(size=(80, 24)):
        assert any("#wide" in problem or "id='wide'" in problem for problem in outside(app))
        assert cut(app, whole=["1,234,567"], wrapped=[path]) == ["1,234,567", path]
        assert cut(app, whole=["stored"], wrapped=["tokens"]) == []
