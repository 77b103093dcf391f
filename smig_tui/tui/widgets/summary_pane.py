"""Provides the summary preview: the opt-in notice, the streamed Markdown, and an editor."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static, TextArea
from textual.widgets.markdown import MarkdownStream


class SummaryPane(Vertical):
    """Shows what would be sent before anything is, then the summary as it streams in."""

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

    def show_notice(self, markup: str) -> None:
        """Say what pressing `s` would send, or why it cannot."""
        self.query_one("#notice", Static).update(Content.from_markup(markup))

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

    def toggle_edit(self) -> bool:
        """Switch between the rendered summary and the editor; returns True while editing."""
        area = self.query_one(TextArea)
        if self.has_class("-editing"):
            self.text = area.text
            self.query_one(Markdown).update(self.text)
            self.remove_class("-editing")
            return False
        area.load_text(self.text)
        self.add_class("-editing")
        area.focus()
        return True

    def current_text(self) -> str:
        """The summary to commit, edits included."""
        if self.has_class("-editing"):
            return self.query_one(TextArea).text
        return self.text
