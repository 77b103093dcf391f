"""Provides the session filter box: typing filters the list, the arrow keys move through the matches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input


class FilterBox(Input):
    """An input whose Up and Down move the list's cursor, so a match is picked without leaving the box."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "move(1)", "Next match", show=False, id="filter.next"),
        Binding("up", "move(-1)", "Previous match", show=False, id="filter.previous"),
    ]

    @dataclass
    class Moved(Message):
        """The user asked for the next (1) or previous (-1) match."""

        delta: int

    def action_move(self, delta: int) -> None:
        """Ask the screen to move the list's cursor."""
        self.post_message(self.Moved(delta))
