"""Provides the export dialog: Markdown or JSON, to the clipboard or to a file."""

from __future__ import annotations

import os
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from smig_tui.tui.screens.confirm import ConfirmModal

FORMATS = (
    ("markdown", "Markdown handoff", "md"),
    ("json", "JSON record", "json"),
    ("openai", "OpenAI chat JSON", "json"),
)


@dataclass(frozen=True, slots=True)
class ExportRequest:
    """What to export and where."""

    format: str
    """`markdown`, `json` or `openai`."""
    path: str | None
    """The file to write; None means the clipboard."""
    replace: bool = False
    """The user confirmed replacing the file that is there."""


class ExportModal(ModalScreen[ExportRequest | None]):
    """Choose a format and a destination for the migrated conversation."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Export nothing.", id="export.cancel"),
    ]
    DEFAULT_CSS = """
    ExportModal { align: center middle; }
    ExportModal > Vertical {
        width: 90; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
        background: $surface; padding: 0 1;
    }
    ExportModal #export-title { text-style: bold; }
    ExportModal RadioSet { width: 100%; margin: 1 0 0 0; }
    ExportModal Input { margin: 1 0; }
    ExportModal Horizontal { height: 3; align-horizontal: right; }
    ExportModal Button { margin-left: 2; }
    """

    def __init__(self, session_id: str, folder: str) -> None:
        super().__init__()
        self._stem = f"smig-{session_id[:8]}"
        self._folder = folder

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Export the migrated conversation", id="export-title")
            with RadioSet(id="format"):
                for index, (key, label, _) in enumerate(FORMATS):
                    yield RadioButton(label, value=index == 0, id=f"format-{key}")
            with RadioSet(id="dest"):
                yield RadioButton("File", value=True, id="dest-file")
                yield RadioButton("Clipboard", id="dest-clipboard")
            yield Input(self._path_for("markdown"), id="export-path")
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button("Export", variant="primary", id="confirm")

    def _path_for(self, format_key: str) -> str:
        suffix = next(ext for key, _, ext in FORMATS if key == format_key)
        return os.path.join(self._folder, f"{self._stem}.{suffix}")

    @property
    def format(self) -> str:
        """The chosen format key."""
        pressed = self.query_one("#format", RadioSet).pressed_button
        return (pressed.id or "format-markdown").removeprefix("format-") if pressed else "markdown"

    @on(RadioSet.Changed, "#format")
    def _format_changed(self) -> None:
        path = self.query_one("#export-path", Input)
        stem, _ = os.path.splitext(path.value)
        suffix = self._path_for(self.format).rsplit(".", 1)[1]
        path.value = f"{stem}.{suffix}"

    @on(RadioSet.Changed, "#dest")
    def _dest_changed(self, event: RadioSet.Changed) -> None:
        self.query_one("#export-path", Input).disabled = event.pressed.id == "dest-clipboard"

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#confirm")
    def action_confirm(self) -> None:
        to_clipboard = self.query_one("#dest-clipboard", RadioButton).value
        path = None if to_clipboard else os.path.expanduser(self.query_one("#export-path", Input).value)
        if path is None:
            self.dismiss(ExportRequest(self.format, None))
            return
        if not path.strip():
            self.notify("Give a file name, or choose the clipboard.", severity="warning")
            return
        if os.path.isdir(path) or (os.path.lexists(path) and not os.path.isfile(path)):
            self.notify(f"{path} is not a regular file: give a file name.", severity="warning")
            return
        if os.path.lexists(path):
            question = f"{path} already exists. Replace it with this export?"
            self.app.push_screen(ConfirmModal(question), lambda yes: self._replace_answered(path, yes))
            return
        self.dismiss(ExportRequest(self.format, path))

    def _replace_answered(self, path: str, yes: bool | None) -> None:
        if yes:
            self.dismiss(ExportRequest(self.format, path, replace=True))
        else:
            self.query_one("#export-path", Input).focus()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
