"""Provides `SmigApp`, the full-screen TUI: browse sessions, measure, preview, commit, export."""

from __future__ import annotations

import os
from typing import ClassVar

from textual import on, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen

from smig_tui.plugins import memory_agent_names
from smig_tui.services import Services, client_launch, clipboard
from smig_tui.tui.commands import ActionsProvider
from smig_tui.tui.errors import describe_error
from smig_tui.tui.messages import WorkerFailed
from smig_tui.tui.screens.browse import BrowseScreen

DARK, LIGHT = "textual-dark", "textual-light"


class SmigApp(App[client_launch.Launch | None]):
    """Hand a Codex, Claude Code, Gemini CLI or OpenCode conversation to another agent, sized to fit its model.

    It returns the client to start when the user chose "continue now" (the entry point starts it
    once Textual has restored the terminal), else None.
    """

    TITLE = "smig"
    SUB_TITLE = "hand a conversation to another agent"
    # The default screen's CSS_PATH is not loaded by Textual (only pushed and mode screens' are),
    # so the app loads it; its rules are nested under BrowseScreen like any screen CSS.
    CSS_PATH = ["app.tcss", "screens/browse.tcss"]
    COMMANDS = App.COMMANDS | {ActionsProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", tooltip="Show the keys and how smig works.", id="app.help"),
        Binding("ctrl+t", "toggle_theme", "Theme", tooltip="Switch between the dark and light theme.", id="app.theme"),
        Binding(
            "m",
            "memory",
            "Memory",
            tooltip=f"Sync long-term memory among {memory_agent_names()}.",
            id="app.memory",
        ),
        Binding("q", "quit", "Quit", tooltip="Leave smig.", id="app.quit"),
    ]

    def __init__(self, services: Services, here: str | None = None) -> None:
        super().__init__()
        self.services = services
        self._here = here
        self.theme = DARK
        self.crash_line: str | None = None
        """Set when an unforeseen error ended the app: the one line to print instead of a traceback."""

    def get_default_screen(self) -> Screen[None]:
        return BrowseScreen(self.services, here=self._here)

    def action_help(self) -> None:
        from smig_tui.tui.screens.help import HelpModal, documented  # Markdown: imported when first asked for

        self.push_screen(HelpModal(documented(self.screen)))

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT if self.theme == DARK else DARK

    def action_memory(self) -> None:
        from smig_tui.tui.screens.memory import MemoryScreen

        self.push_screen(MemoryScreen(self.services))

    def copy_to_clipboard(self, text: str) -> None:
        """Put `text` on the clipboard: through tmux itself in tmux (asked off the UI thread), else OSC 52."""
        self._clipboard = text
        if clipboard.multiplexer(os.environ) == "tmux":
            self._copy_in_tmux(text)
        elif self._driver is not None:
            self._driver.write(clipboard.for_multiplexer(clipboard.osc52_sequence(text), os.environ))

    @work(thread=True, group="clipboard", exit_on_error=False)
    def _copy_in_tmux(self, text: str) -> None:
        if not clipboard.copy_in_tmux(text, os.environ):  # tmux before 3.2: OSC 52 as its settings let it through
            sequence = clipboard.for_multiplexer(clipboard.osc52_sequence(text), os.environ)
            if self._driver is not None:
                self.call_from_thread(self._driver.write, sequence)

    def share_text(self, text: str, what: str) -> None:
        """Put `text` on the clipboard by the surest way here, and say honestly what happened."""
        self._copy_with_tool(text, what)

    @work(thread=True, group="clipboard", exit_on_error=False)
    def _copy_with_tool(self, text: str, what: str) -> None:
        tool = clipboard.copy_with_tool(text, os.environ)
        self.call_from_thread(self._shared, text, what, tool)

    def _shared(self, text: str, what: str, tool: str | None) -> None:
        self._clipboard = text
        if tool is not None:
            self.notify(f"Copied {what} to the clipboard with {tool}.")
            return
        self.copy_to_clipboard(text)
        via = clipboard.multiplexer(os.environ)
        wrapped = f", passed through {via}" if via else ""
        self.notify(
            f"Sent {what} to the terminal's clipboard (OSC 52{wrapped}); if nothing arrived,"
            " your terminal does not allow it: export to a file instead."
        )

    @on(WorkerFailed)
    def _worker_failed(self, message: WorkerFailed) -> None:
        self.report(message.error)

    def report(self, error: BaseException) -> None:
        """Show an error as a notification and keep running."""
        self.log.error(repr(error))
        self.notify(describe_error(error), title="smig", severity="error", timeout=8, markup=False)

    def _handle_exception(self, error: Exception) -> None:
        """The last resort: an error no handler caught still ends the app (its state is unknown),
        but with one line and a crash log instead of Textual's traceback on the terminal."""
        self.crash_line = describe_error(error)
        self._return_code = 1
        if self._exception is None:  # Textual's test pilot re-raises the first error it saw
            self._exception = error
            self._exception_event.set()
        self._close_messages_no_wait()
