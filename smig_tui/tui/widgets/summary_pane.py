"""Provides the summary preview: the opt-in notice, the streamed Markdown, and an editor.

The Markdown view and the editor are made the first time a summary is shown or edited: importing
them (markdown_it, the editor's document model) was a tenth of the TUI's time to first paint, and
most sessions never get a summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

if TYPE_CHECKING:
    from textual.widgets import Markdown, TextArea
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
    SummaryPane > #notice-box { height: auto; max-height: 50%; }
    SummaryPane.-empty > #notice-box { max-height: 100%; }
    SummaryPane #notice { height: auto; padding: 0 1; }
    SummaryPane > #summary-view { height: 1fr; }
    SummaryPane > TextArea { height: 1fr; display: none; }
    SummaryPane.-editing > #summary-view { display: none; }
    SummaryPane.-editing > TextArea { display: block; }
    SummaryPane.-empty > #summary-view { display: none; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id, classes="-empty")
        self.text = ""
        """The summary as it stands: streamed, then possibly edited."""
        self.streaming = False
        self._preview: Markdown | None = None
        self._editor: TextArea | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="notice-box", can_focus=False):
            yield Static("", id="notice")
        yield VerticalScroll(id="summary-view")

    def preview(self) -> Markdown:
        """The Markdown view of the summary, made on first use."""
        if self._preview is None:
            from textual.widgets import Markdown

            self._preview = Markdown("")
            self.query_one("#summary-view", VerticalScroll).mount(self._preview)
        return self._preview

    def editor(self) -> TextArea:
        """The summary's editor, made on first use."""
        if self._editor is None:
            from textual.widgets import TextArea

            self._editor = TextArea("", language="markdown", soft_wrap=True)
            self.mount(self._editor)
        return self._editor

    def show_notice(self, text: str) -> None:
        """Say what pressing `s` would send, or why it cannot (plain text: config names hold brackets)."""
        self.query_one("#notice", Static).update(Content(text))

    def start(self) -> MarkdownStream:
        """Clear the preview and hand back a stream to append deltas to."""
        self.text = ""
        self.streaming = True
        self.remove_class("-editing", "-empty")
        markdown = self.preview()
        markdown.update("")
        return markdown.get_stream(markdown)

    def append(self, delta: str) -> None:
        """Remember a delta (the stream widget renders it)."""
        self.text += delta

    def finish(self, text: str) -> None:
        """Show the final text, ready to be edited."""
        self.streaming = False
        self.text = text
        self.set_class(not text.strip(), "-empty")
        # Emptying a pane whose views were never made makes none: opening a session empties every pane,
        # and making both views there cost the first open 0.1 s before its first figures.
        if text or self._preview is not None:
            self.preview().update(text)
        if text or self._editor is not None:
            self.editor().load_text(text)

    def edit(self) -> None:
        """Open the editor on the summary as it stands."""
        area = self.editor()
        area.load_text(self.text)
        self.add_class("-editing")
        self.remove_class("-empty")
        area.focus()

    def action_done_editing(self) -> None:
        """Close the editor, keep its text, and tell the screen."""
        if not self.has_class("-editing"):
            return
        self.text = self.editor().text
        self.preview().update(self.text)
        self.remove_class("-editing")
        self.set_class(not self.text.strip(), "-empty")
        self.post_message(self.Edited(self, self.text))

    @property
    def editing(self) -> bool:
        """True while the editor is open: its text is not the plan's until Escape keeps it."""
        return self.has_class("-editing")
