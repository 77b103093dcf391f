"""The TUI with Kilo Code sessions: the tree shows them under their own agent, once there are some, and opens one (Pilot)."""

from __future__ import annotations

from pathlib import Path

from conftest import open_session, settle, tree_of
from kilo_builders import install_database

from smig_tui.core.models import Agent
from smig_tui.services import build_services
from smig_tui.tui.app import SmigApp
from smig_tui.tui.widgets.session_card import SessionCard


async def test_the_tree_lists_kilo_sessions_and_opens_one(fake_home: dict[str, Path]) -> None:
    app = SmigApp(services=build_services(), here="/home/user/proj")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert not [str(node.label) for node in tree_of(pilot).root.children if "Kilo" in str(node.label)]
    install_database(fake_home["home"] / ".local" / "share" / "kilo" / "kilo.db")
    app = SmigApp(services=build_services(), here="/home/user/proj")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        labels = [str(node.label) for node in tree_of(pilot).root.children]
        assert labels[-1] == "Kilo Code (5)"
        info = await open_session(pilot, lambda i: i.agent == Agent("kilo"))
        screen = app.screen
        assert screen.session is not None and screen.session.info.id == info.id
        facts = str(screen.query_one(SessionCard).query_one("#facts").render())
        assert f"messages {len(screen.session.messages)}" in facts
        assert not [n for n in app._notifications if n.severity == "error"]
