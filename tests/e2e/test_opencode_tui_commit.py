"""The TUI's commit dialog writes an OpenCode session through the real `opencode import` (Pilot), and
the real client resumes it: the path a TUI user takes, end to end."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from textual.widgets import Input

sys.path.insert(0, str(Path(__file__).parent))
from fake_model_server import REPLY, FakeModelServer
from real_clients import configure_opencode as _configure
from real_clients import main_requests, run_opencode
from tui_pilot import commit_dialog_choosing, settle

from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent
from smig_tui.core.native import NativeOutput
from smig_tui.services import build_services
from smig_tui.tui.app import SmigApp
from smig_tui.tui.screens.commit_result import CommitResultModal

pytestmark = pytest.mark.e2e


async def test_the_commit_dialog_writes_an_opencode_session_opencode_resumes(
    fake_home: dict[str, Path],
    tmp_path: Path,
    opencode: str,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with FakeModelServer() as server:
        # OpenCode's config exists before the commit, as a user's does: the session names its default model.
        env = _configure(fake_home, server)
        output, migration_id = await _commit_to_opencode(project)
        run = run_opencode([opencode, "run", "-s", output.session_id, "continue"], project, env)
        sent = json.dumps(main_requests(server), ensure_ascii=False)
    assert output.agent == "opencode" and output.resume_command.endswith(f"opencode -s {output.session_id}")
    assert output.session_id in {info.id for info in build_services().list_sessions(agent=Agent("opencode"))}
    assert REPLY in run.stdout
    assert NOTE_PREFIX in sent and migration_id in sent


async def _commit_to_opencode(project: Path) -> tuple[NativeOutput, str]:
    """Open a Codex session in the TUI, choose an OpenCode session in the commit dialog, commit."""
    app = SmigApp(services=build_services(), here="/home/user/proj")
    async with app.run_test(size=(120, 36)) as pilot:
        dialog = await commit_dialog_choosing(
            pilot, lambda info: info.agent == Agent("codex") and bool(info.title), "opencode"
        )
        dialog.query_one("#cwd", Input).value = str(project)
        await pilot.click("#confirm")
        await settle(pilot)
        assert isinstance(app.screen, CommitResultModal)
        [output] = app.screen.result.outputs
        return output, app.screen.result.migration_id
