"""Provides what shows while a commit is written: at once, until the result does, swallowing keys meanwhile."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from smig_tui.services import profile_of

if TYPE_CHECKING:
    from smig_tui.tui.screens.commit import CommitChoice


def writing_text(choice: CommitChoice) -> str:
    """What is being written, and why it may take a while."""
    agents = [profile_of(name) for name in sorted(choice.chosen - {"store"})]
    names = [entry.name for entry in agents if entry is not None]
    what = f"smig's record and a session for {names[0]}" if names else "smig's record"
    slow = "".join(
        f" The {entry.name} session is written by `{entry.import_command}`, which takes a few seconds."
        for entry in agents
        if entry is not None and entry.import_command
    )
    return f"Writing {what}…{slow} Keys pressed now are ignored."


class CommitProgressModal(ModalScreen[None]):
    """Says the commit is being written; the result replaces it. Keys pressed meanwhile come here and are
    dropped (it binds none, and a modal screen passes none on to the app's bindings), so none acts on the
    result, and none can open another screen or quit half-way through a write."""

    DEFAULT_CSS = """
    CommitProgressModal { align: center middle; }
    CommitProgressModal > Vertical {
        width: 100%; max-width: 70; height: auto; border: thick $primary; background: $surface; padding: 0 1;
    }
    CommitProgressModal #commit-progress-text { height: auto; }
    """

    def __init__(self, choice: CommitChoice) -> None:
        super().__init__()
        self.choice = choice

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(writing_text(self.choice)), id="commit-progress-text")
