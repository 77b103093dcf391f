"""Provides the kept-versus-dropped view of a plan, one row per message, virtualised by DataTable."""

from __future__ import annotations

from typing import NamedTuple

from rich.console import JustifyMethod
from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist

from smig_tui.core.models import Message, Plan, PlanItem, PlanItems
from smig_tui.tui.widgets.row_table import RowTable

PLACEHOLDER_KEY = "smig-placeholder"
SUMMARY_KEY = "smig-summary"
COLUMNS = (("", 2), ("#", 5), ("role", 10), ("kind", 12), ("tokens", 9), ("text", 40), ("why", 18))
"""Column labels and starting widths; the figures' columns follow the plan, `text` the table's width."""
CHUNK = 80
"""Rows added at a time: DataTable measures every cell it is given, so rows arrive as you scroll."""


class Layout(NamedTuple):
    """One way to share the table's width: padding, which text columns show, and the room the text needs."""

    padding: int
    role: int
    why: int
    min_text: int


LAYOUTS = (
    Layout(1, 10, 24, 40),  # every column, the longest reason ("injected harness context") whole
    Layout(1, 10, 18, 30),
    Layout(0, 10, 17, 30),
    Layout(0, 0, 17, 24),  # the kind says most of what the role does (and the viewer, Enter, says all)
    Layout(0, 0, 0, 16),
    Layout(0, 0, 0, 0),
)
"""Tried in order until the message text gets its room: text columns give way, the figures never do."""


def column_widths(width: int, index_width: int, tokens_width: int) -> tuple[int, list[int]]:
    """The cell padding and each column's width for a table `width` cells wide.

    The marker, `#` and `tokens` columns are as wide as the plan's largest figures, so no number is
    ever cut; `role` and `why` shrink or go (0) before the text gets less than its room.
    """
    for layout in LAYOUTS:
        fixed = [2, index_width, layout.role, 12, tokens_width]
        padding = 2 * layout.padding * len(COLUMNS)
        text = width - sum(fixed) - layout.why - padding
        if text >= layout.min_text:
            return layout.padding, [*fixed, text, layout.why]
    return 0, [2, index_width, 0, 12, tokens_width, max(1, width - 16 - index_width - tokens_width), 0]


def _flat(text: str, width: int = 300) -> str:
    """One line of a message, whitespace collapsed."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _cell(text: str, style: str = "", justify: JustifyMethod | None = None) -> Text:
    """A ready one-line cell: DataTable would otherwise parse plain strings as markup on every
    render, and wrap Text it is given."""
    return Text(text, style=style, justify=justify, no_wrap=True, end="")


def figure_widths(plan: Plan) -> tuple[int, int]:
    """The cells the `#` and `tokens` columns need for this plan's largest index and count (`≈` and a space)."""
    items = plan.items
    index = items[-1].message.index if len(items) else 0
    if isinstance(items, PlanItems):
        most = items.largest()
    else:
        most = max((item.original_tokens or item.tokens for item in items), default=0)
    return max(2, len(str(index)) + 1), max(len("tokens") + 1, len(f"≈{most:,}") + 1)


class PlanTable(RowTable):
    """Every message with its fate: kept (+), pinned (📌), shortened (~) or dropped (−)."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.plan: Plan | None = None
        """The plan on show."""
        self.pins: frozenset[str] = frozenset()
        """Ids of pinned messages, marked in the first column."""
        self._added = 0
        """Plan items added as rows so far (the rest are built and added as the table scrolls)."""
        self._first_item_row = 0
        """The row of the plan's first item (after the note and summary rows)."""
        self.estimated: frozenset[str] = frozenset()
        """Ids of messages whose tokens are a length guess."""
        self.exact = True
        """False when every count is the labelled estimate (no tokenizer, or a calibration)."""
        self._figure_widths = (4, len("tokens") + 1)
        """The widths of the `#` and `tokens` columns: the plan's largest index and count, whole."""

    def on_mount(self) -> None:
        for label, width in COLUMNS:
            self.add_column(label, width=width)

    def on_resize(self) -> None:
        self.fit_columns()

    def fit_columns(self) -> None:
        """Share the width out (see `column_widths`): figures whole, the text as wide as it can be."""
        if len(self.columns) != len(COLUMNS):
            return
        index_width, tokens_width = self._figure_widths
        # 2: the vertical scrollbar's gutter; cells end in a space, so columns stay apart without padding
        padding, widths = column_widths(self.size.width - 2, index_width, tokens_width)
        columns = list(self.columns.values())
        if [column.width for column in columns] != widths or self.cell_padding != padding:
            self.cell_padding = padding
            for column, width in zip(columns, widths, strict=True):
                column.width = width
            self._require_update_dimensions = True
            self.refresh()

    def action_last_row(self) -> None:
        """End: the last message, its rows added first (they arrive in chunks as the table scrolls)."""
        while self._pending:
            self.add_more()
        super().action_last_row()

    def show_plan(
        self, plan: Plan, pins: frozenset[str], estimated: frozenset[str] = frozenset(), exact: bool = True
    ) -> None:
        """Replace the rows, keeping the cursor on the same message; guessed counts read `≈`."""
        key = self.highlighted_key()
        self.plan, self.pins = plan, pins
        self.estimated, self.exact = estimated, exact
        self.clear()
        self._figure_widths = figure_widths(plan)
        self.fit_columns()
        colours = self.app.theme_variables
        if plan.placeholder:
            note = Text(_flat(plan.placeholder, 140), style=f"italic {colours.get('warning', '')}")
            self.add_row(Text("⋯", style="bold"), "", "user", "note", "", note, " placeholder", key=PLACEHOLDER_KEY)
        if plan.summary:
            self.add_row(
                Text("Σ", style="bold"),
                "",
                "user",
                "summary",
                "",
                _flat(plan.summary, 140),
                " summary",
                key=SUMMARY_KEY,
            )
        self._added, self._first_item_row = 0, self.row_count
        self.add_more()
        while key is not None and key not in self.rows and self._pending:
            self.add_more()
        if key is not None and key in self.rows:
            self.move_cursor(row=self.get_row_index(key))

    def forget(self) -> None:
        """Show no plan: no rows now, and none of the old plan's arriving on scroll."""
        self.clear()
        self.plan, self._added = None, 0

    @property
    def _pending(self) -> bool:
        """Whether the plan has items not added as rows yet."""
        return self.plan is not None and self._added < len(self.plan.items)

    def add_more(self) -> None:
        """Add the next chunk of rows."""
        if self.plan is None:
            return
        chunk = self.plan.items[self._added : self._added + CHUNK]
        self._added += len(chunk)
        self.add_rows_keyed(tuple(chunk), self.app.theme_variables)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._pending and new_value >= self.max_scroll_y - self.size.height:
            self.add_more()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self._pending and event.cursor_row >= self.row_count - self.size.height:
            self.add_more()

    def add_rows_keyed(self, items: tuple[PlanItem, ...], colours: dict[str, str]) -> None:
        """Add one styled row per plan item."""
        kept_colour, drop_colour = colours.get("success", "green"), colours.get("error", "red")
        for item in items:
            message = item.message
            pinned = message.id in self.pins
            if not item.kept:
                marker, style = _cell("−", f"bold {drop_colour}"), "dim strike"
            elif pinned:
                marker, style = _cell("📌"), ""
            elif item.text is not None:
                marker, style = _cell("~", f"bold {colours.get('warning', 'yellow')}"), ""
            else:
                marker, style = _cell("+", f"bold {kept_colour}"), ""
            text = item.text if item.text is not None else message.head(240)  # a stored text stays on disk
            self.add_row(
                marker,
                _cell(f"{message.index} "),
                _cell(f"{message.role.value} "),
                _cell(f"{message.kind.value} "),
                _cell(
                    ("" if self.exact and message.id not in self.estimated else "≈") + f"{item.tokens:,} ",
                    justify="right",
                ),
                _cell(" " + _flat(text), style),  # a space after the right-aligned tokens
                _cell(" " + item.reason),
                key=message.id,
            )

    def show_message(self, message_id: str) -> bool:
        """Move the cursor to a message's row (adding the rows before it); False if the plan has none."""
        while message_id not in self.rows and self._pending:
            self.add_more()
        if message_id not in self.rows:
            return False
        self.move_cursor(row=self.get_row_index(message_id), scroll=True)
        return True

    def highlighted_key(self) -> str | None:
        """The row key under the cursor."""
        if not self.row_count:
            return None
        try:
            return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        except CellDoesNotExist:
            return None

    def highlighted_item(self) -> PlanItem | None:
        """The plan item under the cursor (None on the placeholder or summary row), found by its row."""
        key = self.highlighted_key()
        if self.plan is None or key is None or key not in self.rows:
            return None
        index = self.get_row_index(key) - self._first_item_row  # rows follow the items, in order
        if not 0 <= index < self._added:
            return None
        item = self.plan.items[index]
        return item if item.message.id == key else None

    def highlighted_message(self) -> Message | None:
        """The source message under the cursor (None on the placeholder row)."""
        item = self.highlighted_item()
        return item.message if item is not None else None
