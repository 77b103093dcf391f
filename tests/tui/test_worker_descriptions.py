"""Opening a session starts its workers without `repr()` of the session or its plans.

Textual describes a worker by `repr()` of its arguments unless it is given a description; on a huge
session that repr (every message) blocked the UI thread for seconds before the worker even started.
"""

from __future__ import annotations

import pytest
from conftest import open_session, settle

from smig_tui.core.models import Agent, Plan, Session


async def test_plan_worker_is_described_without_repr_of_the_session(make_app, monkeypatch: pytest.MonkeyPatch) -> None:
    described: list[str] = []

    def refuse(self: object) -> str:
        described.append(type(self).__name__)
        return f"<{type(self).__name__}>"

    monkeypatch.setattr(Session, "__repr__", refuse)
    monkeypatch.setattr(Plan, "__repr__", refuse)
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        descriptions: list[str] = []
        original = app.screen.loader.run_worker

        def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
            descriptions.append(kwargs.get("description", ""))
            return original(*args, **kwargs)

        monkeypatch.setattr(app.screen.loader, "run_worker", recording)
        await open_session(pilot, lambda info: info.agent == Agent("claude"))
        assert app.screen.session is not None and app.screen.plans, "the session opened and was planned"
    assert "plan the open session" in descriptions
    assert described == [], "no worker description was built from repr() of a session or plan"


async def test_a_plan_that_fails_says_why_on_the_card_and_the_preview(make_app, monkeypatch) -> None:
    """The plan worker runs in its own widget (the loader): its failure still reaches the screen."""
    from smig_tui.core.errors import SmigError
    from smig_tui.tui import backend

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise SmigError("the tokenizer file is damaged")
        yield  # a generator, as the real one

    monkeypatch.setattr(backend, "plans_visible_first", broken)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_session(pilot, lambda info: info.agent == Agent("claude"))
        assert app.screen.plans is None and app.is_running
        assert "Cannot plan: the tokenizer file is damaged" in str(app.screen.query_one("#decision").render())
        assert any("the tokenizer file is damaged" in n.message for n in app._notifications)
