"""Provides the main screen: sources on the left, the selected session, its measure and previews."""

from __future__ import annotations

import gc
import os
import sys
from typing import TYPE_CHECKING

from textual import events, on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Header, Input, TabbedContent

from smig_tui.core.models import Session, SessionInfo, Strategy
from smig_tui.core.strategies import SUMMARY_STRATEGIES
from smig_tui.core.words import plural
from smig_tui.services import Services
from smig_tui.tui import backend
from smig_tui.tui.messages import LoadProgress, LoadStopped, PlansReady, PlansUnavailable, SessionRead, SessionsLoaded
from smig_tui.tui.screens.base import SmigScreen
from smig_tui.tui.screens.browse_keys import BROWSE_KEYS
from smig_tui.tui.screens.migrate_actions import MigrateActions
from smig_tui.tui.widgets.key_footer import KeyFooter
from smig_tui.tui.widgets.plan_table import PlanTable
from smig_tui.tui.widgets.preview_tabs import PreviewTabs
from smig_tui.tui.widgets.session_card import SessionCard
from smig_tui.tui.widgets.session_loader import SessionLoader, keep_out_of_gc, let_gc_see_all
from smig_tui.tui.widgets.source_tree import SourceTree
from smig_tui.tui.widgets.sources_panel import SourcesPanel
from smig_tui.tui.widgets.summary_pane import SummaryPane

if TYPE_CHECKING:
    from smig_tui.services import SearchHit


class BrowseScreen(SmigScreen[None]):
    """Browse sessions, measure one against a target, preview the compression."""

    CSS_PATH = "browse.tcss"
    BINDINGS = BROWSE_KEYS

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
        self.reading = False
        """A session is being read (Escape cancels it)."""
        self.found_message: str | None = None
        """The message a search hit asked to show once the session's plans are ready."""
        self._collecting = False
        """The cyclic collector is paused until the first frame (`compose`) and was running before."""

    def compose(self) -> ComposeResult:
        # Composing and mounting the screen makes widgets that all stay: the cyclic collector, which
        # would walk them again and again (~40 ms before the first frame), waits for that frame.
        self._collecting = gc.isenabled()
        gc.disable()
        yield Header()
        with Horizontal(id="body"):
            yield SourcesPanel(self.services, self.here, id="sources")
            with Vertical(id="detail"):
                yield SessionCard(id="card")
                yield PreviewTabs(id="preview")
        yield KeyFooter()
        yield MigrateActions(self.services)
        yield SessionLoader(self.services)

    def on_mount(self) -> None:
        self.sources.border_title = "Sources"
        self.query_one(SessionCard).border_title = "Session"
        self.query_one(PreviewTabs).border_title = "Preview"
        self.query_one(SourceTree).focus()
        self.query_one(PreviewTabs).show_note("Open a session (Enter) to preview its migration.")
        self.call_after_refresh(self._first_frame)  # paint the frame first: the scan holds the GIL

    def _first_frame(self) -> None:
        """The first frame is drawn: collect cycles again, and list the sessions. What was made until now
        stays (modules, the screen's widgets): later collections leave it out instead of walking it all
        while the first sessions come in."""
        keep_out_of_gc()
        self._resume_gc()
        self.sources.scan()

    def _resume_gc(self) -> None:
        if self._collecting:
            self._collecting = False
            gc.enable()

    @property
    def sources(self) -> SourcesPanel:
        """The filter, the count line and the tree of sessions."""
        return self.query_one(SourcesPanel)

    @property
    def loader(self) -> SessionLoader:
        """Reads and plans the open session in workers."""
        return self.query_one(SessionLoader)

    @property
    def actions(self) -> MigrateActions:
        """Target, pins, summary, commit and export: a widget that runs their workers."""
        return self.query_one(MigrateActions)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a plan row opens the whole message."""
        if isinstance(event.data_table, PlanTable):
            self.actions.view_row(event.data_table)

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

    # The bindings of the sources panel (/, h, b, a, Space, r).
    def action_focus_filter(self) -> None:
        """`/`: type into the filter. The key is a priority binding and the focus moves at once, before the
        app hands on the next key: a letter typed right behind `/` (fast typing, tmux send-keys) was
        already on its way to the tree when a deferred `focus()` landed, and was lost."""
        if isinstance(self.focused, Input) or _is_text_area(self.focused):
            raise SkipAction  # there `/` is a character: a path in the filter, a summary being edited
        self.sources.focus_filter()

    def on_paste(self, event: events.Paste) -> None:
        """A paste no text box took filters the list."""
        if self.sources.take_paste(event.text):
            event.stop()

    def action_toggle_here(self) -> None:
        self.sources.toggle_here()

    def action_toggle_branch(self) -> None:
        self.sources.toggle_branch()

    def action_toggle_subagents(self) -> None:
        self.sources.toggle_subagents()

    def action_peek(self) -> None:
        self.sources.peek()

    def action_reload(self) -> None:
        self.sources.reload()

    def on_unmount(self) -> None:
        self._resume_gc()
        let_gc_see_all()

    def on_resize(self) -> None:
        """Fit the terminal: a narrower source list, a shorter card and a compact footer when small."""
        narrow, short = self.size.width < 100, self.size.height < 32
        self.set_class(narrow, "-narrow")
        self.set_class(self.size.width >= 160, "-wide")
        self.query_one(SessionCard).set_compact(narrow or short)
        self.sources.fit(narrow)
        footer = self.query_one(Footer)
        footer.compact = narrow
        footer.show_command_palette = not narrow
        if self.sources.scanned:
            self.show_idle()

    @on(SessionsLoaded)
    def _sessions_loaded(self, message: SessionsLoaded) -> None:
        """The tree is sorted (the panel did it): the card counts each agent's sessions, the tokenizers load."""
        keep_out_of_gc()
        self.query_one(PreviewTabs).complete()  # the hidden tabs, made after the first paint
        self.show_idle()
        sessions = self.sources.source_tree.sessions
        self.loader.warm_counters(backend.likely_targets({info.agent for info in sessions}, self.target))

    def show_idle(self) -> None:
        """While no session is open, the card's count per agent (or, with none at all, where smig looked)."""
        sessions = self.sources.source_tree.sessions
        self.set_class(not sessions, "-empty")
        if not sessions:
            self.query_one(SessionCard).show_empty(backend.searched_places(self.services))
        elif self.info is None:
            self.query_one(SessionCard).show_idle(backend.detected(self.services, sessions))

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

    def action_back(self) -> None:
        """Escape: back from the preview to the sessions, stop a session read in progress, else clear the filter."""
        preview = self.query_one(PreviewTabs)
        if self.focused is not None and preview in self.focused.ancestors_with_self:
            self.query_one(SourceTree).focus()
            return
        if self.reading:
            self.loader.cancel_read()
            self.reading = False
            preview.hide_loading()
            preview.show_note("Reading cancelled: Enter on the session reads it again.")
            self.query_one(SessionCard).show_note("Reading cancelled.")
            self.info = None
            return
        self.sources.clear_filter()

    def action_search(self) -> None:
        from smig_tui.tui.screens.search import SearchModal

        self.app.push_screen(SearchModal(self.services), callback=self._search_done)

    def _search_done(self, hit: SearchHit | None) -> None:
        """Open the session of the chosen hit; its plan table then moves to the hit's message."""
        if hit is None:
            return
        from smig_tui.core.errors import SmigError

        known = [
            info for info in self.sources.source_tree.sessions if info.path == hit.path and info.id == hit.session_id
        ]
        try:
            info = known[0] if known else self.services.find_session(hit.session_id)
        except SmigError as error:
            self.notify(str(error), severity="error")
            return
        self.found_message = hit.message_id
        self.open_session(info)

    # Selection and measure --------------------------------------------------------------------

    @on(SourcesPanel.Chosen)
    def _session_chosen(self, event: SourcesPanel.Chosen) -> None:
        self.open_session(event.info)

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
        if self.loader.shows_progress(info):
            tabs.show_loading(0, info.size)
        else:
            tabs.hide_loading()
        self.loader.read(info)

    @on(LoadProgress)
    def _load_progress(self, message: LoadProgress) -> None:
        if self.reading and self.info is not None and message.path == self.info.path:
            self.query_one(PreviewTabs).show_loading(message.done, message.total)

    @on(SessionRead)
    def _session_read(self, message: SessionRead) -> None:
        if self.info is None or message.session.info.path != self.info.path:
            return
        self.session = message.session  # left out of cyclic collections by the read (`SessionLoader.read`)
        self.reading = False
        self.query_one(PreviewTabs).hide_loading()
        self.query_one(PreviewTabs).show_note("Counting tokens…")
        self.query_one(SessionCard).show_session(message.session.info, message.session)
        if message.session.warnings:
            first = message.session.warnings[0]
            self.notify(
                f"{plural(len(message.session.warnings), 'line')} skipped; first: {first}",
                severity="warning",
                markup=False,
            )
        self.replan()

    def replan(self) -> None:
        """Measure and plan the session against the target in the background, the tab on show first."""
        if self.session is None:
            return
        target = self.target or backend.default_target(self.session)
        first = self.query_one(PreviewTabs).strategy
        self.loader.plan(self.session, target, self.pins, dict(self.summaries), first)

    @on(PlansReady)
    def _plans_ready(self, message: PlansReady) -> None:
        self._show_plans(message)
        self.call_after_refresh(message.shown.set)

    def _show_plans(self, message: PlansReady) -> None:
        """Show the plans on the card and the tabs, unless they were made for another session or request."""
        if self.session is None or message.session_id != self.session.id:
            return
        if message.generation != self.loader.generation:
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


def _is_text_area(widget: object) -> bool:
    """Whether `widget` is a TextArea (the summary editor). Its module is imported only once the editor
    is made, so first paint does not load it for this test: when it is not loaded, no widget is one."""
    module = sys.modules.get("textual.widgets._text_area")
    return module is not None and isinstance(widget, module.TextArea)
