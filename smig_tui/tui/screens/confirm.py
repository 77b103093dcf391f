"""Provides a yes/no question, for the rare step that would replace something."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmModal(ModalScreen[bool]):
    """Ask one question; True only when the user chooses the named action."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", "Keep", tooltip="Change nothing.", id="confirm.no"),
        Binding("y", "answer(True)", "Replace", tooltip="Go ahead.", id="confirm.yes"),
    ]
    DEFAULT_CSS = """
    ConfirmModal { align: center middle; }
    ConfirmModal > Vertical {
        width: 70; max-width: 100%; height: auto; max-height: 100%; border: thick $warning;
        background: $surface; padding: 0 1;
    }
    ConfirmModal VerticalScroll { height: auto; max-height: 1fr; }
    ConfirmModal #question { height: auto; padding: 1 0; }
    ConfirmModal Horizontal { height: 3; align-horizontal: right; }
    ConfirmModal Button { margin-left: 2; }
    """

    def __init__(self, question: str, yes: str = "Replace", no: str = "Cancel") -> None:
        super().__init__()
        self._question, self._yes, self._no = question, yes, no

    def compose(self) -> ComposeResult:
        with Vertical():
            with VerticalScroll(can_focus=False):
                yield Static(Content(self._question), id="question")
            with Horizontal():
                yield Button(f"{self._no} (n)", id="no")
                yield Button(f"{self._yes} (y)", variant="warning", id="yes")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # the safe answer is the default

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
