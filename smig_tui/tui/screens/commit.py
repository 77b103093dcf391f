"""Provides the commit confirmation: exactly what will be written where, and which native session."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from smig_tui.services import agent_profiles


def native_choices() -> tuple[tuple[str, str], ...]:
    """Each agent a native session can be written for (the registry's) in the order a user picks among them,
    then none."""
    entries = sorted(agent_profiles(), key=lambda entry: (entry.rules.choice_rank, entry.id))
    return (*((entry.id, f"{entry.name} session") for entry in entries), ("", "No native session"))


class CommitModal(ModalScreen[set[str] | None]):
    """Confirm a commit; returns the destinations chosen, or None when cancelled.

    Focus starts on the destination list: arrows move the choice, the paths follow it, and Enter
    commits the highlighted destination, so what is read is what is written.
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Write nothing.", id="commit.cancel"),
        Binding("enter", "confirm", "Commit", tooltip="Write the files listed.", id="commit.confirm"),
    ]
    DEFAULT_CSS = """
    CommitModal { align: center middle; }
    CommitModal > Vertical {
        width: 100; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
        background: $surface; padding: 0 1;
    }
    CommitModal VerticalScroll { height: auto; max-height: 1fr; }
    CommitModal #commit-title { text-style: bold; }
    CommitModal .where { height: auto; padding: 0 0 0 2; color: $text-muted; }
    CommitModal OptionList { height: auto; margin: 1 0 0 0; }
    CommitModal Input { margin: 0 0 1 0; }
    CommitModal #commit-buttons { height: 3; align-horizontal: right; }
    CommitModal Button { margin-left: 2; }
    """

    def __init__(self, preview: Any, choices: dict[str, str], native: str, cwd: str = "") -> None:
        super().__init__()
        self._preview = preview
        self._choices = choices
        """Destination -> where it writes, from the dry run."""
        self._native = native if native in choices else ""
        self._cwd = cwd
        """The source's project folder: the native session is written for it unless changed."""
        self._labels = dict(native_choices())
        self._keys = [key for key in self._labels if not key or key in choices]
        """The destinations offered, in list order."""

    def compose(self) -> ComposeResult:
        labels = self._labels
        with Vertical():
            with VerticalScroll():
                yield Label("Commit this migration?", id="commit-title")
                yield Static(Content.from_markup("[b]Always:[/b] smig's storage record"))
                yield Static(Content(self._choices.get("store", "(storage)")), classes="where")
                yield OptionList(
                    *(Option(labels[key], id=f"native-{key or 'none'}") for key in self._keys), id="native"
                )
                yield Static("", classes="where", id="native-where")
                yield Label("Project folder to write it for (change it for a moved or cloned repo):")
                yield Input(value=self._cwd, id="cwd")
            with Horizontal(id="commit-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Commit", variant="primary", id="confirm")

    def on_mount(self) -> None:
        destinations = self.query_one("#native", OptionList)
        destinations.highlighted = self._keys.index(self._native)
        destinations.focus()
        self._show_where()

    @on(OptionList.OptionHighlighted, "#native")
    def _native_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._native = (event.option.id or "").removeprefix("native-").replace("none", "")
        self._show_where()

    @on(OptionList.OptionSelected, "#native")
    def _native_selected(self, event: OptionList.OptionSelected) -> None:
        self._native = (event.option.id or "").removeprefix("native-").replace("none", "")
        self.action_confirm()

    def _show_where(self) -> None:
        where = self._choices.get(self._native, "Only the storage record is written.")
        self.query_one("#native-where", Static).update(Content(where))

    @property
    def chosen(self) -> set[str]:
        """The destinations that would be written with the current choice."""
        return {"store", self._native} - {""}

    @property
    def landing(self) -> str | None:
        """The folder typed in the dialog when it differs from the source's, else None."""
        typed = self.query_one("#cwd", Input).value.strip()
        return typed if typed and typed != self._cwd else None

    @on(Input.Submitted, "#cwd")
    @on(Button.Pressed, "#confirm")
    def action_confirm(self) -> None:
        self.dismiss(self.chosen)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
