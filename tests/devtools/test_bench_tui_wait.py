"""The TUI rows' figures end when the app handles the message that changes what they wait for: they do
not wake the app's event loop on a clock (every 5 ms, each wake took the GIL from the thread reading a
500 MB session, 0.3-0.5 s of its read in the TUI)."""

from __future__ import annotations

import asyncio

from textual.app import App
from textual.message import Message

from smig_devtools.bench_tui import IDLE_LOOK, Handled


class Counted(Message):
    """Stands for a worker's result (`SessionRead`, `PlansReady`)."""


class Waiting(App[None]):
    counted = False

    def on_counted(self, _message: Counted) -> None:
        self.counted = True


async def test_a_figure_ends_with_the_message_that_decides_it() -> None:
    handled = Handled()
    app = Waiting()
    async with app.run_test(message_hook=handled.hook) as pilot:
        await pilot.pause()
        waiting = asyncio.create_task(handled.until(lambda: app.counted, limit=10 * IDLE_LOOK))
        await asyncio.sleep(0)  # it looked once and waits
        assert not waiting.done() and handled.looks == 1
        app.post_message(Counted())
        async with asyncio.timeout(IDLE_LOOK / 2):  # woken by the message, not by its fallback look
            await waiting
        assert app.counted and handled.looks <= 5  # a look per message handled meanwhile
