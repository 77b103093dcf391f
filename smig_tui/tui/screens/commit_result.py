"""Provides the result of a commit: the files written and the command that resumes the session."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static


def result_lines(result: Any) -> list[str]:
    """Plain lines: migration id, every file written, each resume command, what "continue the latest" picks."""
    lines = [f"Migration {result.migration_id}"]
    if getattr(result, "record_path", None):
        lines.append(f"stored   {result.record_path}")
    for planned in getattr(result, "files", ()):
        lines.append(f"wrote    {planned.path}")
    for command in getattr(result, "resume_commands", ()):
        lines.append(f"resume   {command}")
    for fact in getattr(result, "continue_latest", ()):
        lines.append(f"latest   {fact.sentence}")
    return lines


class CommitResultModal(ModalScreen[None]):
    """Shows what a commit wrote; `y` copies the resume command."""

    BINDINGS = [
        Binding("escape,enter", "close", "Close", tooltip="Back to the sessions.", id="result.close"),
        Binding(
            "y",
            "copy_resume",
            "Copy resume command",
            tooltip="Copy the resume command to the clipboard.",
            id="result.copy",
        ),
    ]
    DEFAULT_CSS = """
    CommitResultModal { align: center middle; }
    CommitResultModal > Vertical {
        width: 110; height: auto; border: thick $success; background: $surface; padding: 1 2;
    }
    CommitResultModal #result-title { text-style: bold; color: $success; }
    CommitResultModal #result-hint { color: $text-muted; padding-top: 1; }
    """

    def __init__(self, result: Any) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("✓ Migration committed", id="result-title")
            yield Static(Content("\n".join(result_lines(self.result))), id="result-lines")
            yield Static("y copies the resume command · Enter closes", id="result-hint")

    def action_copy_resume(self) -> None:
        commands = tuple(getattr(self.result, "resume_commands", ()))
        if not commands:
            self.notify("No native session was written, so there is nothing to resume.", severity="warning")
            return
        share = getattr(self.app, "share_text", None)
        if share is not None:
            share(commands[0], f"the resume command ({commands[0]})")
        else:
            self.app.copy_to_clipboard(commands[0])

    def action_close(self) -> None:
        self.dismiss(None)
