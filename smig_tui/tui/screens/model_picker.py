"""Provides the searchable list of target models with their windows, recent choices first."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from smig_tui.core.models import ModelCapacity


def model_label(capacity: ModelCapacity, recent: bool) -> Text:
    """One row: name, provider, window, output limit."""
    label = Text()
    label.append(f"{capacity.name:<34}", style="bold")
    label.append(f"{capacity.provider:<12}", style="dim")
    label.append(f"window {capacity.context_window:>10,}  ")
    label.append(f"out {capacity.max_output:>8,}", style="dim")
    if recent:
        label.append("  recent", style="italic")
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
        width: 90; height: 80%; border: thick $primary; background: $surface; padding: 0 1;
    }
    ModelPickerModal OptionList { height: 1fr; border: none; }
    ModelPickerModal #picker-title { text-style: bold; padding: 0 0 1 0; }
    """

    def __init__(self, models: list[ModelCapacity], recent: list[str], current: str | None) -> None:
        super().__init__()
        self._models = models
        self._recent = recent
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Target model (now: {self._current or 'none'})", id="picker-title")
            yield Input(placeholder="Type to search models, providers, aliases…", id="picker-query")
            yield OptionList(id="picker-list")

    def on_mount(self) -> None:
        self._fill("")

    @on(Input.Changed, "#picker-query")
    def _search(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def _fill(self, query: str) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        recent = set(self._recent)
        options.add_options(
            Option(model_label(capacity, capacity.name in recent), id=capacity.name)
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
