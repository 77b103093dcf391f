"""Provides a row-cursor table whose Home and End move the cursor, as a list's do."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.strip import Strip
from textual.widgets import DataTable


class RowTable(DataTable[Text | str]):
    """A `DataTable` of rows: Home and End go to the first and last row (DataTable's own scroll sideways)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "first_row", "First", show=False, tooltip="The first row.", id="table.first"),
        Binding("end", "last_row", "Last", show=False, tooltip="The last row.", id="table.last"),
    ]

    def render_line(self, y: int) -> Strip:
        """A line without the empty, unstyled piece a column of width 0 leaves: with NO_COLOR set,
        Textual's monochrome filter reads every piece's style and stopped the app on that one."""
        strip = super().render_line(y)
        if all(segment.style is not None for segment in strip):
            return strip
        return Strip([segment for segment in strip if segment.style is not None or segment.text], strip.cell_length)

    def action_first_row(self) -> None:
        """Home: the first row."""
        if self.row_count:
            self.move_cursor(row=0, scroll=True)

    def action_last_row(self) -> None:
        """End: the last row."""
        if self.row_count:
            self.move_cursor(row=self.row_count - 1, scroll=True)
