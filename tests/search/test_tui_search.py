"""The TUI's search mode with Pilot: index progress, hits as you type, Enter opens the hit's message."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, Static
from tui_pilot import settle

from smig_tui.services import build_services
from smig_tui.tui.app import SmigApp
from smig_tui.tui.screens.search import SearchModal
from smig_tui.tui.widgets.preview_tabs import PreviewTabs

HERE = "/home/user/proj"


@pytest.fixture(autouse=True)
def type_without_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SearchModal, "search_delay", 0)


async def open_search(pilot: Pilot[None]) -> SearchModal:
    await settle(pilot)
    await pilot.press("f")
    await settle(pilot)
    assert isinstance(pilot.app.screen, SearchModal)
    return pilot.app.screen


async def test_hits_are_listed_as_you_type_and_enter_opens_the_message(fake_home: dict[str, Path]) -> None:
    app = SmigApp(services=build_services(), here=HERE)
    async with app.run_test(size=(140, 44)) as pilot:
        modal = await open_search(pilot)
        status = modal.query_one("#search-status", Static)
        assert "sessions indexed" in str(status.render())
        await pilot.press(*"verbose")
        await settle(pilot)
        hits = modal.hits
        assert hits and modal.query_one(OptionList).option_count == len(hits)
        assert all(any(hit.snippet[a:b].lower() == "verbose" for a, b in hit.spans) for hit in hits)
        viewer = modal.query_one("#search-message", Static).render()  # the highlighted hit's message
        marked = [viewer.plain[span.start : span.end].lower() for span in viewer.spans]
        assert marked and set(marked) == {"verbose"}
        chosen = hits[0]
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, SearchModal)
        table = app.screen.query_one(PreviewTabs).table()
        assert table is not None and table.highlighted_key() == chosen.message_id


async def test_a_malformed_query_says_why_in_one_line(fake_home: dict[str, Path]) -> None:
    app = SmigApp(services=build_services(), here=HERE)
    async with app.run_test(size=(140, 44)) as pilot:
        modal = await open_search(pilot)
        await pilot.press(*'"open')
        await settle(pilot)
        assert "Unbalanced quote" in str(modal.query_one("#search-status", Static).render())
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, SearchModal)
