"""Provides the main screen: sources on the left, the selected session, its measure and previews."""

from __future__ import annotations

import gc
import os
import time
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Header, Input, Static, TabbedContent, Tree
from textual.worker import get_current_worker

from smig_tui.core.models import ReadWarning, Session, SessionInfo, Strategy
from smig_tui.core.strategies import SUMMARY_STRATEGIES
from smig_tui.services import Services
from smig_tui.tui import backend
from smig_tui.tui.messages import (
    LoadProgress,
    LoadStopped,
    PlansReady,
    PlansUnavailable,
    SessionRead,
    SessionsFound,
    SessionsLoaded,
)
from smig_tui.tui.screens.base import SmigScreen
from smig_tui.tui.screens.migrate_actions import MigrateActions
from smig_tui.tui.widgets.filter_box import FilterBox
from smig_tui.tui.widgets.plan_table import PlanTable
from smig_tui.tui.widgets.preview_tabs import TABS, PreviewTabs
from smig_tui.tui.widgets.session_card import SessionCard
from smig_tui.tui.widgets.source_tree import SourceTree
from smig_tui.tui.widgets.summary_pane import SummaryPane

if TYPE_CHECKING:
    from smig_tui.services import SearchHit

BATCH_SECONDS = 0.2
"""How soon discovery posts its first sessions, so the tree shows something at once."""
LATER_BATCH_SECONDS = 1.0
"""How often it posts after that: each batch costs the UI thread a redraw of the tree."""
FIRST_BATCH = 40
"""Sessions that make a first screenful: posted as soon as they are found."""
PROGRESS_FROM_BYTES = 8 * 1024 * 1024
"""Sessions at least this big show a progress bar while they are read."""
PROGRESS_SECONDS = 0.1
"""How often the read posts its progress: each post costs the UI thread a redraw."""
FILTER_DELAY = 0.15
"""Seconds of no typing before the filter applies: each keystroke restarts the wait."""
FILTER_HINT = "/ filter · ↑↓ pick · Enter opens"
NARROW_FILTER_HINT = "/ filter, ↑↓, Enter"
SHOWN_WAIT = 1.0
"""Longest the planner waits for the tab on show to be drawn before planning the others anyway."""


def keep_out_of_gc() -> None:
    """Leave what is alive now out of later cyclic collections: a session read and planned is
    hundreds of thousands of objects, and a full collection walking them all froze the UI for
    0.3-0.9 s in the middle of typing. Sessions and plans form no cycles, so refcounting still
    frees them; `let_gc_see_all` hands everything back when another session is opened."""
    gc.freeze()


def let_gc_see_all() -> None:
    """Undo `keep_out_of_gc`, so cycles that became garbage since are collected again."""
    gc.unfreeze()


class ReadCancelled(Exception):
    """Raised inside a session read to abandon it (the user pressed Escape)."""


class BrowseScreen(SmigScreen[None]):
    """Browse sessions, measure one against a target, preview the compression."""

    CSS_PATH = "browse.tcss"
    filter_delay: float = FILTER_DELAY
    """The debounce of the filter; 0 applies it on every keystroke."""
    progress_from_bytes: int = PROGRESS_FROM_BYTES
    progress_seconds: float = PROGRESS_SECONDS
    BINDINGS = [
        Binding(
            "slash",
            "focus_filter",
            "Filter",
            tooltip="Filter sessions by title, folder, id or model.",
            id="browse.filter",
        ),
        Binding(
            "escape",
            "back",
            "Back / clear filter",
            show=False,
            tooltip="From the plan, back to the sessions; stop reading a big session; else clear the filter.",
            id="browse.clear",
        ),
        Binding(
            "f",
            "search",
            "Search",
            show=False,
            tooltip="Search the text of every session's messages.",
            id="browse.search",
        ),
        Binding(
            "a",
            "toggle_subagents",
            "Sub-agents",
            show=False,
            tooltip="Show or hide sub-agent and exec sessions.",
            id="browse.subagents",
        ),
        Binding(
            "h",
            "toggle_here",
            "Here/all",
            show=False,
            tooltip="List only the sessions of the folder smig was started in, or every folder's.",
            id="browse.here",
        ),
        Binding(
            "space",
            "peek",
            "Peek",
            show=False,
            tooltip="Peek at the highlighted session's first and last messages without opening it.",
            id="browse.peek",
        ),
        Binding(
            "v",
            "focus_plan",
            "Messages",
            tooltip="Move to the plan's messages (Escape goes back to the sessions).",
            id="browse.messages",
        ),
        Binding("t", "pick_target", "Target", tooltip="Choose the model to continue in.", id="browse.target"),
        Binding(
            "p", "pin", "Pin", tooltip="Pin or unpin the highlighted message so every plan keeps it.", id="browse.pin"
        ),
        Binding(
            "s",
            "summarize",
            "Summarize",
            tooltip="Send the conversation to the summarizer (summary tabs only).",
            id="browse.summarize",
        ),
        Binding(
            "e", "edit_summary", "Edit", show=False, tooltip="Edit the summary before committing.", id="browse.edit"
        ),
        Binding(
            "c", "commit", "Commit", tooltip="Write the migration: storage plus a native session.", id="browse.commit"
        ),
        Binding(
            "x",
            "export",
            "Export",
            tooltip="Export the migrated conversation to the clipboard or a file.",
            id="browse.export",
        ),
        Binding("r", "reload", "Reload", show=False, tooltip="Scan the agents' folders again.", id="browse.reload"),
        *(
            Binding(
                str(number),
                f"show_tab('{strategy.value}')",
                title,
                show=False,
                tooltip=f"Preview the {title.lower()} plan.",
                id=f"browse.tab-{key}",
            )
            for number, (strategy, key, title) in enumerate(TABS, start=1)
        ),
    ]

    def __init__(self, services: Services, here: str | None = None) -> None:
        super().__init__()
        self.services = services
        self.here = here if here is not None else os.getcwd()
        self.info: SessionInfo | None = None
        """The session picked in the tree."""
        self.session: Session | None = None
        """That session, read in full."""
        self.target: str | None = None
        """The target model's name."""
        self.plans: PlansReady | None = None
        """The latest plans for `session` against `target`."""
        self.pins: frozenset[str] = frozenset()
        """Ids of messages every plan must keep."""
        self.summaries: dict[Strategy, str] = {}
        """Summaries written (and possibly edited) per summary strategy, for this session."""
        self._filter_timer: Timer | None = None
        """The pending filter, restarted by each keystroke."""
        self.scanned = False
        """Discovery has finished at least once."""
        self.reading = False
        """A session is being read (Escape cancels it)."""
        self.found_message: str | None = None
        """The message a search hit asked to show once the session's plans are ready."""
        self.plan_generation = 0
        """Counts plan requests, so plans made for a superseded target or pins are not shown."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="body"):
            with Vertical(id="sources"):
                yield FilterBox(placeholder=FILTER_HINT, id="filter")
                yield Static("Scanning…", id="progress")
                yield SourceTree(here=self.here, id="tree")
            with Vertical(id="detail"):
                yield SessionCard(id="card")
                yield PreviewTabs(id="preview")
        yield Footer()
        yield MigrateActions(self.services)

    def on_mount(self) -> None:
        self.query_one("#sources").border_title = "Sources"
        self.query_one(SessionCard).border_title = "Session"
        self.query_one(PreviewTabs).border_title = "Preview"
        self.query_one(SourceTree).focus()
        self.query_one(PreviewTabs).show_note("Open a session (Enter) to preview its migration.")
        self.call_after_refresh(self.scan_sessions)  # paint the frame first: the scan holds the GIL

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a plan row opens the whole message."""
        if isinstance(event.data_table, PlanTable):
            self.actions.view_row(event.data_table)

    @property
    def actions(self) -> MigrateActions:
        """Target, pins, summary, commit and export: a widget that runs their workers."""
        return self.query_one(MigrateActions)

    # The bindings of those actions (t, p, 1-4, s, e, c, x).
    def action_pick_target(self) -> None:
        self.actions.pick_target()

    def action_pin(self) -> None:
        self.actions.pin()

    def action_show_tab(self, strategy: str) -> None:
        self.actions.show_tab(strategy)

    def action_summarize(self) -> None:
        self.actions.summarize()

    def action_edit_summary(self) -> None:
        self.actions.edit_summary()

    def action_commit(self) -> None:
        self.actions.commit()

    def action_export(self) -> None:
        self.actions.export()

    def on_summary_pane_edited(self, message: SummaryPane.Edited) -> None:
        self.actions.summary_edited(message)

    def on_unmount(self) -> None:
        let_gc_see_all()

    def on_resize(self) -> None:
        """Fit the terminal: a narrower source list, a shorter card and a compact footer when small."""
        narrow, short = self.size.width < 100, self.size.height < 32
        self.set_class(narrow, "-narrow")
        self.set_class(self.size.width >= 160, "-wide")
        self.query_one(SessionCard).set_compact(narrow or short)
        self.query_one("#filter", Input).placeholder = NARROW_FILTER_HINT if narrow else FILTER_HINT
        footer = self.query_one(Footer)
        footer.compact = narrow
        footer.show_command_palette = not narrow
        if self.scanned:
            self.show_counts()

    def worker_failed(self, group: str, error: BaseException) -> None:
        if group == "session.plan":
            self.post_message(PlansUnavailable(f"Cannot plan: {error}"))

    # Discovery ------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="sources.scan", exit_on_error=False)
    def scan_sessions(self) -> None:
        """Stream sessions in from every source, a batch at a time."""
        worker = get_current_worker()
        warnings: list[str] = []
        batch: list[SessionInfo] = []
        seen, last = 0, time.monotonic()

        def sink(warning: ReadWarning) -> None:
            warnings.append(str(warning))

        for info in self.services.iter_sessions(include_subagents=True, warn=sink):
            if worker.is_cancelled:
                return
            batch.append(info)
            seen += 1
            first = seen == len(batch)
            if (first and seen >= FIRST_BATCH) or time.monotonic() - last >= (
                BATCH_SECONDS if first else LATER_BATCH_SECONDS
            ):
                self.post_message(SessionsFound(batch, seen))
                batch, last = [], time.monotonic()
        self.post_message(SessionsFound(batch, seen))
        self.post_message(SessionsLoaded(seen, warnings))

    @on(SessionsFound)
    def _sessions_found(self, message: SessionsFound) -> None:
        self.query_one(SourceTree).add_sessions(message.infos)
        self.query_one("#progress", Static).update(f"Scanning… {message.seen:,} sessions")

    @on(SessionsLoaded)
    def _sessions_loaded(self, message: SessionsLoaded) -> None:
        self.scanned = True
        keep_out_of_gc()
        tree = self.query_one(SourceTree)
        tree.rebuild()
        self.show_counts()
        self.warm_counters(backend.likely_targets({info.agent for info in tree.sessions}, self.target))
        if message.warnings:
            self.notify(
                f"{len(message.warnings)} unreadable lines or files skipped; first: {message.warnings[0]}",
                severity="warning",
                markup=False,
            )

    @work(thread=True, exclusive=True, group="tokens.warm", exit_on_error=False)
    def warm_counters(self, targets: list[str]) -> None:
        """Load the tokenizers while the user looks at the list: about half a second each, which the
        first session opened would otherwise wait for before its first figures."""
        for name in targets:
            backend.warm_counter(self.services, name)

    def show_counts(self) -> None:
        """The line under the filter: how many sessions show of how many, or why none do; and, while
        none is open, the card's count per agent (or, with none at all, where smig looked)."""
        tree = self.query_one(SourceTree)
        total, shown = len(tree.sessions), len(tree.visible_sessions())
        scope = " here" if tree.here_only else ""
        if not total:
            text = "No sessions found."
        elif not shown and (tree.filter_text or tree.here_only):
            what = f"matches “{tree.filter_text}”" if tree.filter_text else "is in this folder"
            text = f"No session {what} · {'Escape' if tree.filter_text else 'h'} shows all"
        else:
            hint = "" if self.has_class("-narrow") else " · h: here/all" if not tree.here_only else " · h: all"
            text = f"{shown:,} of {total:,} sessions{scope}{hint}"
        self.query_one("#progress", Static).update(text)
        self.set_class(not total, "-empty")
        if not total:
            self.query_one(SessionCard).show_empty(backend.searched_places(self.services))
        elif self.info is None:
            self.query_one(SessionCard).show_idle(backend.detected(self.services, tree.sessions))

    def action_reload(self) -> None:
        tree = self.query_one(SourceTree)
        tree.sessions.clear()
        tree.rebuild()
        self.scan_sessions()

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_focus_plan(self) -> None:
        """Move to the messages of the tab on show (the summary on the Summary tab)."""
        tabs = self.query_one(PreviewTabs)
        table = tabs.table()
        pane = tabs.summary_pane()
        if table is not None and table.row_count:
            table.focus()
        elif pane is not None and pane.has_class("-empty"):
            self.notify("There is no summary yet: s writes one (it is sent to the summarizer).", severity="warning")
        elif pane is not None:
            pane.query_one("#summary-view").focus()
        else:
            self.notify("Open a session first (Enter), then v moves to its plan's messages.", severity="warning")

    def action_toggle_here(self) -> None:
        here = self.query_one(SourceTree).toggle_here()
        if self.scanned:
            self.show_counts()
        self.notify(f"Sessions of {self.here} only." if here else "Sessions of every folder.", markup=False)

    def action_peek(self) -> None:
        """Space (with the filter focused, the tree takes it itself): peek at the highlighted session."""
        self.query_one(SourceTree).action_peek()

    @on(SourceTree.PeekRequested)
    def _peek(self, event: SourceTree.PeekRequested) -> None:
        """The session's first and last messages, read without planning it; Enter there opens it."""
        from smig_tui.tui.screens.peek import PeekModal

        info = event.info
        self.app.push_screen(PeekModal(self.services, info), lambda open_it: self._peek_done(info, open_it))

    def _peek_done(self, info: SessionInfo, open_it: bool | None) -> None:
        if open_it:
            self.open_session(info)

    def action_back(self) -> None:
        """Escape: back from the preview to the sessions, stop a session read in progress, else clear the filter."""
        preview = self.query_one(PreviewTabs)
        if self.focused is not None and preview in self.focused.ancestors_with_self:
            self.query_one(SourceTree).focus()
            return
        if self.reading:
            self.workers.cancel_group(self, "session.read")
            self.reading = False
            self.query_one(PreviewTabs).hide_loading()
            self.query_one(PreviewTabs).show_note("Reading cancelled: Enter on the session reads it again.")
            self.query_one(SessionCard).show_note("Reading cancelled.")
            self.info = None
            return
        self.action_clear_filter()

    def action_clear_filter(self) -> None:
        self.query_one("#filter", Input).value = ""
        self.apply_filter()
        self.query_one(SourceTree).focus()

    @on(Input.Changed, "#filter")
    def _filter(self, event: Input.Changed) -> None:
        """Wait for a pause in typing: rebuilding the tree per keystroke makes typing lag."""
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        if self.filter_delay <= 0:
            self.apply_filter()
        else:
            self._filter_timer = self.set_timer(self.filter_delay, self.apply_filter)

    def apply_filter(self) -> None:
        """Filter the tree by what the filter box holds now, cancelling any pending wait."""
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        self.query_one(SourceTree).set_filter(self.query_one("#filter", Input).value)
        if self.scanned:
            self.show_counts()

    @on(FilterBox.Moved)
    def _filter_moved(self, event: FilterBox.Moved) -> None:
        """Up and Down in the filter move through the matches while typing."""
        self.apply_filter()
        self.call_after_refresh(self.query_one(SourceTree).step, event.delta)

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        """Enter in the filter opens the highlighted match (the best one unless the arrows chose another)."""
        self.apply_filter()
        tree = self.query_one(SourceTree)
        tree.focus()
        self.call_after_refresh(self._open_highlighted_match)

    def _open_highlighted_match(self) -> None:
        tree = self.query_one(SourceTree)
        node = tree.cursor_node
        if node is None or node.data is None or node.data not in tree.visible_sessions():
            node = tree.best_match()
        if node is None or node.data is None:
            self.notify("No session matches the filter.", severity="warning")
            return
        tree.move_to(node)
        self.open_session(node.data)

    def action_search(self) -> None:
        from smig_tui.tui.screens.search import SearchModal

        self.app.push_screen(SearchModal(self.services), callback=self._search_done)

    def _search_done(self, hit: SearchHit | None) -> None:
        """Open the session of the chosen hit; its plan table then moves to the hit's message."""
        if hit is None:
            return
        from smig_tui.core.errors import SmigError

        known = [
            info for info in self.query_one(SourceTree).sessions if info.path == hit.path and info.id == hit.session_id
        ]
        try:
            info = known[0] if known else self.services.find_session(hit.session_id)
        except SmigError as error:
            self.notify(str(error), severity="error")
            return
        self.found_message = hit.message_id
        self.open_session(info)

    def action_toggle_subagents(self) -> None:
        shown = self.query_one(SourceTree).toggle_subagents()
        if self.scanned:
            self.show_counts()
        self.notify("Sub-agent and exec sessions shown." if shown else "Sub-agent and exec sessions hidden.")

    # Selection and measure --------------------------------------------------------------------

    @on(Tree.NodeSelected, "#tree")
    def _session_selected(self, event: Tree.NodeSelected[SessionInfo | None]) -> None:
        info = event.node.data
        if info is None:
            return
        self.open_session(info)

    def open_session(self, info: SessionInfo) -> None:
        """Show a session's facts at once and read it in the background."""
        self.info, self.session, self.plans = info, None, None
        self.pins, self.summaries = frozenset(), {}
        let_gc_see_all()
        self.refresh_bindings()
        self.query_one(SessionCard).show_session(info, None)
        tabs = self.query_one(PreviewTabs)
        tabs.clear_plans()
        tabs.show_note("Reading the session…")
        self.reading = True
        if info.size >= self.progress_from_bytes:
            tabs.show_loading(0, info.size)
        else:
            tabs.hide_loading()
        self.read_session(info)

    @work(thread=True, exclusive=True, group="session.read", exit_on_error=False)
    def read_session(self, info: SessionInfo) -> None:
        """Read the whole session file, posting how far it got; Escape stops it between chunks."""
        worker = get_current_worker()
        last = 0.0

        def report(done: int, total: int) -> None:
            nonlocal last
            if worker.is_cancelled:
                raise ReadCancelled
            now = time.monotonic()
            if total >= self.progress_from_bytes and now - last >= self.progress_seconds:
                last = now
                self.post_message(LoadProgress(info.path, done, total))

        try:
            session = backend.read_session(self.services, info, report)
        except ReadCancelled:
            self.post_message(LoadStopped(info.path))
            return
        if not worker.is_cancelled:
            self.post_message(SessionRead(session))

    @on(LoadProgress)
    def _load_progress(self, message: LoadProgress) -> None:
        if self.reading and self.info is not None and message.path == self.info.path:
            self.query_one(PreviewTabs).show_loading(message.done, message.total)

    @on(SessionRead)
    def _session_read(self, message: SessionRead) -> None:
        if self.info is None or message.session.info.path != self.info.path:
            return
        self.session = message.session
        keep_out_of_gc()
        self.reading = False
        self.query_one(PreviewTabs).hide_loading()
        self.query_one(PreviewTabs).show_note("Counting tokens…")
        self.query_one(SessionCard).show_session(message.session.info, message.session)
        if message.session.warnings:
            first = message.session.warnings[0]
            self.notify(
                f"{len(message.session.warnings)} lines skipped; first: {first}", severity="warning", markup=False
            )
        self.replan()

    def replan(self) -> None:
        """Measure and plan the session against the target in the background, the tab on show first."""
        if self.session is None:
            return
        target = self.target or backend.default_target(self.session)
        self.plan_generation += 1
        first = self.query_one(PreviewTabs).strategy
        self.plan_session(self.session, target, self.pins, dict(self.summaries), first, self.plan_generation)

    # A description of its own: else Textual builds one from repr() of the whole session or plan (seconds).
    @work(thread=True, exclusive=True, group="session.plan", exit_on_error=False, description="plan the open session")
    def plan_session(
        self,
        session: Session,
        target: str,
        pins: frozenset[str],
        summaries: dict[Strategy, str],
        first: Strategy,
        generation: int,
    ) -> None:
        """Count (cached per message) and plan `first`, post it, then the other strategies."""
        worker = get_current_worker()
        capacity = backend.lookup(self.services, target)
        exact, counter = backend.counter_label(self.services, capacity)
        stop = lambda: worker.is_cancelled  # noqa: E731 - asked between plans
        for plans in backend.plans_visible_first(self.services, session, target, pins, summaries, first, stop):
            exact, counter = backend.counter_label(self.services, capacity, session)  # the ± of the counted mix
            decision = plans[first].decision
            estimated = backend.estimated_ids(self.services, session, capacity) if decision.partial else frozenset()
            if worker.is_cancelled:
                return
            pending = frozenset(backend.PLAN_STRATEGIES) - plans.keys()
            ready = PlansReady(
                session.id,
                capacity,
                plans,
                decision.session_tokens,
                exact,
                counter,
                estimated,
                pending=pending,
                generation=generation,
            )
            self.post_message(ready)
            if pending:
                ready.shown.wait(SHOWN_WAIT)

    @on(PlansReady)
    def _plans_ready(self, message: PlansReady) -> None:
        self._show_plans(message)
        self.call_after_refresh(message.shown.set)

    def _show_plans(self, message: PlansReady) -> None:
        """Show the plans on the card and the tabs, unless they were made for another session or request."""
        if self.session is None or message.session_id != self.session.id:
            return
        if message.generation != self.plan_generation:
            return  # planned for a target or pins since replaced
        self.plans = message
        self.refresh_bindings()
        decision = next(iter(message.plans.values())).decision
        self.query_one(SessionCard).show_measure(
            self.session, message.target, decision, message.estimate, message.exact, message.counter_name
        )
        tabs = self.query_one(PreviewTabs)
        tabs.show_plans(message.plans, self.pins, message.estimated, message.exact, message.pending)
        if not message.pending:
            keep_out_of_gc()
            if tabs.strategy in SUMMARY_STRATEGIES:
                self.actions.refresh_summary_notices()
        if self.found_message is not None:  # opened from a search hit: show that message
            table, key, self.found_message = tabs.table(), self.found_message, None
            if table is not None and not table.show_message(key):
                self.notify(f"Message {key} is not in the preview of this plan.", severity="warning")

    @on(TabbedContent.TabActivated, "#tabs")
    def _tab_shown(self) -> None:
        """A summary tab says what pressing `s` would send: worked out when it shows, not for every plan
        (it redacts every message it would send, seconds on a big session)."""
        if (
            self.plans is not None
            and not self.plans.pending
            and self.query_one(PreviewTabs).strategy in SUMMARY_STRATEGIES
        ):
            self.actions.refresh_summary_notices()

    @on(LoadStopped)
    def _load_stopped(self, message: LoadStopped) -> None:
        """The read ended by Escape: nothing more to do (the screen already says so)."""

    @on(PlansUnavailable)
    def _plans_unavailable(self, message: PlansUnavailable) -> None:
        self.query_one(SessionCard).show_note(message.reason)
        self.query_one(PreviewTabs).show_note(message.reason)
