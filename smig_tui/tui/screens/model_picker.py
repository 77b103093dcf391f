"""Provides the searchable list of target models with their windows, recent choices first."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from smig_tui.core.models import ModelCapacity
from smig_tui.services import profile_of


@dataclass(frozen=True, slots=True)
class Columns:
    """Which text columns the picker's rows show at its width; the name and the figures always do."""

    name: int
    """Cells for the widest model name (never cut)."""
    status: bool
    provider: bool
    agent_name: bool
    """The in-agent window is labelled with its agent (`Codex 258,400`)."""
    retired_date: bool

    @classmethod
    def fitting(cls, models: list[ModelCapacity], width: int) -> Columns:
        """The most text columns that fit `width` cells beside the name and the three figures."""
        name = max((len(capacity.name) for capacity in models), default=10) + 2  # 2: the recent mark
        room = width - (name + FIGURES)
        shown: list[bool] = []
        for cells in (STATUS, PROVIDER, AGENT_NAME, RETIRED_DATE):  # each only with the ones before it
            fits = (not shown or shown[-1]) and room >= cells
            room -= cells if fits else 0
            shown.append(fits)
        return cls(name, *shown)


FIGURES = 2 + 10 + 2 + 9 + 2 + 7
"""The window, the in-agent window and the output limit, right-aligned with two spaces before each."""
STATUS, PROVIDER, AGENT_NAME, RETIRED_DATE = 9, 11, 13, 11
"""Cells each text column takes when it shows (the agent's name and the retirement date widen others)."""


def _agent_window(capacity: ModelCapacity, named: bool) -> str:
    """The window the plan's budget starts from: what the model's home agent lets a conversation fill."""
    usable = capacity.harness_window or (capacity.agents[0].usable if capacity.agents else None)
    if usable is None:
        return "—"
    if named and capacity.agents:
        entry = profile_of(capacity.agents[0].agent)
        return f"{entry.name if entry else capacity.agents[0].agent} {usable:,}"
    return f"{usable:,}"


def model_label(capacity: ModelCapacity, recent: bool, columns: Columns) -> Text:
    """One row: the name whole, its status and provider when there is room, then the three windows whole."""
    label = Text()
    label.append("★ " if recent else "  ", style="italic")
    label.append(f"{capacity.name:<{columns.name - 2}}", style="bold")
    if columns.status:
        status = capacity.status
        if status == "retired" and capacity.retired and columns.retired_date:
            status = f"retired {capacity.retired}"
        label.append(f"  {status:<{STATUS - 2 + (RETIRED_DATE if columns.retired_date else 0)}}", style="dim")
    if columns.provider:
        label.append(f"  {capacity.provider:<{PROVIDER - 2}}", style="dim")
    label.append(f"  {capacity.context_window:>10,}")
    agent_width = 9 + (AGENT_NAME if columns.agent_name else 0)
    label.append(f"  {_agent_window(capacity, columns.agent_name):>{agent_width}}", style="bold")
    label.append(f"  {capacity.max_output:>7,}", style="dim")
    return label


def header_label(columns: Columns) -> Text:
    """The column titles, aligned with `model_label`'s cells."""
    label = Text(style="bold")
    label.append(f"  {'model':<{columns.name - 2}}")
    if columns.status:
        label.append(f"  {'status':<{STATUS - 2 + (RETIRED_DATE if columns.retired_date else 0)}}")
    if columns.provider:
        label.append(f"  {'provider':<{PROVIDER - 2}}")
    label.append(f"  {'window':>10}")
    label.append(f"  {'in agent':>{9 + (AGENT_NAME if columns.agent_name else 0)}}")
    label.append(f"  {'out':>7}")
    return label


def ordered(models: list[ModelCapacity], recent: list[str], query: str) -> list[ModelCapacity]:
    """The models matching every word of `query`: recent choices first, then in table order."""
    terms = query.lower().split()

    def hit(capacity: ModelCapacity) -> bool:
        haystack = " ".join((capacity.name, capacity.provider, *capacity.aliases)).lower()
        return all(term in haystack for term in terms)

    rank = {name: position for position, name in enumerate(recent)}
    found = [(position, capacity) for position, capacity in enumerate(models) if hit(capacity)]
    found.sort(key=lambda pair: (rank.get(pair[1].name, len(rank)), pair[0]))
    return [capacity for _, capacity in found]


class ModelPickerModal(ModalScreen[str | None]):
    """Pick the model the conversation will continue in."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Keep the current target.", id="picker.cancel"),
        Binding("down", "cursor_down", "Down", show=False, id="picker.down"),
        Binding("up", "cursor_up", "Up", show=False, id="picker.up"),
    ]
    DEFAULT_CSS = """
    ModelPickerModal { align: center middle; }
    ModelPickerModal > Vertical {
        width: 100%; max-width: 110; height: 100%; max-height: 40; border: thick $primary;
        background: $surface; padding: 0 1;
    }
    ModelPickerModal OptionList { height: 1fr; border: none; padding: 0; }
    ModelPickerModal #picker-title { text-style: bold; height: auto; }
    ModelPickerModal #picker-note { color: $text-muted; height: auto; }
    ModelPickerModal #picker-header { height: 1; }
    """

    def __init__(self, models: list[ModelCapacity], recent: list[str], current: str | None) -> None:
        super().__init__()
        self._models = models
        self._recent = recent
        self._current = current
        self._columns = Columns.fitting(models, 0)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Target model (now: {self._current or 'none'})", id="picker-title")
            yield Input(placeholder="Type to search models, providers, aliases…", id="picker-query")
            yield Static(
                "window: the API's · in agent: what its agent lets a conversation fill, where the plan's"
                " budget starts · ★ recent",
                id="picker-note",
            )
            yield Static("", id="picker-header")
            yield OptionList(id="picker-list")

    def on_mount(self) -> None:
        self._fill("")

    def on_resize(self) -> None:
        """Show as many text columns as the width holds (the figures always)."""
        columns = Columns.fitting(self._models, self.query_one(OptionList).content_region.width)
        if columns != self._columns:
            self._columns = columns
            self._fill(self.query_one(Input).value)

    @on(Input.Changed, "#picker-query")
    def _search(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def _fill(self, query: str) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        recent = set(self._recent)
        self.query_one("#picker-header", Static).update(header_label(self._columns))
        options.add_options(
            Option(model_label(capacity, capacity.name in recent, self._columns), id=capacity.name)
            for capacity in ordered(self._models, self._recent, query)
        )
        if options.option_count:
            options.highlighted = 0

    @on(Input.Submitted, "#picker-query")
    def _submit(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self.dismiss(options.get_option_at_index(options.highlighted).id)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cursor_down(self) -> None:
        self.query_one(OptionList).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.query_one(OptionList).action_cursor_up()

    def action_cancel(self) -> None:
        self.dismiss(None)
