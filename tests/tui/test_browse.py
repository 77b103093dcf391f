"""Pilot tests of browsing: the source tree, filtering, sub-agents, selection and errors."""

from __future__ import annotations

from pathlib import Path

from conftest import HERE, open_session, settle, tree_of

from smig_tui.core.models import Agent
from smig_tui.tui.widgets.session_card import SessionCard


def group_labels(tree) -> dict[str, list[str]]:
    return {str(agent.label): [str(group.label) for group in agent.children] for agent in tree.root.children}


async def test_tree_lists_fixture_sessions_grouped_current_folder_first(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        listed = app.services.list_sessions()
        assert len(tree.visible_sessions()) == len(listed) > 0
        groups = group_labels(tree)
        codex_groups = next(labels for name, labels in groups.items() if name.startswith("Codex"))
        assert codex_groups[0].startswith(f"● {HERE} (")
        in_here = [info for info in listed if info.agent == Agent("codex") and info.cwd == HERE]
        assert codex_groups[0] == f"● {HERE} ({len(in_here)})"
        progress = str(app.screen.query_one("#progress").render())
        assert f"of {len(tree.sessions)} sessions" in progress


async def test_filter_narrows_by_title_and_folder(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        everything = tree.visible_sessions()
        some = next(info for info in everything if info.title)
        word = some.title.split()[-1].lower()
        await pilot.press("slash")
        await pilot.press(*word, "enter")
        shown = tree.visible_sessions()
        assert some in shown
        assert all(word in " ".join(filter(None, (i.title, i.cwd, i.project, i.id, i.model))).lower() for i in shown)
        await pilot.press("escape")
        assert tree.visible_sessions() == everything
        await pilot.press("slash", *"zqxj", "enter")
        assert tree.visible_sessions() == []


async def test_subagent_toggle_reveals_hidden_sessions(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        hidden = [info for info in tree.sessions if info.is_subagent]
        assert hidden, "the fixture homes hold sub-agent or exec sessions"
        assert not any(info.is_subagent for info in tree.visible_sessions())
        await pilot.press("a")
        assert all(info in tree.visible_sessions() for info in hidden)
        await pilot.press("a")
        assert not any(info.is_subagent for info in tree.visible_sessions())


async def test_selecting_a_session_shows_its_facts(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        info = await open_session(pilot, lambda i: i.agent == Agent("codex") and bool(i.title))
        screen = app.screen
        assert screen.session is not None and screen.session.info.path == info.path
        facts = str(screen.query_one(SessionCard).query_one("#facts").render())
        assert info.title.split()[0] in facts
        assert f"messages {len(screen.session.messages)}" in facts
        assert info.id in facts


async def test_unreadable_session_is_a_notification_not_a_crash(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        victim = next(info for info in tree_of(pilot).visible_sessions() if info.agent == Agent("codex"))
        Path(victim.path).unlink()
        await open_session(pilot, lambda i: i.path == victim.path)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors, "reading a vanished file must surface an error"
        assert "Traceback" not in errors[-1].message
        assert app.screen.session is None
        assert app.is_running


async def test_empty_homes_say_so_and_name_every_agent_and_where_it_was_looked_for(empty_app) -> None:
    app = empty_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        progress = str(app.screen.query_one("#progress").render())
        assert progress == "No sessions found."
        facts = " ".join(str(app.screen.query_one("#facts").render()).split())
        for name, where, variable in (
            ("Codex", "~/.codex", "CODEX_HOME"),
            ("Claude Code", "~/.claude", "CLAUDE_CONFIG_DIR"),
            ("Gemini CLI", "~/.gemini", "GEMINI_CLI_HOME"),
            ("OpenCode", "~/.local/share/opencode/opencode.db", "OPENCODE_DB"),
        ):
            assert f"{name}: {where} (moved by {variable}" in facts
        # A variable set after launch is not seen by this process: the screen says to restart, not to press r.
        assert "start smig again" in facts and "then press r" not in facts
        assert not app.screen.query_one("#preview").display


async def test_help_theme_and_palette(make_app) -> None:
    from smig_tui.tui.commands import PALETTE_TITLES
    from smig_tui.tui.screens.help import HelpModal

    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpModal)
        await pilot.press("escape")
        before = app.theme
        await pilot.press("ctrl+t")
        assert app.theme != before
        await pilot.press("m")
        await settle(pilot)
        assert type(app.screen).__name__ == "MemoryScreen"
        await pilot.press("escape")
        await settle(pilot)
        screen_ids = {b.id for b in app.screen.BINDINGS if b.id}
        app_ids = {b.id for b in app.BINDINGS if getattr(b, "id", None)}
        assert screen_ids | app_ids <= set(PALETTE_TITLES), "every keyed action has a palette title"


async def test_palette_runs_screen_actions(make_app) -> None:
    from smig_tui.tui.screens.model_picker import ModelPickerModal

    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda i: i.agent == Agent("claude") and not i.is_subagent)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Target: choose")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ModelPickerModal)


def test_current_folder_means_the_folder_and_below_but_not_from_home_or_root() -> None:
    from smig_tui.tui.widgets.source_tree import is_here

    assert is_here("/home/user/proj", "/home/user/proj")
    assert is_here("/home/user/proj/sub", "/home/user/proj")
    assert not is_here("/home/user/project", "/home/user/proj")
    broad = frozenset({"/", "/home/user"})
    assert not is_here("/home/user/proj", "/home/user", broad)
    assert not is_here("/home/user/proj", "/", broad)
    assert is_here("/home/user", "/home/user", broad)
