"""The browse screen at scale: the filter waits for a pause in typing, closed folders cost one line."""

from __future__ import annotations

import pytest
from conftest import settle, tree_of

from smig_tui.tui.widgets import source_tree
from smig_tui.tui.widgets.sources_panel import SourcesPanel


def a_word(tree) -> str:
    """A word from some session's title that not every session shares."""
    everything = tree.visible_sessions()
    for info in everything:
        for word in (info.title or "").lower().split():
            if 0 < sum(source_tree.matches(i, [word]) for i in everything) < len(everything):
                return word
    raise AssertionError("the fixtures need titles that tell sessions apart")


async def test_typing_waits_for_a_pause_and_enter_applies_at_once(make_app, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SourcesPanel, "filter_delay", 3600.0)
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        everything = tree.visible_sessions()
        word = a_word(tree)
        await pilot.press("slash", *word)
        assert tree.visible_sessions() == everything, "no rebuild while the user is still typing"
        assert app.screen.sources._filter_timer is not None
        await pilot.press("enter")
        shown = tree.visible_sessions()
        assert shown and len(shown) < len(everything)
        assert app.screen.sources._filter_timer is None, "Enter cancels the pending wait"
        assert tree.has_focus


async def test_zero_delay_filters_per_keystroke_and_escape_clears_at_once(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SourcesPanel, "filter_delay", 0.0)
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        everything = tree.visible_sessions()
        await pilot.press("slash", *a_word(tree))
        assert len(tree.visible_sessions()) < len(everything)
        await pilot.press("escape")
        assert tree.visible_sessions() == everything


async def test_closed_folders_get_their_leaves_when_opened(make_app, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source_tree, "OPEN_FOLDERS", 0)
    app = make_app(here="/nowhere")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        folders = [folder for agent in tree.root.children for folder in agent.children]
        assert folders and all(not folder.is_expanded and not folder.children for folder in folders)
        total = sum(int(str(folder.label).rsplit("(", 1)[1].rstrip(")")) for folder in folders)
        assert total == len(tree.visible_sessions())
        folder = folders[0]
        folder.expand()
        await pilot.pause()
        count = int(str(folder.label).rsplit("(", 1)[1].rstrip(")"))
        assert len(folder.children) == count
        assert all(leaf.data is not None and leaf.data in tree.visible_sessions() for leaf in folder.children)
        folder.collapse()
        folder.expand()
        await pilot.pause()
        assert len(folder.children) == count, "opening again adds nothing twice"
