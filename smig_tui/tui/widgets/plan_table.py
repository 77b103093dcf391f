"""Provides the kept-versus-dropped view of a plan, one row per message, virtualised by DataTable."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist

from smig_tui.core.models import Message, Plan, PlanItem

PLACEHOLDER_KEY = "smig-placeholder"
COLUMNS = ("", "#", "role", "kind", "tokens", "why", "text")


def _flat(text: str, width: int = 60) -> str:
    """One line of a message, whitespace collapsed."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class PlanTable(DataTable[Text | str]):
    """Every message with its fate: kept (+), pinned (📌), shortened (~) or dropped (−)."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.plan: Plan | None = None
        """The plan on show."""
        self.pins: frozenset[str] = frozenset()
        """Ids of pinned messages, marked in the first column."""

    def on_mount(self) -> None:
        self.add_columns(*COLUMNS)

    def show_plan(self, plan: Plan, pins: frozenset[str]) -> None:
        """Replace the rows, keeping the cursor on the same message."""
        key = self.highlighted_key()
        self.plan, self.pins = plan, pins
        self.clear()
        colours = self.app.theme_variables
        if plan.placeholder:
            note = Text(_flat(plan.placeholder, 140), style=f"italic {colours.get('warning', '')}")
            self.add_row(Text("⋯", style="bold"), "", "user", "note", "", "placeholder", note,
                         key=PLACEHOLDER_KEY)
        if plan.summary:
            self.add_row(Text("Σ", style="bold"), "", "user", "summary", "", "summary",
                         _flat(plan.summary, 140), key="smig-summary")
        self.add_rows_keyed(plan.items, colours)
        if key is not None and key in self.rows:
            self.move_cursor(row=self.get_row_index(key))

    def add_rows_keyed(self, items: tuple[PlanItem, ...], colours: dict[str, str]) -> None:
        """Add one styled row per plan item."""
        kept_colour, drop_colour = colours.get("success", "green"), colours.get("error", "red")
        for item in items:
            message = item.message
            pinned = message.id in self.pins
            if not item.kept:
                marker, style = Text("−", style=f"bold {drop_colour}"), "dim strike"
            elif pinned:
                marker, style = Text("📌"), ""
            elif item.text is not None:
                marker, style = Text("~", style=f"bold {colours.get('warning', 'yellow')}"), ""
            else:
                marker, style = Text("+", style=f"bold {kept_colour}"), ""
            text = item.text if item.text is not None else message.text
            self.add_row(
                marker,
                str(message.index),
                message.role.value,
                message.kind.value,
                Text(f"{item.tokens:,}", justify="right"),
                item.reason,
                Text(_flat(text), style=style),
                key=message.id,
            )

    def highlighted_key(self) -> str | None:
        """The row key under the cursor."""
        if not self.row_count:
            return None
        try:
            return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        except CellDoesNotExist:
            return None

    def highlighted_message(self) -> Message | None:
        """The source message under the cursor (None on the placeholder row)."""
        key = self.highlighted_key()
        if self.plan is None or key is None:
            return None
        for item in self.plan.items:
            if item.message.id == key:
                return item.message
        return None
