"""Provides the browse screen's migration actions: target, pins, summary, commit and export.

`MigrateActions` is a widget without a face, mounted once by `BrowseScreen`: it owns the workers of
these actions (so their failures are reported here, see `SmigWidget`) and reads the screen's state
(session, plans, target, pins, summaries) through `browse`; the screen's key bindings call its methods.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from textual import work

from smig_tui.core.errors import SmigError
from smig_tui.core.models import Message, ModelCapacity, Session, Strategy
from smig_tui.core.plan_structure import NOT_MIGRATED
from smig_tui.core.strategies import SUMMARY_STRATEGIES
from smig_tui.tui import backend
from smig_tui.tui.handed import handed_work
from smig_tui.tui.messages import (
    CommitPreviewed,
    Committed,
    Exported,
    RecentTargetsSaved,
    SummaryDelta,
    SummaryFinished,
    SummaryNotice,
)
from smig_tui.tui.prefs import load_recent, remember, save_recent
from smig_tui.tui.screens.base import SmigWidget
from smig_tui.tui.widgets.plan_table import PLACEHOLDER_KEY, SUMMARY_KEY, PlanTable
from smig_tui.tui.widgets.preview_tabs import PreviewTabs
from smig_tui.tui.widgets.summary_pane import SummaryPane


def notice_key(strategy: Strategy, messages: tuple[Any, ...]) -> tuple[Any, ...]:
    """What a summary notice depends on: the strategy and exactly which messages would be sent."""
    ids = tuple(message.id for message in messages[:1] + messages[-1:])
    return (strategy, len(messages), ids)


if TYPE_CHECKING:  # the dialogs are imported when one first opens: none is needed for the first paint
    from textual.widgets.markdown import MarkdownStream

    from smig_tui.core.models import SessionInfo
    from smig_tui.services import Services
    from smig_tui.tui.messages import PlansReady
    from smig_tui.tui.screens.commit import CommitChoice
    from smig_tui.tui.screens.export import ExportRequest


class OpenSession(Protocol):
    """What these actions read and change on the screen that mounts them (`BrowseScreen`): the open
    session, its plans, and the user's choices for it."""

    here: str
    info: SessionInfo | None
    session: Session | None
    target: str | None
    plans: PlansReady | None
    pins: frozenset[str]
    summaries: dict[Strategy, str]

    def replan(self) -> None: ...


class MigrateActions(SmigWidget):
    """Target picking, pinning, summarising, committing and exporting for `BrowseScreen`."""

    DEFAULT_CSS = "MigrateActions { display: none; }"

    def __init__(self, services: Services) -> None:
        super().__init__(id="migrate-actions")
        self.services = services
        self.recent: list[str] = []
        """Recently chosen targets, newest first."""
        self.summary_cancel = threading.Event()
        self.summary_stream: MarkdownStream | None = None
        self._notices: dict[tuple[Any, ...], str] = {}
        """What each summary tab would send, by `notice_key`, so a target switch does not scan again."""

    @property
    def browse(self) -> OpenSession:
        """The screen whose session, plans, target, pins and summaries these actions use."""
        return cast("OpenSession", self.screen)

    def on_mount(self) -> None:
        self.load_prefs()

    # Target -----------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="prefs.load", exit_on_error=False)
    def load_prefs(self) -> None:
        """Read the recent targets."""
        self.post_message(RecentTargetsSaved(load_recent(self.services.paths.data_dir / "tui.json")))

    def on_recent_targets_saved(self, message: RecentTargetsSaved) -> None:
        self.recent = message.names
        if self.browse.target is None and message.names:
            self.browse.target = message.names[0]
            self.browse.replan()

    def pick_target(self) -> None:
        self.list_models()

    @work(thread=True, exclusive=True, group="models.list", exit_on_error=False)
    def list_models(self) -> None:
        """Load the capacity table, then open the picker on the UI thread."""
        models = list(self.services.capacities.models)
        self.app.call_from_thread(self._open_picker, models)

    def _open_picker(self, models: list[ModelCapacity]) -> None:
        from smig_tui.tui.screens.model_picker import ModelPickerModal

        current = self.browse.target or (backend.default_target(self.browse.session) if self.browse.session else None)
        self.app.push_screen(ModelPickerModal(models, self.recent, current), self._target_chosen)

    def _target_chosen(self, name: str | None) -> None:
        if not name or name == self.browse.target:
            return
        self.browse.target = name
        self.recent = remember(self.recent, name)
        self.store_recent(list(self.recent))
        self.browse.replan()

    @work(thread=True, exclusive=True, group="prefs.save", exit_on_error=False)
    def store_recent(self, names: list[str]) -> None:
        """Persist the recent targets."""
        save_recent(self.services.paths.data_dir / "tui.json", names)

    # Tabs and pins ----------------------------------------------------------------------------

    def show_tab(self, strategy: str) -> None:
        self.screen.query_one(PreviewTabs).activate(Strategy(strategy))

    def pin(self) -> None:
        if self.browse.plans is None:
            self.notify(
                "Open a session first (Enter on the tree), then pin messages in its preview.", severity="warning"
            )
            return
        table = self.screen.query_one(PreviewTabs).table()
        message = table.highlighted_message() if table is not None and table.has_focus else None
        if message is None:
            self.notify("Highlight a message in a preview table (Tab to it) to pin it.", severity="warning")
            return
        self.toggle_pin(message)

    def unpinnable(self, message: Message) -> str | None:
        """Why no plan can keep `message` (harness context, sealed reasoning, half a tool pair), or None."""
        if self.browse.plans is None:
            return None
        for plan in self.browse.plans.plans.values():
            for item in plan.items:
                if item.message.id == message.id:
                    return item.reason if item.reason in NOT_MIGRATED else None
        return None

    def toggle_pin(self, message: Message) -> bool:
        """Pin or unpin a message and re-plan; returns whether it is pinned now."""
        why_not = self.unpinnable(message)
        if why_not is not None:
            self.notify(
                f"Message {message.index} cannot be pinned: it is {why_not}, which no plan migrates.",
                severity="warning",
            )
            return False
        pinned = message.id not in self.browse.pins
        self.browse.pins = self.browse.pins | {message.id} if pinned else self.browse.pins - {message.id}
        self.notify(f"Message {message.index} {'pinned: every plan keeps it' if pinned else 'unpinned'}.")
        self.browse.replan()
        return pinned

    def view_row(self, table: PlanTable) -> None:
        """Open the viewer on the row under the table's cursor: a message, the summary or the placeholder."""
        from smig_tui.tui.screens.message_viewer import MessageViewer, Viewed, view_of_item  # Markdown: not at start

        key, plan = table.highlighted_key(), table.plan
        if key is None or plan is None:
            return
        if key == PLACEHOLDER_KEY and plan.placeholder:
            viewed = Viewed("Placeholder · stands in for the dropped messages", plan.placeholder)
        elif key == SUMMARY_KEY and plan.summary:
            viewed = Viewed("Summary · replaces the older messages", plan.summary)
        else:
            item = table.highlighted_item()
            if item is None:
                return
            viewed = view_of_item(item, item.message.id in self.browse.pins, self.unpinnable(item.message))
        self.app.push_screen(
            MessageViewer(viewed, viewed.message is not None and viewed.message.id in self.browse.pins, self.toggle_pin)
        )

    # Summary ----------------------------------------------------------------------------------

    def summary_messages(self, strategy: Strategy) -> tuple[Any, ...]:
        """What the summarizer is given: the whole conversation, or the head the tail plan drops."""
        if self.browse.session is None:
            return ()
        if strategy is Strategy.SUMMARY_TAIL and self.browse.plans is not None:
            plan = self.browse.plans.plans.get(strategy)
            if plan is not None:
                return tuple(item.message for item in plan.dropped)
        return tuple(self.browse.session.messages)

    def summarize(self) -> None:
        tabs = self.screen.query_one(PreviewTabs)
        pane = tabs.summary_pane()
        if self.browse.session is None:
            self.notify(
                "Open a session first (Enter on the tree), then summarise it on tab 3 or 4.", severity="warning"
            )
            return
        if pane is None:
            self.notify("Open the Summary or Summary + tail tab (3 or 4) to summarise.", severity="warning")
            return
        if pane.streaming:
            self.summary_cancel.set()
            return
        problem = self.services.summary_key_problem()
        if problem is not None:
            self.notify(
                f"Nothing was sent. {problem} {backend.provider_setup(self.services)}", severity="warning", timeout=10
            )
            return
        self.summary_cancel = threading.Event()
        self.summary_stream = pane.start()
        self.run_summary(tabs.strategy, self.summary_messages(tabs.strategy), self.summary_cancel)

    # A description of its own: else Textual builds one from repr() of the whole session or plan (seconds).
    @work(
        thread=True,
        exclusive=True,
        group="summary.run",
        exit_on_error=False,
        description="summarize the dropped messages",
    )
    def run_summary(self, strategy: Strategy, messages: tuple[Any, ...], cancel: threading.Event) -> None:
        """Stream the summary from the provider, posting each delta."""

        def on_delta(text: str) -> None:
            self.post_message(SummaryDelta(text))

        result = backend.summarize(
            self.services, messages, head_only=strategy is Strategy.SUMMARY_TAIL, on_delta=on_delta, cancel=cancel
        )
        self.post_message(SummaryFinished(strategy, result.text, result, cancel.is_set()))

    async def on_summary_delta(self, message: SummaryDelta) -> None:
        pane = self.screen.query_one(PreviewTabs).summary_pane()
        if pane is not None and pane.streaming:
            pane.append(message.text)
        if self.summary_stream is not None:
            await self.summary_stream.write(message.text)

    async def on_summary_finished(self, message: SummaryFinished) -> None:
        if self.summary_stream is not None:
            await self.summary_stream.stop()
            self.summary_stream = None
        strategy = message.strategy
        pane = self.screen.query_one(PreviewTabs).summary_pane(strategy)
        if pane is None:
            return
        pane.finish(message.text)
        self._notices.clear()  # a new summary may be cached now: say so next time
        if message.failed or not message.text.strip():
            # Nothing usable arrived: there is no summary, and the tab must not say there is one.
            self.browse.summaries.pop(strategy, None)
            self.refresh_summary_notices()
            return
        if message.cancelled:
            self.notify("Summary cancelled; what arrived is kept for editing.", severity="warning")
        self.browse.summaries[strategy] = message.text
        self.browse.replan()

    def refresh_summary_notices(self) -> None:
        """Work out, in the background, what each summary tab would send."""
        if self.browse.session is None:
            return
        wanted = {strategy: self.summary_messages(strategy) for strategy in SUMMARY_STRATEGIES}
        known = self._notices
        todo = {}
        for strategy, messages in wanted.items():
            key = notice_key(strategy, messages)
            if key in known:  # same messages as last time (a target switch rarely changes them): no new scan
                self.post_message(SummaryNotice(strategy, known[key]))
            else:
                todo[strategy] = messages
        if todo:
            self.summary_notices(todo)

    # A description of its own: else Textual builds one from repr() of the whole session or plan (seconds).
    @work(
        thread=True,
        exclusive=True,
        group="summary.notice",
        exit_on_error=False,
        description="check for cached summaries",
    )
    def summary_notices(self, wanted: dict[Strategy, tuple[Any, ...]]) -> None:
        """Preview what each summary would send (counts and redactions; nothing is sent)."""
        for strategy, messages in wanted.items():
            try:
                text = backend.summary_notice(self.services, messages, strategy is Strategy.SUMMARY_TAIL)
            except SmigError as error:
                text = str(error)
            else:
                self._notices[notice_key(strategy, messages)] = text
            self.post_message(SummaryNotice(strategy, text))

    def on_summary_notice(self, message: SummaryNotice) -> None:
        pane = self.screen.query_one(PreviewTabs).summary_pane(message.strategy)
        if pane is not None:
            if self.browse.summaries.get(message.strategy, "").strip():
                pane.show_notice(f"Summary written: e edits it, s writes it again. {message.text}")
            else:
                pane.show_notice(message.text)

    def edit_summary(self) -> None:
        pane = self.screen.query_one(PreviewTabs).summary_pane()
        if pane is None or not pane.text:
            self.notify("There is no summary to edit yet: press s on tab 3 or 4 to write one.", severity="warning")
            return
        pane.edit()
        self.notify("Editing the summary: Escape keeps the edit and re-plans.")

    def summary_edited(self, message: SummaryPane.Edited) -> None:
        """A summary pane's edit was kept: plan with it (the screen passes the pane's message on)."""
        strategy = Strategy.SUMMARY if message.pane.id == "full-summary" else Strategy.SUMMARY_TAIL
        self.browse.summaries[strategy] = message.text
        self.screen.query_one("#tabs Tabs").focus()
        self.browse.replan()

    # Commit and export ------------------------------------------------------------------------

    def ready_plan(self) -> tuple[Session, Any] | None:
        """The session and the plan on show, when they can be committed; says why not otherwise."""
        if self.browse.info is None:
            self.notify("Open a session first: highlight it on the left and press Enter.", severity="warning")
            return None
        if self.browse.session is None or self.browse.plans is None:
            self.notify(
                "The session is still being read and measured; its figures show when ready.", severity="warning"
            )
            return None
        tabs = self.screen.query_one(PreviewTabs)
        pane = tabs.summary_pane()
        if pane is not None and pane.editing:
            self.notify("Finish editing the summary first: Escape keeps the edit and re-plans.", severity="warning")
            return None
        strategy = tabs.strategy
        plan = self.browse.plans.plans.get(strategy)
        if plan is None:
            self.notify("The planner has no plan for this tab.", severity="warning")
            return None
        if strategy in SUMMARY_STRATEGIES and not plan.summary:
            self.notify("This tab needs its summary first: press s to write it.", severity="warning")
            return None
        return self.browse.session, plan

    def commit(self) -> None:
        ready = self.ready_plan()
        if ready is None:
            return
        self.preview_commit(*ready, self.browse.pins)

    @handed_work(exclusive=True, group="commit.preview", exit_on_error=False, description="preview the commit")
    def preview_commit(self, session: Session, plan: Any, pins: frozenset[str]) -> None:
        """Dry-run the migration so the dialog can list exactly what goes where, and what each agent gets."""
        preview, choices, plans = backend.commit_preview(self.services, session, plan, pins)
        self.post_message(CommitPreviewed(preview, choices, plans))

    def on_commit_previewed(self, message: CommitPreviewed) -> None:
        ready = self.ready_plan()
        if ready is None:
            return
        from smig_tui.tui.screens.commit import CommitModal

        session = ready[0]
        default = backend.default_native(session)
        modal = CommitModal(message.preview, message.choices, default, session.info.cwd or "", message.plans)
        self.app.push_screen(modal, lambda choice: self._commit_confirmed(session, choice))

    def _commit_confirmed(self, session: Session, choice: CommitChoice | None) -> None:
        if choice is None:
            return
        from smig_tui.tui.screens.commit_progress import CommitProgressModal

        # Shown at once and until the result is: OpenCode's import takes seconds, and keys pressed
        # meanwhile go to this dialog, which drops them, not to the result's.
        self.app.push_screen(CommitProgressModal(choice))
        self.run_commit(session, choice)

    @handed_work(exclusive=True, group="commit.run", exit_on_error=False, description="commit the migration")
    def run_commit(self, session: Session, choice: CommitChoice) -> None:
        """Write the migration as the dialog stated it (planned for the chosen agent, for the folder typed)."""
        result = backend.commit(self.services, session, choice.plan, choice.chosen, choice.cwd)
        self.post_message(Committed(result, choice.note, choice.plan))

    def worker_failed(self, group: str, error: BaseException) -> None:
        from smig_tui.tui.screens.commit_progress import CommitProgressModal

        if group == "summary.run":  # the summary pane stops streaming and says nothing was written
            self.post_message(SummaryFinished(self.screen.query_one(PreviewTabs).strategy, "", None, True, failed=True))
        elif group == "commit.run" and isinstance(self.app.screen, CommitProgressModal):
            self.app.screen.dismiss(None)  # the notice that follows says why nothing (or not all) was written

    def on_committed(self, message: Committed) -> None:
        from smig_tui.tui.screens.commit_progress import CommitProgressModal
        from smig_tui.tui.screens.commit_result import CommitResultModal

        if isinstance(self.app.screen, CommitProgressModal):
            self.app.screen.dismiss(None)
        self.notify("Migration committed.")
        self.app.push_screen(CommitResultModal(message.result, message.plan, message.note))

    def export(self) -> None:
        ready = self.ready_plan()
        if ready is None:
            return
        from smig_tui.tui.screens.export import ExportModal

        default_dir = backend.shown(Path(backend.export_folder(ready[0], self.browse.here)))
        self.app.push_screen(ExportModal(ready[0].id, default_dir), lambda request: self._export_chosen(ready, request))

    def _export_chosen(self, ready: tuple[Session, Any], request: ExportRequest | None) -> None:
        if request is not None:
            self.run_export(ready[0], ready[1], request)

    @handed_work(exclusive=True, group="export.run", exit_on_error=False, description="export the session")
    def run_export(self, session: Session, plan: Any, request: ExportRequest) -> None:
        """Render the export and write it to the file, or hand the text back for the clipboard."""
        detail, text = backend.export(self.services, session, plan, request)
        self.post_message(Exported(detail, text))

    def on_exported(self, message: Exported) -> None:
        if message.text is None:
            self.notify(message.detail, markup=False)
            return
        share = getattr(self.app, "share_text", None)
        if share is not None:
            share(message.text, message.detail)
        else:
            self.app.copy_to_clipboard(message.text)
            self.notify(f"Sent {message.detail} to the terminal's clipboard (OSC 52).", markup=False)
