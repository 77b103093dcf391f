"""Snapshot tests of the main screens and every dialog on the fixture homes (regenerate with --snapshot-update).

Every count is smig's own estimate (`estimated_counts`), so the snapshots draw the same figures with or
without tiktoken's files: they run, and compare, in a fresh clone. Ids a commit makes up (the migration's,
the native session's) and the clock are fixed, so the commit's result is drawn the same every time.
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime

import pytest
from conftest import GEMINI_HOME, HERE, open_session, settle
from tui_pilot import build_sized, choose_target

from smig_tui.core.models import Agent, Kind, Strategy


async def quiet(pilot) -> None:
    """Settle, then drop toasts: their lifetime is a timer, not part of the screen's state."""
    await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def test_snapshot_empty_homes(snap_compare, empty_app) -> None:
    assert snap_compare(empty_app(), terminal_size=(120, 36), run_before=quiet)


@pytest.mark.usefixtures("estimated_counts")
def test_snapshot_session_selected(snap_compare, make_app) -> None:
    async def select(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda info: info.agent == Agent("claude") and not info.is_subagent)
        await quiet(pilot)

    assert snap_compare(make_app(), terminal_size=(120, 36), run_before=select)


@pytest.mark.usefixtures("estimated_counts")
def test_snapshot_truncation_preview(snap_compare, make_app, isolated_homes) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)

    async def preview(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("t")
        await settle(pilot)
        await pilot.press(*"tiny-test", "enter")
        await quiet(pilot)

    assert snap_compare(app, terminal_size=(120, 36), run_before=preview)


@pytest.mark.usefixtures("estimated_counts")
def test_snapshot_model_picker(snap_compare, make_app) -> None:
    async def picker(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda info: info.agent == Agent("codex") and not info.is_subagent)
        await pilot.press("t")
        await settle(pilot)
        await pilot.press(*"sonnet")
        await quiet(pilot)

    assert snap_compare(make_app(), terminal_size=(120, 36), run_before=picker)


def test_snapshot_help(snap_compare, make_app) -> None:
    async def help_panel(pilot) -> None:
        await settle(pilot)
        await pilot.press("question_mark")
        await quiet(pilot)

    assert snap_compare(make_app(), terminal_size=(120, 36), run_before=help_panel)


@pytest.mark.usefixtures("estimated_counts")
def test_snapshot_narrow_terminal(snap_compare, make_app) -> None:
    async def select(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda info: info.agent == Agent("codex") and not info.is_subagent)
        await quiet(pilot)

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=select)


@pytest.mark.usefixtures("estimated_counts")
def test_snapshot_commit_dialog(snap_compare, make_app, isolated_homes, monkeypatch) -> None:
    # smig's own folder under HOME, so the dialog's paths read `~/...` and do not depend on tmp names.
    monkeypatch.setenv("SMIG_TUI_HOME", str(isolated_homes["home"] / ".smig"))
    isolated_homes["smig"] = isolated_homes["home"] / ".smig"
    app, info, _ = build_sized(make_app, isolated_homes)

    async def confirm(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("t")
        await settle(pilot)
        await pilot.press(*"tiny-test", "enter")
        await settle(pilot)
        await pilot.press("c")
        await quiet(pilot)

    assert snap_compare(app, terminal_size=(120, 36), run_before=confirm)


SIZES = [(80, 24), (120, 40), (200, 60)]
"""Every main screen and dialog is checked at a small, a common and a wide terminal."""
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]


@pytest.mark.usefixtures("estimated_counts")
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_snapshot_main_screen(snap_compare, make_app, isolated_homes, size) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)

    async def main_screen(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("t")
        await settle(pilot)
        await pilot.press(*"tiny-test", "enter")
        await quiet(pilot)

    assert snap_compare(app, terminal_size=size, run_before=main_screen)


@pytest.mark.usefixtures("estimated_counts")
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_snapshot_message_viewer(snap_compare, make_app, isolated_homes, size) -> None:
    app, info, _ = build_sized(make_app, isolated_homes)

    async def viewer(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        table = pilot.app.screen.query_one("#table-truncate")
        plan = pilot.app.screen.plans.plans[Strategy.TRUNCATE]
        call = next(item.message for item in plan.items if item.message.kind is Kind.TOOL_CALL)
        table.focus()
        table.move_cursor(row=table.get_row_index(call.id))
        await pilot.press("enter")
        await quiet(pilot)

    assert snap_compare(app, terminal_size=size, run_before=viewer)


class _December3(datetime):
    """A clock stopped on the day the snapshots were made: a Codex rollout's folder is its day."""

    @classmethod
    def now(cls, tz=None):  # type: ignore[no-untyped-def]
        return cls(2026, 12, 3, 12, 0, tzinfo=tz or UTC)


@pytest.mark.usefixtures("estimated_counts")
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_snapshot_commit_dialog_sizes(snap_compare, make_app, isolated_homes, monkeypatch, size) -> None:
    from smig_tui.adapters import migration_commit

    monkeypatch.setattr(migration_commit, "datetime", _December3)
    monkeypatch.setenv("SMIG_TUI_HOME", str(isolated_homes["home"] / ".smig"))
    isolated_homes["smig"] = isolated_homes["home"] / ".smig"
    app, info, _ = build_sized(make_app, isolated_homes)

    async def confirm(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("down")  # the paths follow the highlighted destination
        await quiet(pilot)

    assert snap_compare(app, terminal_size=size, run_before=confirm)


@pytest.mark.usefixtures("estimated_counts")
@pytest.mark.usefixtures("estimated_counts")
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_snapshot_export_dialog(snap_compare, make_app, isolated_homes, size, monkeypatch) -> None:
    # The dialog proposes the first folder that exists: neither the session's recorded folder nor
    # HERE does on a test machine, so it falls back to the working directory: make that the same everywhere.
    monkeypatch.chdir("/")
    app, info, _ = build_sized(make_app, isolated_homes)

    async def export(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await pilot.press("x")
        await quiet(pilot)

    assert snap_compare(app, terminal_size=size, run_before=export)


def fixed_ids(monkeypatch) -> None:
    """Make the ids and the time a commit makes up the same on every run."""
    from smig_tui.adapters import migration_commit

    monkeypatch.setattr(migration_commit, "datetime", _December3)
    monkeypatch.setattr(migration_commit, "new_migration_id", lambda now=None: "019ae4e7d1c0" + "5eed" * 5)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID("5eed5eed-0000-4000-8000-00000000c0de"))


async def _over_budget(pilot) -> None:
    """Open the sized session against `tiny-test` and pin what truncation drops, so it cannot fit."""
    screen = pilot.app.screen
    await choose_target(pilot, "tiny-test")
    plan = screen.plans.plans[Strategy.TRUNCATE]
    screen.pins = frozenset(item.message.id for item in plan.dropped if item.reason == "over budget")
    screen.replan()
    await settle(pilot)


async def _help(pilot) -> None:
    await pilot.press("question_mark")


async def _picker(pilot) -> None:
    await pilot.press("t")
    await settle(pilot)
    await pilot.press(*"claude")


async def _commit(pilot) -> None:
    await _over_budget(pilot)
    await pilot.press("c")


async def _commit_again(pilot) -> None:
    await _commit(pilot)
    await settle(pilot)
    await pilot.press("enter")


async def _progress(pilot) -> None:
    from smig_tui.tui.screens.commit import CommitChoice
    from smig_tui.tui.screens.commit_progress import CommitProgressModal

    plan = pilot.app.screen.plans.plans[Strategy.TRUNCATE]
    pilot.app.push_screen(CommitProgressModal(CommitChoice({"store", "opencode"}, plan)))


async def _result(pilot) -> None:
    await _commit_again(pilot)
    await settle(pilot)
    await pilot.press("y")


async def _export(pilot) -> None:
    await pilot.press("x")


async def _replace(pilot) -> None:
    await pilot.press("x")
    await settle(pilot)
    existing = pilot.app.screen.query_one("#export-path").value
    with open(os.path.expanduser(existing), "w", encoding="utf-8") as mine:
        mine.write("mine\n")
    await pilot.press("enter")


async def _search(pilot) -> None:
    await pilot.press("f")
    await settle(pilot)
    await pilot.press(*"verbose")
    pilot.app.screen.run_query()


async def _peek(pilot) -> None:
    tree = pilot.app.screen.query_one("#tree")
    tree.focus()
    await pilot.press("space")


DIALOGS = {
    "help": _help,
    "picker": _picker,
    "commit-over-budget": _commit,
    "commit-asks-again": _commit_again,
    "commit-progress": _progress,
    "commit-result": _result,
    "export": _export,
    "export-replace": _replace,
    "search": _search,
    "peek": _peek,
}
"""Each dialog, reached from the sized session opened."""


@pytest.mark.usefixtures("estimated_counts")
@pytest.mark.parametrize("dialog", list(DIALOGS))
def test_snapshot_dialog_at_80x24(snap_compare, make_app, isolated_homes, monkeypatch, dialog) -> None:
    fixed_ids(monkeypatch)
    monkeypatch.chdir(isolated_homes["home"])  # the export dialog proposes the working folder: `~`
    monkeypatch.setenv("SMIG_TUI_HOME", str(isolated_homes["home"] / ".smig"))
    isolated_homes["smig"] = isolated_homes["home"] / ".smig"
    app, info, _ = build_sized(make_app, isolated_homes)

    async def reach(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda i: i.path == info.path)
        await DIALOGS[dialog](pilot)
        await quiet(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=reach)


def test_snapshot_first_run_at_80x24(snap_compare, empty_app) -> None:
    assert snap_compare(empty_app(), terminal_size=(80, 24), run_before=quiet)


@pytest.mark.usefixtures("estimated_counts")
def test_snapshot_four_agents_listed_at_80x24(snap_compare, four_agents) -> None:
    from smig_tui.services import build_services
    from smig_tui.tui.app import SmigApp

    assert GEMINI_HOME.is_dir()
    assert snap_compare(SmigApp(services=build_services(), here=HERE), terminal_size=(80, 24), run_before=quiet)


def test_snapshot_memory_sync_at_80x24(snap_compare, memory_home) -> None:
    from smig_tui.services import build_services
    from smig_tui.tui.app import SmigApp

    async def sync(pilot) -> None:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("s")
        await quiet(pilot)

    assert snap_compare(SmigApp(services=build_services(), here=HERE), terminal_size=(80, 24), run_before=sync)


@pytest.mark.usefixtures("estimated_counts")
def test_snapshot_branch_scope_at_80x24(snap_compare, make_app, monkeypatch) -> None:
    """`b`: this folder's sessions on its branch, and the count line that says so."""
    from smig_tui.tui.widgets import sources_panel

    monkeypatch.setattr(sources_panel, "current_branch", lambda folder: "main")

    async def branch(pilot) -> None:
        await settle(pilot)
        await pilot.press("b")
        await quiet(pilot)

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=branch)
