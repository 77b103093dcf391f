"""The TUI with a Gemini CLI session beside the Codex and Claude Code fixtures: listed, opened, measured."""

from __future__ import annotations

import shutil
from pathlib import Path

from tui_pilot import commit_dialog_choosing, settle

from smig_tui.core.models import Agent
from smig_tui.services import build_services
from smig_tui.tui.app import SmigApp
from smig_tui.tui.widgets.session_card import SessionCard
from smig_tui.tui.widgets.source_tree import SourceTree

FIXTURE = Path(__file__).parents[1] / "fixtures" / "gemini"


async def test_the_tree_lists_gemini_sessions_and_opens_one(fake_home: dict[str, Path]) -> None:
    shutil.copytree(FIXTURE / "home" / ".gemini", fake_home["home"] / ".gemini")
    app = SmigApp(services=build_services(), here="/home/user/proj")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SourceTree)
        labels = [str(node.label) for node in tree.root.children]
        assert labels[:2] == [label for label in labels if label.startswith(("Codex", "Claude Code"))]
        assert "Gemini CLI (1)" in labels
        leaf = next(
            tree.get_node_at_line(line)
            for line in range(tree.last_line + 1)
            if (node := tree.get_node_at_line(line)) is not None
            and node.data is not None
            and node.data.agent == Agent("gemini")
        )
        assert leaf is not None
        tree.focus()
        tree.move_cursor(leaf)
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        facts = str(app.screen.query_one(SessionCard).query_one("#facts").render())
        assert "91ffce34-43fe-493b-adc5-17413feeec43" in facts and "messages 11" in facts


async def test_the_commit_dialog_writes_a_gemini_session(fake_home: dict[str, Path]) -> None:
    app = SmigApp(services=build_services(), here="/home/user/proj")
    async with app.run_test(size=(120, 36)) as pilot:
        await commit_dialog_choosing(
            pilot, lambda info: info.agent == Agent("codex") and info.cwd == "/home/user/proj", "gemini"
        )
        await pilot.click("#confirm")
        await settle(pilot)
        result = app.screen.result
    [output] = result.outputs
    assert output.agent == "gemini" and output.resume_command.startswith("cd /home/user/proj && gemini --resume ")
    assert Path(output.path).parent == fake_home["home"] / ".gemini" / "tmp" / "proj" / "chats"
