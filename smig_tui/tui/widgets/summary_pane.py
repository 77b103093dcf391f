"""Provides the summary preview: the opt-in notice, the streamed Markdown, and an editor."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Markdown, Static, TextArea
from textual.widgets.markdown import MarkdownStream


class SummaryPane(Vertical):
    """Shows what would be sent before anything is, then the summary as it streams in."""

    BINDINGS = [
        Binding(
            "escape", "done_editing", "Done editing", tooltip="Keep the edited summary and re-plan.", id="summary.done"
        ),
    ]

    @dataclass
    class Edited(Message):
        """The user finished editing the summary."""

        pane: SummaryPane
        text: str

    DEFAULT_CSS = """
    SummaryPane { height: 1fr; }
    SummaryPane > #notice { height: auto; padding: 0 1; }
    SummaryPane > VerticalScroll { height: 1fr; }
    SummaryPane > TextArea { height: 1fr; display: none; }
    SummaryPane.-editing > VerticalScroll { display: none; }
    SummaryPane.-editing > TextArea { display: block; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = ""
        """The summary as it stands: streamed, then possibly edited."""
        self.streaming = False

    def compose(self) -> ComposeResult:
        yield Static("", id="notice")
        with VerticalScroll():
            yield Markdown("")
        yield TextArea("", language="markdown", soft_wrap=True)

    def show_notice(self, text: str) -> None:
        """Say what pressing `s` would send, or why it cannot (plain text: config names hold brackets)."""
        self.query_one("#notice", Static).update(Content(text))

    def start(self) -> MarkdownStream:
        """Clear the preview and hand back a stream to append deltas to."""
        self.text = ""
        self.streaming = True
        self.remove_class("-editing")
        markdown = self.query_one(Markdown)
        markdown.update("")
        return Markdown.get_stream(markdown)

    def append(self, delta: str) -> None:
        """Remember a delta (the stream widget renders it)."""
        self.text += delta

    def finish(self, text: str) -> None:
        """Show the final text, ready to be edited."""
        self.streaming = False
        self.text = text
        self.query_one(Markdown).update(text)
        self.query_one(TextArea).load_text(text)

    def edit(self) -> None:
        """Open the editor on the summary as it stands."""
        area = self.query_one(TextArea)
        area.load_text(self.text)
        self.add_class("-editing")
        area.focus()

    def action_done_editing(self) -> None:
        """Close the editor, keep its text, and tell the screen."""
        if not self.has_class("-editing"):
            return
        self.text = self.query_one(TextArea).text
        self.query_one(Markdown).update(self.text)
        self.remove_class("-editing")
        self.post_message(self.Edited(self, self.text))

    @property
    def editing(self) -> bool:
        """True while the editor is open: its text is not the plan's until Escape keeps it."""
        return self.has_class("-editing")
