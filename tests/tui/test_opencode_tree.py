"""The TUI with OpenCode sessions: the tree shows them under their own agent and opens them (Pilot)."""

from __future__ import annotations

from pathlib import Path

from conftest import open_session, settle, tree_of
from opencode_builders import SESSION_ID, install_database

from smig_tui.core.models import Agent
from smig_tui.services import build_services
from smig_tui.tui.app import SmigApp
from smig_tui.tui.widgets.session_card import SessionCard


async def test_the_tree_lists_opencode_sessions_and_opens_one(fake_home: dict[str, Path]) -> None:
    install_database(fake_home["home"] / ".local" / "share" / "opencode")
    app = SmigApp(services=build_services(), here="/home/user/proj")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        labels = [str(node.label) for node in tree.root.children]
        assert labels[-1] == "OpenCode (1)" and len(labels) == 3
        info = await open_session(pilot, lambda i: i.agent == Agent("opencode"))
        assert info.id == SESSION_ID
        screen = app.screen
        assert screen.session is not None and screen.session.info.id == SESSION_ID
        facts = str(screen.query_one(SessionCard).query_one("#facts").render())
        assert f"messages {len(screen.session.messages)}" in facts
        assert not [n for n in app._notifications if n.severity == "error"]
