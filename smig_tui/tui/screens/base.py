"""Provides the screen every smig screen builds on: worker failures are always reported.

Textual's `Worker.StateChanged` goes to the node that started the worker and does not bubble, so an
App-level handler never sees a screen's worker fail. Each screen reports its own, here, once.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import Screen
from textual.worker import Worker, WorkerState

from smig_tui.tui.messages import WorkerFailed

ResultType = TypeVar("ResultType")


class SmigScreen(Screen[ResultType]):
    """A screen whose failed workers end in one notice (the app words it), never a silent stall."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state is not WorkerState.ERROR or worker.error is None:
            return
        self.worker_failed(worker.group, worker.error)
        self.post_message(WorkerFailed(worker.error, worker.group))

    def worker_failed(self, group: str, error: BaseException) -> None:
        """Undo what the screen shows while `group` runs ("Reading…"); the notice is sent after."""
