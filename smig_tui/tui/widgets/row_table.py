"""Provides a row-cursor table whose Home and End move the cursor, as a list's do."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable


class RowTable(DataTable[Text | str]):
    """A `DataTable` of rows: Home and End go to the first and last row (DataTable's own scroll sideways)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "first_row", "First", show=False, tooltip="The first row.", id="table.first"),
        Binding("end", "last_row", "Last", show=False, tooltip="The last row.", id="table.last"),
    ]

    def action_first_row(self) -> None:
        """Home: the first row."""
        if self.row_count:
            self.move_cursor(row=0, scroll=True)

    def action_last_row(self) -> None:
        """End: the last row."""
        if self.row_count:
            self.move_cursor(row=self.row_count - 1, scroll=True)
