"""Provides the commit confirmation: exactly what will be written where, and which native session."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

NATIVE_CHOICES = (("claude", "Claude Code session"), ("codex", "Codex session"), ("opencode", "OpenCode session"),
                  ("", "No native session"))


class CommitModal(ModalScreen[set[str] | None]):
    """Confirm a commit; returns the destinations chosen, or None when cancelled."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Write nothing.", id="commit.cancel"),
        Binding("enter", "confirm", "Commit", tooltip="Write the files listed.", id="commit.confirm"),
    ]
    DEFAULT_CSS = """
    CommitModal { align: center middle; }
    CommitModal > Vertical {
        width: 100; height: auto; max-height: 90%; border: thick $primary;
        background: $surface; padding: 1 2;
    }
    CommitModal #commit-title { text-style: bold; }
    CommitModal .where { height: auto; padding: 0 0 0 2; color: $text-muted; }
    CommitModal RadioSet { width: 100%; margin: 1 0; }
    CommitModal Horizontal { height: auto; align-horizontal: right; }
    CommitModal Button { margin-left: 2; }
    """

    def __init__(self, preview: Any, choices: dict[str, str], native: str, cwd: str = "") -> None:
        super().__init__()
        self._cwd = cwd
        """The source's project folder: the native session is written for it unless changed."""
        self._preview = preview
        self._choices = choices
        """Destination -> where it writes, from the dry run."""
        self._native = native if native in choices else ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Commit this migration?", id="commit-title")
            yield Static(Content.from_markup("[b]Always:[/b] smig's storage record"))
            yield Static(Content(self._choices.get("store", "(storage)")), classes="where")
            with RadioSet(id="native"):
                for key, label in NATIVE_CHOICES:
                    if key and key not in self._choices:
                        continue
                    yield RadioButton(label, value=key == self._native, id=f"native-{key or 'none'}")
            yield Static("", classes="where", id="native-where")
            yield Label("Project folder the session is written for (change it for a moved or cloned repository):")
            yield Input(value=self._cwd, id="cwd")
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button("Commit", variant="primary", id="confirm")

    def on_mount(self) -> None:
        self._show_where()
        self.query_one("#confirm", Button).focus()

    @on(RadioSet.Changed)
    def _native_changed(self, event: RadioSet.Changed) -> None:
        button_id = event.pressed.id or ""
        self._native = button_id.removeprefix("native-").replace("none", "")
        self._show_where()

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
