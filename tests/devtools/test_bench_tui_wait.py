"""The TUI rows' figures end when the app handles the message that changes what they wait for: they do
not wake the app's event loop on a clock (every 5 ms, each wake took the GIL from the thread reading a
500 MB session, 0.3-0.5 s of its read in the TUI)."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App
from textual.message import Message

from smig_devtools import bench_tui
from smig_devtools.bench_tui import Handled

HANG_GUARD = 600.0
"""Seconds: only stops a hang (tests/test_no_wall_clock.py)."""


class Counted(Message):
    """Stands for a worker's result (`SessionRead`, `PlansReady`)."""


class Waiting(App[None]):
    counted = False

    def on_counted(self, _message: Counted) -> None:
        self.counted = True


async def test_a_figure_ends_with_the_message_that_decides_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """With its fallback look an hour away, the figure still ends: the message woke it."""
    monkeypatch.setattr(bench_tui, "IDLE_LOOK", 3600.0)
    handled = Handled()
    app = Waiting()
    async with app.run_test(message_hook=handled.hook) as pilot:
        waiting = asyncio.create_task(handled.until(lambda: app.counted))
        await pilot.pause()  # it looked, and looks again only as messages come
        assert not waiting.done() and handled.looks >= 1
        before = handled.looks
        app.post_message(Counted())
        await asyncio.wait_for(waiting, timeout=HANG_GUARD)
        assert app.counted and handled.looks - before <= 3  # a look per message handled meanwhile
