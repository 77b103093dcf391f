"""Every key typed after `/` lands in the filter, however fast it comes: `/` and the next letters in one
read (fast typing, tmux send-keys, a paste) went to the tree, where `f` opened the search and `c` began a
commit. Driven with Pilot (key events queued together, before the app handles any) and in a real pty."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from conftest import settle, tree_of
from textual import events
from textual.widgets import Input

from smig_tui.tui.screens.browse import BrowseScreen
from smig_tui.tui.screens.search import SearchModal
from smig_tui.tui.widgets.sources_panel import SourcesPanel

sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
from terminal import Terminal  # the pty helper of the e2e tests


@pytest.fixture(autouse=True)
def filter_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree follows the filter at each key: what is tested is where the keys go, not the pause the
    filter waits for (a wall-clock wait `settle` does not see; it elapsed only while the screen was
    still busy starting)."""
    monkeypatch.setattr(SourcesPanel, "filter_delay", 0.0)


def queue_keys(app, text: str) -> None:
    """Put every key of `text` in the app's queue at once, as a terminal read of them all does."""
    for character in text:
        key = "slash" if character == "/" else "space" if character == " " else character
        app.post_message(events.Key(key, character))


async def test_letters_queued_behind_slash_go_to_the_filter_not_the_tree(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        queue_keys(app, "/fix")  # f alone opens the search
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen), "f reached the tree and opened the search"
        box = app.screen.query_one("#filter", Input)
        assert box.value == "fix" and app.focused is box
        app.screen.sources.apply_filter()  # the tree follows after a pause in typing (a timer a busy machine delays)
        assert tree_of(pilot).filter_text == "fix"


async def test_slash_typed_in_the_filter_is_a_character(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        queue_keys(app, "/user/proj")
        await settle(pilot)
        assert app.screen.query_one("#filter", Input).value == "user/proj"
        app.screen.sources.apply_filter()
        assert all(info.cwd and "user/proj" in info.cwd for info in tree_of(pilot).visible_sessions())


async def test_keys_pressed_one_by_one_after_slash_reach_the_filter_too(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "c", "a", "f")  # c commits and a shows sub-agents, from the tree
        await settle(pilot)
        assert app.screen.query_one("#filter", Input).value == "caf"
        assert not tree_of(pilot).show_subagents


async def test_a_paste_on_the_list_filters_it(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        assert app.focused is tree
        tree.post_message(events.Paste("/login\nsecond line"))
        await settle(pilot)
        box = app.screen.query_one("#filter", Input)
        assert box.value == "login" and app.focused is box
        assert not isinstance(app.screen, SearchModal)


def test_slash_and_letters_in_one_write_filter_in_a_real_terminal(fake_home: dict[str, Path], tmp_path: Path) -> None:
    """The real smig in a pty at 80x24: `/fix` written at once, as tmux send-keys or a paste sends it."""
    project = tmp_path / "work"
    project.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    terminal = Terminal([sys.executable, "-m", "smig_tui"], project, env, columns=80, lines=24)
    try:
        counts = re.compile(r"(\d+) of (\d+) sessions")
        terminal.wait_for(lambda: bool(counts.search(terminal.text())), "smig to list the fixture sessions")
        terminal.type("/fix")
        filtered, searching = terminal.shows("│ fix "), terminal.shows("what was said")
        terminal.wait_for(lambda: filtered() or searching(), "the filter (or, the bug, the search) to show")
        assert filtered() and not searching(), terminal.text()

        def narrowed() -> bool:
            found = counts.search(terminal.text())
            return found is not None and 0 < int(found[1]) < int(found[2])

        terminal.wait_for(narrowed, "the filter to apply")
    finally:
        terminal.close()
