"""The migration actions are a widget that owns its workers: one that fails unexpectedly ends in a notice."""

from __future__ import annotations

import pytest
from conftest import open_session, settle
from fake_llm_server import FakeLLM, llm_server_fixture  # noqa: F401 - fixture

from smig_tui.core.models import Agent
from smig_tui.tui import backend
from smig_tui.tui.screens.browse import BrowseScreen
from smig_tui.tui.screens.migrate_actions import MigrateActions
from smig_tui.tui.widgets.preview_tabs import PreviewTabs


def _summarizer_config(isolated_homes, llm_server: FakeLLM) -> None:
    config = isolated_homes["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[summarizer]\nprovider = "local"\nbase_url = "{llm_server.url}"\nmodel = "test-model"\n', encoding="utf-8"
    )


async def test_a_summary_that_crashes_stops_streaming_and_says_why(
    make_app, isolated_homes, llm_server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    _summarizer_config(isolated_homes, llm_server)

    def crash(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("the summarizer fell over")

    monkeypatch.setattr(backend, "summarize", crash)
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda info: info.agent == Agent("codex"))
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        assert len(screen.query(MigrateActions)) == 1  # mounted once, owning the actions' workers
        await pilot.press("3")
        await settle(pilot)
        pane = screen.query_one(PreviewTabs).summary_pane()
        assert pane is not None
        await pilot.press("s")
        await settle(pilot)
        assert not pane.streaming  # not "writing…" forever
        errors = [n.message for n in app._notifications if n.severity == "error"]
        assert any("the summarizer fell over" in message for message in errors), errors
        assert app.screen is screen and not llm_server.requests
