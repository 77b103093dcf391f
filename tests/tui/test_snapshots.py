"""Snapshot tests of the main screens on the fixture homes (regenerate with --snapshot-update)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from conftest import open_session, settle
from tui_pilot import build_sized

from smig_tui.core.models import Agent, Kind, Strategy


async def quiet(pilot) -> None:
    """Settle, then drop toasts: their lifetime is a timer, not part of the screen's state."""
    await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def test_snapshot_empty_homes(snap_compare, empty_app) -> None:
    assert snap_compare(empty_app(), terminal_size=(120, 36), run_before=quiet)


@pytest.mark.usefixtures("exact_tokens")
def test_snapshot_session_selected(snap_compare, make_app) -> None:
    async def select(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda info: info.agent == Agent("claude") and not info.is_subagent)
        await quiet(pilot)

    assert snap_compare(make_app(), terminal_size=(120, 36), run_before=select)


@pytest.mark.usefixtures("exact_tokens")
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


@pytest.mark.usefixtures("exact_tokens")
def test_snapshot_narrow_terminal(snap_compare, make_app) -> None:
    async def select(pilot) -> None:
        await settle(pilot)
        await open_session(pilot, lambda info: info.agent == Agent("codex") and not info.is_subagent)
        await quiet(pilot)

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=select)


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


@pytest.mark.usefixtures("exact_tokens")
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


@pytest.mark.usefixtures("exact_tokens")
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


@pytest.mark.usefixtures("exact_tokens")
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


@pytest.mark.usefixtures("exact_tokens")
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
