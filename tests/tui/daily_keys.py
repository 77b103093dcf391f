"""Keys pressed one at a time and widgets read as text: how the daily-path tests drive the TUI."""

from __future__ import annotations

from conftest import settle


class Keys:
    """Presses keys one at a time, letting every worker finish between them, and counts them."""

    def __init__(self, pilot) -> None:
        self.pilot = pilot
        self.count = 0

    async def __call__(self, *keys: str) -> None:
        for key in keys:
            await self.pilot.press(key)
            self.count += 1
            await settle(self.pilot)


def text_of(widget) -> str:
    return " ".join(str(widget.render()).split())
