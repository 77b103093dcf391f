"""The key footer (issue 35: TUI first paint): the keys Textual's footer shows, mounted once for all the
binding changes waiting, and not again when the keys would come out the same."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey

from smig_tui.tui.widgets.key_footer import KeyFooter


class Pane(Static, can_focus=True):
    """A focusable pane with a key of its own."""

    def __init__(self, key: str, description: str, pane_id: str) -> None:
        super().__init__(description, id=pane_id)
        self._bindings.bind(key, "app.bell", description)


class Panes(App[None]):
    BINDINGS = [("q", "quit", "Quit")]

    def __init__(self, footer: type[Footer]) -> None:
        super().__init__()
        self.footer_type = footer

    def compose(self) -> ComposeResult:
        yield Pane("x", "Ex", "one")
        yield Pane("y", "Why", "two")
        yield self.footer_type()


def _keys(app: App[None]) -> list[tuple[str, str]]:
    return [(key.key, key.description) for key in app.query(FooterKey)]


async def _settled(pilot: Pilot[None]) -> list[tuple[str, str]]:
    """The keys once the footer has caught up: both footers rebuild after a refresh, which a busy
    machine may leave for a few more rounds of messages (no clock involved)."""
    seen: list[list[tuple[str, str]]] = []
    for _ in range(200):
        await pilot.pause()
        seen.append(_keys(pilot.app))
        if len(seen) >= 5 and seen[-1] and seen[-1] == seen[-2] == seen[-3]:
            break
    return seen[-1]


@pytest.fixture
def rebuilds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per time the key footer mounted its keys again."""
    counted: list[int] = []
    original = KeyFooter.recompose

    async def recompose(self: KeyFooter) -> None:
        counted.append(1)
        await original(self)

    monkeypatch.setattr(KeyFooter, "recompose", recompose)
    return counted


async def _shown(footer: type[Footer], focus: list[str]) -> list[tuple[str, str]]:
    app = Panes(footer)
    async with app.run_test() as pilot:
        for pane in focus:
            app.set_focus(app.query_one(f"#{pane}"))
        return await _settled(pilot)


async def test_it_shows_the_keys_textuals_footer_shows() -> None:
    for focus in ([], ["two"], ["two", "one"], ["one", "two", "one", "two"]):
        assert await _shown(KeyFooter, focus) == await _shown(Footer, focus)
    assert ("y", "Why") in await _shown(KeyFooter, ["one", "two"])


async def test_changes_waiting_together_rebuild_it_once_and_the_same_keys_never(rebuilds: list[int]) -> None:
    app = Panes(KeyFooter)
    async with app.run_test() as pilot:
        await _settled(pilot)
        assert len(rebuilds) == 1  # the start: focus and screen stack settling, then the focus refreshed
        for pane in ("two", "one", "two"):  # three changes before the next refresh
            app.set_focus(app.query_one(f"#{pane}"))
        assert ("y", "Why") in await _settled(pilot)
        assert len(rebuilds) == 2
        app.set_focus(app.query_one("#two"))  # the same keys: nothing to mount
        app.screen.refresh_bindings()
        await _settled(pilot)
        assert len(rebuilds) == 2
