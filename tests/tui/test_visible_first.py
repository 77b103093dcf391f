"""Pilot tests of planning the tab on show first: its figures come alone, the other tabs say they are
being planned and fill in once the rest are planned; summary notices wait for a summary tab."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import Any

from conftest import open_session, settle, tree_of
from textual.widgets import Static, Tree
from tui_pilot import until

from smig_tui.core.models import Agent, Session, Strategy
from smig_tui.tui.messages import SessionRead
from smig_tui.tui.widgets.plan_table import PlanTable
from smig_tui.tui.widgets.preview_tabs import PLANNING, PreviewTabs, plan_line
from smig_tui.tui.widgets.session_loader import SessionLoader
from smig_tui.tui.widgets.summary_pane import SummaryPane

GATE_SECONDS = 600
"""How long a held-back plan waits for the test to release it: a hang guard, only reached when a test fails."""


def hold_back(app: Any, held: Callable[[Strategy], bool]) -> tuple[threading.Event, list[Strategy]]:
    """Make the app's planner wait before each strategy `held` accepts until the gate opens; record the order."""
    gate, calls = threading.Event(), []
    real = app.services.plan

    def plan(session: Any, target: str, strategy: Any = "truncate", **options: Any) -> Any:
        calls.append(Strategy(strategy))
        if held(Strategy(strategy)):
            gate.wait(GATE_SECONDS)
        return real(session, target, strategy, **options)

    app.services.plan = plan
    return gate, calls


def line(tabs: PreviewTabs, key: str) -> str:
    return str(tabs.query_one(f"#line-{key}", Static).render())


def is_codex(info: Any) -> bool:
    return info.agent == Agent("codex") and not info.is_subagent


async def test_the_tab_on_show_is_planned_first_and_the_others_say_so_until_theirs_come(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        gate, calls = hold_back(app, lambda strategy: strategy is not Strategy.TRUNCATE)
        tree = tree_of(pilot)
        leaf = next(
            node
            for line_no in range(tree.last_line + 1)
            if (node := tree.get_node_at_line(line_no)) is not None and node.data and is_codex(node.data)
        )
        tree.focus()
        tree.move_cursor(leaf)
        await pilot.press("enter")
        screen = app.screen
        await until(pilot, lambda: screen.plans is not None)

        tabs = screen.query_one(PreviewTabs)
        assert calls[0] is Strategy.TRUNCATE
        assert set(screen.plans.plans) == {Strategy.TRUNCATE}
        assert screen.plans.pending == {Strategy.TOOLS_FIRST, Strategy.SUMMARY, Strategy.SUMMARY_TAIL}
        truncation = screen.plans.plans[Strategy.TRUNCATE]
        assert line(tabs, "truncate") == plan_line(truncation, screen.plans.exact)
        assert tabs.query_one("#table-truncate", PlanTable).row_count > 0
        for key in ("tools-first", "summary", "summary-tail"):
            assert line(tabs, key) == PLANNING
        assert tabs.query_one("#table-tools-first", PlanTable).row_count == 0

        gate.set()
        await settle(pilot)
        plans = screen.plans.plans
        assert not screen.plans.pending
        assert set(plans) == {Strategy.TRUNCATE, Strategy.TOOLS_FIRST, Strategy.SUMMARY, Strategy.SUMMARY_TAIL}
        assert len({plan.decision.session_tokens for plan in plans.values()}) == 1  # one session figure on every tab
        assert line(tabs, "tools-first") == plan_line(plans[Strategy.TOOLS_FIRST], screen.plans.exact)
        table = tabs.query_one("#table-tools-first", PlanTable)
        assert table.plan is plans[Strategy.TOOLS_FIRST] and table.row_count > 0


async def test_a_new_target_plans_the_tab_on_show_first(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_session(pilot, is_codex)
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        gate, calls = hold_back(app, lambda strategy: strategy is not Strategy.TOOLS_FIRST)
        screen.target = "gpt-5"
        screen.replan()
        await until(pilot, lambda: screen.plans is not None and screen.plans.target.name == "gpt-5")

        assert calls[0] is Strategy.TOOLS_FIRST
        assert set(screen.plans.plans) == {Strategy.TOOLS_FIRST}
        tabs = screen.query_one(PreviewTabs)
        assert line(tabs, "truncate") == PLANNING  # never the previous target's figures
        assert tabs.query_one("#table-truncate", PlanTable).plan is None
        gate.set()
        await settle(pilot)
        assert not screen.plans.pending and screen.plans.plans[Strategy.TRUNCATE].decision.target == "gpt-5"


async def test_the_other_tabs_are_planned_once_the_tab_on_show_is_drawn(make_app) -> None:
    """They would share the interpreter's lock with the drawing of the tab the user is waiting for."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_session(pilot, is_codex)
        screen = app.screen
        tabs = screen.query_one(PreviewTabs)
        seen: list[tuple[Strategy, str]] = []
        real = app.services.plan

        def plan(session: Any, target: str, strategy: Any = "truncate", **options: Any) -> Any:
            seen.append((Strategy(strategy), line(tabs, "truncate")))  # what the tab on show says meanwhile
            return real(session, target, strategy, **options)

        app.services.plan = plan
        screen.target = "gpt-5"
        screen.replan()
        await settle(pilot)
        (first, before), *others = seen
        shown = plan_line(screen.plans.plans[Strategy.TRUNCATE], screen.plans.exact)
        assert first is Strategy.TRUNCATE and before != shown  # the previous target's figures, until then
        assert others and all(said == shown for _, said in others)  # gpt-5's, before any other plan began


async def test_what_a_summary_would_send_is_worked_out_when_a_summary_tab_shows(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_session(pilot, is_codex)
        tabs = app.screen.query_one(PreviewTabs)
        notice = tabs.query_one("#full-summary", SummaryPane).query_one("#notice", Static)
        assert str(notice.render()).strip() == ""  # not worked out for a tab nobody looked at
        await pilot.press("3")
        await settle(pilot)
        assert "Nothing is sent" in str(notice.render())  # no API key in the test homes


async def test_a_read_session_is_left_out_of_cyclic_collections_until_the_app_ends(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_session(pilot, is_codex)
        assert app.screen.session is not None and gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


async def test_the_read_leaves_its_session_out_of_the_collector_before_the_collector_runs_again(
    make_app, monkeypatch
) -> None:
    """Else the collector's first passes after the read walk the whole session (0.15-0.3 s on 500 MB)."""
    seen: list[tuple[bool, bool]] = []
    real = SessionLoader.post_message

    def post(loader: SessionLoader, message: Any) -> bool:
        if isinstance(message, SessionRead):  # on the read's thread, before the screen takes the session
            first = message.session.messages[0]
            seen.append((gc.isenabled(), any(tracked is first for tracked in gc.get_objects())))
        return real(loader, message)

    monkeypatch.setattr(SessionLoader, "post_message", post)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_session(pilot, is_codex)
        assert app.screen.session is not None
    assert seen == [(True, False)]  # the collector is back, and does not see the session


async def test_the_tree_measures_its_lines_as_rendering_them_would(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        nodes = [node for line_no in range(tree.last_line + 1) if (node := tree.get_node_at_line(line_no))]
        assert any(node.data is not None for node in nodes) and any(node.allow_expand for node in nodes)
        for node in nodes:
            assert tree.get_label_width(node) == Tree.get_label_width(tree, node)


async def test_a_session_opened_before_is_freed_once_another_is_open(make_app) -> None:
    """Without a full cyclic collection, which the TUI keeps from walking the open session: a finished
    plan worker kept its session, and the memos kept it until newer sessions pushed it out."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = await open_session(pilot, is_codex)
        await open_session(pilot, lambda info: info.agent == Agent("claude") and not info.is_subagent)
        assert app.screen.plans is not None and not app.screen.plans.pending
        gc.unfreeze()  # what the app froze is looked through, and nothing is collected
        try:
            assert not any(type(found) is Session and found.info.path == first.path for found in gc.get_objects())
        finally:
            gc.freeze()


async def test_a_cycle_made_since_the_freeze_does_not_keep_the_session_let_go(make_app) -> None:
    """A dialog closed after a session's plans were shown (here, a cycle holding the session, old enough
    to be collected only by a full collection) must not keep that session once another is opened."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = await open_session(pilot, is_codex)
        holder: list[object] = [app.screen.session]
        holder.append(holder)
        gc.collect(1)
        gc.collect(1)  # it survives twice: the oldest generation, where only a full collection looks
        del holder
        await open_session(pilot, lambda info: info.agent == Agent("claude") and not info.is_subagent)
        gc.unfreeze()
        try:
            assert not any(type(found) is Session and found.info.path == first.path for found in gc.get_objects())
        finally:
            gc.freeze()
