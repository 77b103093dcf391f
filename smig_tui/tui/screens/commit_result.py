"""Provides the result of a commit: the plan's figures, the files written and the command that resumes the session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from smig_tui.core.models import Plan
from smig_tui.services import client_launch
from smig_tui.tui.backend import shown
from smig_tui.tui.fitting import fit_parts, labelled_path
from smig_tui.tui.screens.commit import plan_parts
from smig_tui.tui.widgets.preview_tabs import over_budget


def result_lines(result: Any, width: int = 0) -> list[str]:
    """Plain lines: migration id, every file written (the home folder as `~`; a path too long for
    `width` goes under its label, broken after a `/`), each resume command, what "continue the
    latest" picks."""
    lines = [f"Migration {result.migration_id}"]
    if getattr(result, "record_path", None):
        lines.append(labelled_path("stored", shown(Path(result.record_path)), width))
    for planned in getattr(result, "files", ()):
        lines.append(labelled_path("wrote", shown(Path(planned.path)), width))
    for command in getattr(result, "resume_commands", ()):
        lines.append(f"resume   {command}")
    for fact in getattr(result, "continue_latest", ()):
        lines.append(f"latest   {fact.sentence}")
    for note in getattr(result, "recovered", ()):
        lines.append(f"Before this commit, smig {note}")
    return lines


class CommitResultModal(ModalScreen[None]):
    """Shows what a commit wrote and whether it fits; `c` leaves smig for the receiving client, `y` copies
    the resume command (both offered only when a native session was written)."""

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
        width: 100%; max-width: 110; height: auto; max-height: 100%; border: thick $success;
        background: $surface; padding: 0 1;
    }
    CommitResultModal.-over > Vertical { border: thick $error; }
    CommitResultModal #result-title { text-style: bold; color: $success; }
    CommitResultModal.-over #result-title { color: $text-error; }
    CommitResultModal #result-plan { height: auto; }
    CommitResultModal.-over #result-plan { color: $text-error; text-style: bold; }
    CommitResultModal #result-note { height: auto; color: $text-warning; }
    CommitResultModal VerticalScroll { height: auto; max-height: 1fr; }
    CommitResultModal #result-hint { color: $text-muted; height: auto; }
    """

    def __init__(self, result: Any, plan: Plan | None = None, note: str = "") -> None:
        super().__init__()
        self.result = result
        self.plan = plan
        """The plan written, for its figures (None: not known, nothing said about them)."""
        self.note = note
        """Why it differs from the preview's plan (planned again for the chosen agent), or ''."""

    @property
    def resumable(self) -> bool:
        """Whether a native session was written, so there is a command to resume it."""
        return bool(tuple(getattr(self.result, "resume_commands", ())))

    def compose(self) -> ComposeResult:
        over = self.plan is not None and bool(over_budget(self.plan))
        self.set_class(over, "-over")
        with Vertical():
            title = "✓ Migration committed" + (", over its budget" if over else "")
            yield Label(title, id="result-title")
            yield Static("", id="result-plan")
            if self.note:
                yield Static(Content(self.note), id="result-note")
            with VerticalScroll():
                yield Static(Content("\n".join(result_lines(self.result))), id="result-lines")
            yield Static(self.hint(), id="result-hint")

    def hint(self) -> str:
        """The keys that do something here: only what exists is offered."""
        client = self._client_name()
        if client is None or not self.resumable:
            return "No native session was written, so there is no command to resume · Enter closes"
        return f"c continues in {client} · y copies the resume command · Enter closes"

    def on_mount(self) -> None:
        self.on_resize()

    def on_resize(self) -> None:
        """Lay the figures and the paths out for the width: each figure with its label, paths broken after a `/`."""
        lines = self.query_one("#result-lines", Static)
        lines.update(Content("\n".join(result_lines(self.result, lines.content_region.width))))
        if self.plan is not None:
            line = self.query_one("#result-plan", Static)
            line.update(Content(fit_parts(plan_parts(self.plan), line.content_region.width)))

    def _client_name(self) -> str | None:
        """The receiving client's name, when a native session was written."""
        outputs = tuple(getattr(self.result, "outputs", ()))
        services = getattr(self.app, "services", None)
        if not outputs:
            return None
        entry = services.agent_profile(outputs[0].agent) if services is not None else None
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
