"""Provides the result of a commit: the files written and the command that resumes the session."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from smig_tui.services import client_launch


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
    """Shows what a commit wrote; `c` leaves smig for the receiving client, `y` copies the resume command."""

    BINDINGS = [
        Binding("escape,enter", "close", "Close", tooltip="Back to the sessions.", id="result.close"),
        Binding(
            "c",
            "continue_now",
            "Continue now",
            tooltip="Leave smig and start the receiving client on the migrated session, in its folder.",
            id="result.continue",
        ),
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
            client = self._client_name()
            now = f"c continues in {client} · " if client else ""
            yield Static(f"{now}y copies the resume command · Enter closes", id="result-hint")

    def _client_name(self) -> str | None:
        """The receiving client's name, when a native session was written."""
        outputs = tuple(getattr(self.result, "outputs", ()))
        services = getattr(self.app, "services", None)
        if not outputs:
            return None
        entry = services.agent_entry(outputs[0].agent) if services is not None else None
        return entry.name if entry is not None else str(outputs[0].agent)

    def action_continue_now(self) -> None:
        outputs = tuple(getattr(self.result, "outputs", ()))
        services = getattr(self.app, "services", None)
        if not outputs or services is None:
            self.notify("No native session was written, so there is no client to continue in.", severity="warning")
            return
        self._check_launch(services, outputs[0])

    @work(thread=True, group="continue", exclusive=True, exit_on_error=False)
    def _check_launch(self, services: Any, output: Any) -> None:
        """Look for the client and the folder off the UI thread, then end the app with it."""
        try:
            launch = services.continue_launch(output)
        except client_launch.ContinueRefused as refused:
            message = f"{refused.reason}. Continue later with: {refused.command}"
            self.app.call_from_thread(self.notify, message, severity="warning", timeout=15, markup=False)
            return
        self.app.call_from_thread(self.app.exit, launch)

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
