"""Provides the reading and planning of the open session, in workers: the file read with its progress
(Escape stops it between chunks), then every strategy planned, the tab on show first."""

from __future__ import annotations

import gc
import time

from textual import work
from textual.worker import get_current_worker

from smig_tui.core.models import Session, SessionInfo, Strategy
from smig_tui.core.plans import left_out
from smig_tui.services import Services, no_cyclic_gc
from smig_tui.tui import backend
from smig_tui.tui.handed import handed_work
from smig_tui.tui.messages import LoadProgress, LoadStopped, PlansReady, PlansUnavailable, SessionRead
from smig_tui.tui.screens.base import SmigWidget

PROGRESS_FROM_BYTES = 8 * 1024 * 1024
"""Sessions at least this big show a progress bar while they are read."""
PROGRESS_SECONDS = 0.1
"""How often the read posts its progress: each post costs the UI thread a redraw."""
SHOWN_WAIT = 1.0
"""Longest the planner waits for the tab on show to be drawn before planning the others anyway."""
READ_GROUP = "session.read"
PLAN_GROUP = "session.plan"


def keep_out_of_gc() -> None:
    """Leave what is alive now out of later cyclic collections: a session read and planned is
    hundreds of thousands of objects, and a full collection walking them all froze the UI for
    0.3-0.9 s in the middle of typing. Sessions and plans form no cycles, so refcounting still
    frees them; `let_gc_see_all` hands everything back when another session is opened."""
    gc.freeze()


def let_gc_see_all() -> None:
    """Undo `keep_out_of_gc`, so cycles that became garbage since are collected again.

    The cycles made since it are collected first: a dialog closed, a finished worker and its task. One
    that lived long enough to be counted old only a full collection frees, and once frozen with the
    next session, none does: a commit dialog kept open a while, then closed, would so keep its plans,
    and through them the messages of the session being let go. Only what is not frozen is walked, a few
    milliseconds: the session's objects are frozen."""
    gc.collect()
    gc.unfreeze()


class ReadCancelled(Exception):
    """Raised inside a session read to abandon it (the user pressed Escape)."""


class SessionLoader(SmigWidget):
    """Runs the read and plan workers of the browse screen; what they find reaches the screen as messages."""

    DEFAULT_CSS = "SessionLoader { display: none; }"
    progress_from_bytes: int = PROGRESS_FROM_BYTES
    progress_seconds: float = PROGRESS_SECONDS

    def __init__(self, services: Services) -> None:
        super().__init__(id="session-loader")
        self.services = services
        self.generation = 0
        """Counts plan requests, so plans made for a superseded target or pins are not shown."""

    @work(thread=True, exclusive=True, group="tokens.warm", exit_on_error=False)
    def warm_counters(self, targets: list[str]) -> None:
        """Load the tokenizers while the user looks at the list: about half a second each, which the
        first session opened would otherwise wait for before its first figures."""
        for name in targets:
            backend.warm_counter(self.services, name)

    def shows_progress(self, info: SessionInfo) -> bool:
        """Whether reading `info` shows a progress bar (a big file)."""
        return info.size >= self.progress_from_bytes

    def cancel_read(self) -> None:
        self.workers.cancel_group(self, READ_GROUP)

    def worker_failed(self, group: str, error: BaseException) -> None:
        if group == PLAN_GROUP:
            self.post_message(PlansUnavailable(f"Cannot plan: {error}"))

    @work(thread=True, exclusive=True, group=READ_GROUP, exit_on_error=False)
    def read(self, info: SessionInfo) -> None:
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
            with no_cyclic_gc():  # the reader's own pause ends with this outer one
                session = backend.read_session(self.services, info, report)
                keep_out_of_gc()  # before the collector is back: its first passes walked the whole session (0.15-0.3 s)
        except ReadCancelled:
            self.post_message(LoadStopped(info.path))
            return
        if not worker.is_cancelled:
            self.post_message(SessionRead(session))

    def plan(
        self, session: Session, target: str, pins: frozenset[str], summaries: dict[Strategy, str], first: Strategy
    ) -> None:
        """Plan `session` against `target` afresh; plans of earlier requests are then stale."""
        self.generation += 1
        self._plan(session, target, pins, summaries, first, self.generation)

    @handed_work(exclusive=True, group=PLAN_GROUP, exit_on_error=False, description="plan the open session")
    def _plan(
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
        capacity = self.services.capacities.lookup(target)
        exact, counter = backend.counter_label(self.services, capacity)
        stop = lambda: worker.is_cancelled  # noqa: E731 - asked between plans
        for plans in backend.plans_visible_first(self.services, session, target, pins, summaries, first, stop):
            exact, counter = backend.counter_label(self.services, capacity, session)  # the ± of the counted mix
            decision = plans[first].decision
            estimated = self.services.guessed_ids(session, capacity) if decision.partial else frozenset()
            if worker.is_cancelled:
                return
            for plan in plans.values():
                left_out(plan)  # worked out here for the tab's line, not on the UI thread: 15-35 ms on 500 MB
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
