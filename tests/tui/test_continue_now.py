"""Pilot tests of "continue now" (issue 29): from `smig` to the receiving client in at most 10 keys.

The app ends with the client to start as its result; the entry point starts it once Textual has given
the terminal back (`cli.main`, tested with a fake launcher in tests/cli/test_cli_continue.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import HERE, settle
from textual.pilot import Pilot

from smig_tui.cli.main import Context, run_tui
from smig_tui.services import build_services, client_launch
from smig_tui.tui.app import SmigApp
from smig_tui.tui.screens.commit import CommitModal
from smig_tui.tui.screens.commit_result import CommitResultModal
from smig_tui.tui.widgets.source_tree import SourceTree

GEMINI_HOME = Path(__file__).parents[1] / "fixtures" / "gemini" / "home" / ".gemini"
TITLE = "OSPREY-93: read notes.txt and tell me the release codename"


@pytest.fixture
def project(fake_home: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The recorded Gemini CLI session among the fixture homes' Codex and Claude Code ones, its project a
    real folder; a `codex` on PATH (a stand-in: the app only looks for it, nothing runs it)."""
    folder = tmp_path / "osprey-app"
    folder.mkdir()
    gemini = fake_home["home"] / ".gemini"
    shutil.copytree(GEMINI_HOME, gemini)
    (gemini / "tmp" / "osprey-app" / ".project_root").write_text(str(folder), encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "codex").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    (bin_dir / "codex").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return folder


async def _press(pilot: Pilot[None], keys: list[str], *more: str) -> None:
    """Press keys one at a time as a user does, each one counted, waiting for the work each one starts."""
    for key in more:
        keys.append(key)
        await pilot.press(key)
        await settle(pilot)


async def test_from_smig_to_continue_now_is_nine_keys_for_a_session_found_by_filter(project: Path) -> None:
    app = SmigApp(services=build_services(), here=HERE)
    keys: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _press(pilot, keys, "slash", *"ospr", "enter")  # filter by the title, Enter opens the match
        tree = app.screen.query_one(SourceTree)
        assert [info.title for info in tree.visible_sessions()] == [TITLE]
        assert app.screen.plans is not None and app.screen.info.title == TITLE
        await _press(pilot, keys, "c")
        assert isinstance(app.screen, CommitModal) and app.screen.chosen == {"store", "codex"}
        await _press(pilot, keys, "enter")
        dialog = app.screen
        assert isinstance(dialog, CommitResultModal)
        hint = str(dialog.query_one("#result-hint").render())
        assert hint.startswith("c continues in Codex") and "y copies" in hint
        [output] = dialog.result.outputs
        await _press(pilot, keys, "c")
    assert len(keys) == 9 <= 10, keys
    launch = app.return_value
    assert isinstance(launch, client_launch.Launch)
    assert launch.argv == ("codex", "resume", output.session_id) and launch.cwd == str(project)
    assert launch.client == "Codex" and launch.command == f"cd {project} && codex resume {output.session_id}"
    assert launch.program == shutil.which("codex")


async def test_a_client_not_installed_keeps_smig_open_and_says_what_to_run(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no codex
    app = SmigApp(services=build_services(), here=HERE)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"ospr", "enter")
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        [output] = app.screen.result.outputs
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CommitResultModal) and app.is_running
        [note] = [n for n in app._notifications if n.severity == "warning"]
        assert note.message == (
            "Codex is not installed here (`codex` is not on PATH; SMIG_CODEX_BIN can name it). "
            f"Continue later with: cd {project} && codex resume {output.session_id}"
        )
    assert app.return_value is None


async def test_continue_now_without_a_native_session_says_there_is_no_client(project: Path) -> None:
    app = SmigApp(services=build_services(), here=HERE)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"ospr", "enter")
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        app.screen.query_one("#native").highlighted = app.screen.query_one("#native").option_count - 1
        await pilot.pause()
        assert app.screen.chosen == {"store"}
        await pilot.press("enter")
        await settle(pilot)
        assert "c continues" not in str(app.screen.query_one("#result-hint").render())
        await pilot.press("c")
        await settle(pilot)
        assert app.is_running and "no client to continue in" in list(app._notifications)[-1].message


def test_the_entry_point_starts_what_the_app_returned_after_it_has_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    """`smig` (run_tui) hands the app's launch to `main`, which starts it last; nothing runs inside the app."""
    launch = client_launch.Launch("Codex", "/bin/true", ("codex", "resume", "t1"), "/tmp", "cd /tmp && codex resume t1")
    monkeypatch.setattr(SmigApp, "run", lambda self: launch)
    ctx = Context()
    ctx.__dict__["services"] = object()
    assert run_tui(None, ctx) == 0  # type: ignore[arg-type]
    assert ctx.continue_with is launch
