"""The TUI on hostile input: a deeply nested line and special files never stall the scan, and the
export dialog proposes a folder that exists and refuses one that does not, creating nothing."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import open_session, settle, tree_of

from smig_tui.core.models import Agent
from smig_tui.tui.screens.export import ExportModal

NESTED = "[" * 5000 + "]" * 5000


async def test_a_nested_line_and_a_fifo_leave_the_scan_finished_with_one_notice(make_app, fake_home) -> None:
    for path in [*fake_home["claude"].rglob("*.jsonl"), *fake_home["codex"].rglob("rollout-*.jsonl")]:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(NESTED + "\n")
    fifo = fake_home["claude"] / "projects" / "-home-user-proj" / "pipe.jsonl"
    os.mkfifo(fifo)
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        progress = str(app.screen.query_one("#progress").render())
        assert progress.split()[1:3] == ["of", progress.split()[2]] and "sessions" in progress
        notices = [n.message for n in app._notifications if n.severity == "warning"]
        assert notices == [
            f"1 unreadable line or file skipped; first: {fifo}: named like a session but it "
            "is a FIFO (named pipe); skipped. A skipped file is reported once until it changes; "
            "smig doctor lists them all."
        ]
        info = await open_session(pilot, lambda i: i.id.startswith("5f0c2a9e"))  # an undamaged fixture
        lines = len(Path(info.path).read_text(encoding="utf-8").splitlines())
        last = [n.message for n in app._notifications][-1]
        assert last == f"1 line skipped; first: {info.path}:{lines}: JSON nested too deeply to read; line skipped"
        assert app.is_running


async def test_export_defaults_to_a_folder_that_exists_and_never_creates_one(make_app, fake_home, tmp_path) -> None:
    app = make_app()  # the fixture sessions were recorded in /home/user/…, which is not on this machine
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        info = await open_session(pilot, lambda i: i.agent == Agent("codex"))
        assert not Path(info.cwd).exists()
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ExportModal)
        proposed = Path(app.screen.query_one("#export-path").value)
        assert proposed.parent.is_dir() and not str(proposed).startswith(info.cwd)
        missing = tmp_path / "not" / "here" / "x.md"
        app.screen.query_one("#export-path").value = str(missing)
        await settle(pilot)  # a long path shows whole below the field: the buttons move
        await pilot.click("#confirm")
        await settle(pilot)
        errors = [n.message for n in app._notifications if n.severity == "error"]
        assert errors[-1] == f"The folder {missing.parent} does not exist; create it first or choose another path."
        assert not (tmp_path / "not").exists()
        assert tree_of(pilot) is not None and app.is_running
