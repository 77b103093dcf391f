"""Provides the search mode: full-text search over every session's messages, hits listed as you type.

The index is brought up to date in a worker while the screen is open (its progress shown), and each
query runs in another worker, so typing never waits on either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from smig_tui.core.errors import SmigError
from smig_tui.services import Services

if TYPE_CHECKING:
    from smig_tui.services import SearchHit

SEARCH_DELAY = 0.15
"""Seconds of no typing before a query runs."""
HITS_SHOWN = 50


@dataclass
class IndexProgress(Message):
    """Sessions indexed so far while the index is refreshed."""

    done: int
    total: int


@dataclass
class IndexReady(Message):
    """The index is up to date (`note`: what changed, or why it could not be refreshed)."""

    note: str


@dataclass
class ExcerptRead(Message):
    """More of a hit's message, to show under the list."""

    index: int
    excerpt: Text


@dataclass
class HitsFound(Message):
    """The hits of one query (or why it could not run)."""

    query: str
    hits: list[SearchHit]
    error: str | None = None


def hit_label(hit: SearchHit) -> Text:
    """Two lines: where the hit is, then its snippet with the matches highlighted."""
    label = Text()
    label.append(f"{hit.agent:<7}", style="bold")
    label.append(f"{hit.session_id[:13]}  ", style="dim")
    label.append(f"{(hit.timestamp or '')[:16].replace('T', ' ')}  {hit.role}/{hit.kind}  ")
    if hit.archived:
        label.append("archived  ", style="italic")
    if hit.compacted:
        label.append("compacted away  ", style="italic")
    label.append(" ".join((hit.title or "").split())[:60], style="bold")
    label.append("\n  ")
    label.append_text(marked(hit.snippet, hit.spans))
    return label


def marked(text: str, spans: tuple[tuple[int, int], ...]) -> Text:
    """Text with each match highlighted."""
    styled = Text(text)
    for start, end in spans:
        styled.stylize("bold reverse", start, end)
    return styled


class SearchModal(ModalScreen["SearchHit | None"]):
    """Search every session; Enter opens the hit's session at its message."""

    search_delay: float = SEARCH_DELAY
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Close the search.", id="search.cancel"),
        Binding("down", "cursor_down", "Down", show=False, id="search.down"),
        Binding("up", "cursor_up", "Up", show=False, id="search.up"),
    ]
    DEFAULT_CSS = """
    SearchModal { align: center middle; }
    SearchModal > Vertical {
        width: 100%; max-width: 140; height: 100%; max-height: 50; border: thick $primary;
        background: $surface; padding: 0 1;
    }
    SearchModal OptionList { height: 2fr; border: none; }
    SearchModal #search-message {
        height: 1fr; max-height: 12; border-top: solid $primary; padding: 0 1; overflow-y: auto;
    }
    SearchModal #search-title { text-style: bold; }
    SearchModal #search-status { color: $text-muted; }
    """

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services
        self.hits: list[SearchHit] = []
        self._timer: Timer | None = None
        self.ready = False
        """True once the index has been refreshed for this screen."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label('Search every session (words, "a phrase", prefix*)', id="search-title")
            yield Input(placeholder="what was said…", id="search-input")
            yield Static("Updating the search index…", id="search-status")
            yield OptionList(id="search-hits")
            yield Static("", id="search-message")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self.refresh_index()

    @work(thread=True, exclusive=True, group="search.index", exit_on_error=False)
    def refresh_index(self) -> None:
        """Index what is new or changed, reporting progress."""
        notes: list[str] = []

        def progress(done: int, total: int) -> None:
            self.post_message(IndexProgress(done, total))

        try:
            report = self.services.refresh_search_index(progress=progress, notice=notes.append)
        except SmigError as error:
            self.post_message(IndexReady(str(error)))
            return
        note = notes[-1] if notes else ""
        if report.changed and not note:
            note = f"{report.changed:,} sessions indexed"
        self.post_message(IndexReady(note))

    @on(IndexProgress)
    def _progress(self, message: IndexProgress) -> None:
        self.query_one("#search-status", Static).update(f"Indexing sessions… {message.done:,} of {message.total:,}")

    @on(IndexReady)
    def _ready(self, message: IndexReady) -> None:
        self.ready = True
        self.query_one("#search-status", Static).update(message.note or "Type to search.")
        self.run_query()

    @on(Input.Changed, "#search-input")
    def _typed(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        if self.search_delay <= 0:
            self.run_query()
        else:
            self._timer = self.set_timer(self.search_delay, self.run_query)

    def run_query(self) -> None:
        """Search for what the box holds now (once the index is ready)."""
        query = self.query_one(Input).value.strip()
        if not query or not self.ready:
            return
        self.search(query)

    @work(thread=True, exclusive=True, group="search.query", exit_on_error=False)
    def search(self, query: str) -> None:
        try:
            hits = self.services.search(query, limit=HITS_SHOWN, refresh=False)
        except SmigError as error:
            self.post_message(HitsFound(query, [], str(error)))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(HitsFound(query, hits))

    @on(HitsFound)
    def _hits(self, message: HitsFound) -> None:
        if message.query != self.query_one(Input).value.strip():
            return  # typing moved on
        status = self.query_one("#search-status", Static)
        options = self.query_one(OptionList)
        options.clear_options()
        self.query_one("#search-message", Static).update("")
        self.hits = message.hits
        if message.error:
            status.update(message.error)
            return
        status.update(f"{len(message.hits)} hits" + (" (the best shown)" if len(message.hits) == HITS_SHOWN else ""))
        options.add_options([Option(hit_label(hit)) for hit in message.hits])
        if message.hits:
            options.highlighted = 0

    @on(OptionList.OptionHighlighted, "#search-hits")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """Show more of the highlighted hit's message, the matches marked."""
        if 0 <= event.option_index < len(self.hits):
            self.read_excerpt(event.option_index, self.hits[event.option_index], self.query_one(Input).value)

    @work(thread=True, exclusive=True, group="search.excerpt", exit_on_error=False)
    def read_excerpt(self, index: int, hit: SearchHit, query: str) -> None:
        try:
            excerpt = self.services.search_excerpt(hit, query)
        except SmigError:
            return
        self.post_message(ExcerptRead(index, marked(excerpt.text, excerpt.spans)))

    @on(ExcerptRead)
    def _excerpt(self, message: ExcerptRead) -> None:
        if self.query_one(OptionList).highlighted == message.index:
            self.query_one("#search-message", Static).update(message.excerpt)

    @on(Input.Submitted, "#search-input")
    def _submitted(self) -> None:
        self._open(self.query_one(OptionList).highlighted)

    @on(OptionList.OptionSelected, "#search-hits")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._open(event.option_index)

    def _open(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.hits):
            self.dismiss(self.hits[index])

    def action_cursor_down(self) -> None:
        self.query_one(OptionList).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.query_one(OptionList).action_cursor_up()

    def action_cancel(self) -> None:
        self.dismiss(None)
