"""Provides the export dialog: Markdown or JSON, to the clipboard or to a file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

from smig_tui.tui.backend import shown
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


def highlighted(radio_set: RadioSet) -> RadioButton | None:
    """The button under a radio set's cursor (what Enter there means), else the pressed one."""
    index = radio_set._selected  # the cursor; Textual keeps no public name for it
    buttons = list(radio_set.query(RadioButton))
    if radio_set.has_focus and index is not None and 0 <= index < len(buttons):
        return buttons[index]
    return radio_set.pressed_button


class ExportModal(ModalScreen[ExportRequest | None]):
    """Choose a format and a destination for the migrated conversation.

    Enter exports from anywhere in the dialog (what a radio list's cursor is on counts as chosen), `c`
    and `f` pick the clipboard or a file, Escape cancels: Tab never lands on Cancel.
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Export nothing.", id="export.cancel"),
        Binding("enter", "confirm", "Export", tooltip="Export as chosen.", id="export.confirm", priority=True),
        Binding("c", "destination('clipboard')", "Clipboard", tooltip="Export to the clipboard.", id="export.clip"),
        Binding("f", "destination('file')", "File", tooltip="Export to the file named below.", id="export.file"),
    ]
    DEFAULT_CSS = """
    ExportModal { align: center middle; }
    ExportModal > Vertical {
        width: 100%; max-width: 90; height: auto; max-height: 100%; border: thick $primary;
        background: $surface; padding: 0 1;
    }
    ExportModal #export-title { text-style: bold; }
    ExportModal #export-keys { color: $text-muted; height: auto; }
    ExportModal RadioSet { width: 100%; margin: 0; }
    ExportModal Input { margin: 0; }
    ExportModal #export-whole { color: $text-muted; height: auto; display: none; }
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
            yield Static("c clipboard · f file · Enter exports · Escape cancels", id="export-keys")
            with RadioSet(id="format"):
                for index, (key, label, _) in enumerate(FORMATS):
                    yield RadioButton(label, value=index == 0, id=f"format-{key}")
            with RadioSet(id="dest"):
                yield RadioButton("File", value=True, id="dest-file")
                yield RadioButton("Clipboard", id="dest-clipboard")
            yield Input(self._path_for("markdown"), id="export-path")
            yield Static("", id="export-whole")
            with Horizontal():
                cancel = Button("Cancel (Esc)", id="cancel")
                cancel.can_focus = False  # Tab never lands on it: Enter always exports, Escape cancels
                yield cancel
                yield Button("Export (Enter)", variant="primary", id="confirm")

    def on_mount(self) -> None:
        self.query_one("#format", RadioSet).focus()
        self.call_after_refresh(self._show_whole)

    def on_resize(self) -> None:
        self.call_after_refresh(self._show_whole)

    @on(Input.Changed, "#export-path")
    def _show_whole(self) -> None:
        """A path longer than its field is also shown whole below it (the field scrolls, a path is never cut)."""
        field = self.query_one("#export-path", Input)
        whole = self.query_one("#export-whole", Static)
        room = field.content_region.width - 1  # the cursor's cell after the last character
        long = not field.disabled and room > 0 and len(field.value) > room
        if long:
            whole.update(Text(field.value, overflow="fold"))
        whole.display = long

    def _path_for(self, format_key: str) -> str:
        suffix = next(ext for key, _, ext in FORMATS if key == format_key)
        return os.path.join(self._folder, f"{self._stem}.{suffix}")

    @property
    def format(self) -> str:
        """The chosen format key."""
        pressed = highlighted(self.query_one("#format", RadioSet))
        return (pressed.id or "format-markdown").removeprefix("format-") if pressed else "markdown"

    def action_destination(self, where: str) -> None:
        """Pick the clipboard or a file (`c`, `f`)."""
        self.query_one(f"#dest-{where}", RadioButton).value = True

    @on(RadioSet.Changed, "#format")
    def _format_changed(self) -> None:
        self._set_suffix(self.format)

    def _set_suffix(self, format_key: str) -> None:
        """Give the file name the chosen format's extension."""
        path = self.query_one("#export-path", Input)
        stem, _ = os.path.splitext(path.value)
        suffix = self._path_for(format_key).rsplit(".", 1)[1]
        path.value = f"{stem}.{suffix}"

    @on(RadioSet.Changed, "#dest")
    def _dest_changed(self, event: RadioSet.Changed) -> None:
        self.query_one("#export-path", Input).disabled = event.pressed.id == "dest-clipboard"
        self._show_whole()

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#confirm")
    def action_confirm(self) -> None:
        fmt = self.format
        if self.query_one("#format", RadioSet).has_focus:  # Enter on a format: that one, pressed and named
            self.query_one(f"#format-{fmt}", RadioButton).value = True
            self._set_suffix(fmt)
        destination = highlighted(self.query_one("#dest", RadioSet))
        to_clipboard = destination is not None and destination.id == "dest-clipboard"
        path = None if to_clipboard else os.path.expanduser(self.query_one("#export-path", Input).value)
        if path is None:
            self.dismiss(ExportRequest(fmt, None))
            return
        if not path.strip():
            self.notify("Give a file name, or choose the clipboard.", severity="warning")
            return
        if os.path.isdir(path) or (os.path.lexists(path) and not os.path.isfile(path)):
            self.notify(f"{path} is not a regular file: give a file name.", severity="warning")
            return
        if os.path.lexists(path):
            question = f"{shown(Path(path))} already exists. Replace it with this export?"
            self.app.push_screen(ConfirmModal(question), lambda yes: self._replace_answered(fmt, path, yes))
            return
        self.dismiss(ExportRequest(fmt, path))

    def _replace_answered(self, fmt: str, path: str, yes: bool | None) -> None:
        if yes:
            self.dismiss(ExportRequest(fmt, path, replace=True))
        else:
            self.query_one("#export-path", Input).focus()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
