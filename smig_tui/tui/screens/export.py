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

FORMATS = (("markdown", "Markdown handoff", "md"), ("json", "JSON record", "json"), ("openai", "OpenAI chat JSON", "json"))


@dataclass(frozen=True, slots=True)
class ExportRequest:
    """What to export and where."""

    format: str
    """`markdown`, `json` or `openai`."""
    path: str | None
    """The file to write; None means the clipboard."""


class ExportModal(ModalScreen[ExportRequest | None]):
    """Choose a format and a destination for the migrated conversation."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Export nothing.", id="export.cancel"),
    ]
    DEFAULT_CSS = """
    ExportModal { align: center middle; }
    ExportModal > Vertical {
        width: 90; height: auto; border: thick $primary; background: $surface; padding: 1 2;
    }
    ExportModal #export-title { text-style: bold; }
    ExportModal RadioSet { width: 100%; margin: 1 0 0 0; }
    ExportModal Input { margin: 1 0; }
    ExportModal Horizontal { height: auto; align-horizontal: right; }
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
                yield RadioButton("Clipboard (OSC 52)", id="dest-clipboard")
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
        if path is not None and not path.strip():
            self.notify("Give a file name, or choose the clipboard.", severity="warning")
            return
        self.dismiss(ExportRequest(self.format, path))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
