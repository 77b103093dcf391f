"""Provides the peek at a session: its facts, first request and last messages, read without planning it."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import Worker, WorkerState, get_current_worker

from smig_tui.core.models import Kind, Role, Session, SessionInfo
from smig_tui.core.words import size_cells
from smig_tui.services import Services
from smig_tui.tui import backend
from smig_tui.tui.errors import describe_error
from smig_tui.tui.widgets.source_tree import SourceTree, age_text

LAST_SHOWN = 4
"""Messages of the conversation's end shown (tool traffic and reasoning aside)."""
HEAD_CHARS = 600
"""Characters of each message shown: a peek, not the whole message (the viewer shows that)."""


class PeekCancelled(Exception):
    """Raised inside the read when the peek was closed before the file was read."""


def _flat(text: str, limit: int = HEAD_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def peek_text(session: Session) -> str:
    """The first request and the last few turns, as plain text (prose only: tool calls are counted)."""
    prose = [
        message
        for message in session.messages
        if message.kind is Kind.TEXT and message.role in (Role.USER, Role.ASSISTANT) and not message.injected
    ]
    tools = sum(1 for message in session.messages if message.kind is Kind.TOOL_CALL)
    lines = [f"{len(session.messages):,} messages, {tools:,} tool calls."]
    if not prose:
        return "\n".join([*lines, "No prose messages to show."])
    first, last = prose[0], prose[-LAST_SHOWN:]
    lines += ["", f"First ({first.role.value}, #{first.index}):", _flat(first.text)]
    later = [message for message in last if message is not first]
    if later:
        lines += ["", "Last:", *(f"{m.role.value} #{m.index}: {_flat(m.text)}" for m in later)]
    return "\n".join(lines)


class PeekModal(ModalScreen[bool]):
    """A look at a session before opening it: Enter opens it, Escape goes back to the list."""

    BINDINGS = [
        Binding("escape,space,q", "close", "Close", tooltip="Back to the sessions.", id="peek.close"),
        Binding("enter", "open", "Open", tooltip="Open this session and measure it.", id="peek.open"),
    ]
    DEFAULT_CSS = """
    PeekModal { align: center middle; }
    PeekModal > Vertical {
        width: 100%; max-width: 120; height: auto; max-height: 100%; border: thick $primary;
        background: $surface; padding: 0 1;
    }
    PeekModal #peek-title { text-style: bold; height: auto; }
    PeekModal #peek-facts { color: $text-muted; height: auto; }
    PeekModal VerticalScroll { height: auto; max-height: 1fr; }
    PeekModal #peek-hint { color: $text-muted; height: auto; }
    """

    @dataclass
    class Read(Message):
        """The session was read (or why it could not be, in `problem`)."""

        text: str

    def __init__(self, services: Services, info: SessionInfo) -> None:
        super().__init__()
        self.services = services
        self.info = info

    def compose(self) -> ComposeResult:
        info = self.info
        facts = (
            f"{info.agent.value} · {info.model or 'model unknown'} · {age_text(info.updated or info.created, SourceTree.clock())}"
            f" · {size_cells(info.size)} · id {info.id}\n{info.cwd or info.project or 'folder unknown'}"
        )
        with Vertical():
            yield Static(Content(" ".join((info.title or info.id).split())), id="peek-title")
            yield Static(Content(facts), id="peek-facts")
            with VerticalScroll():
                yield Static("Reading…", id="peek-text")
            yield Static("Enter opens it · Escape closes", id="peek-hint")

    def on_mount(self) -> None:
        self.read()

    @work(thread=True, exclusive=True, group="peek.read", exit_on_error=False, description="peek at a session")
    def read(self) -> None:
        """Read the session (Escape stops the read between chunks) and post what to show."""
        worker = get_current_worker()

        def report(_done: int, _total: int) -> None:
            if worker.is_cancelled:
                raise PeekCancelled

        try:
            session = backend.read_session(self.services, self.info, report)
        except PeekCancelled:
            return
        self.post_message(self.Read(peek_text(session)))

    @on(Read)
    def _read(self, message: Read) -> None:
        self.query_one("#peek-text", Static).update(Content(message.text))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A session that cannot be read says so here, in one sentence."""
        if event.state is WorkerState.ERROR:
            error = event.worker.error or RuntimeError("unknown error")
            self.query_one("#peek-text", Static).update(Content(f"Could not read it: {describe_error(error)}"))

    def action_close(self) -> None:
        self.workers.cancel_group(self, "peek.read")
        self.dismiss(False)

    def action_open(self) -> None:
        self.workers.cancel_group(self, "peek.read")
        self.dismiss(True)
