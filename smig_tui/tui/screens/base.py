"""Provides the screen every smig screen builds on, and the widget for one that runs workers: worker
failures are always reported.

Textual's `Worker.StateChanged` goes to the node that started the worker and does not bubble, so an
App-level handler never sees a screen's (or a widget's) worker fail. Each reports its own, here, once.
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from smig_tui.tui.messages import WorkerFailed

ResultType = TypeVar("ResultType")


class SmigScreen(Screen[ResultType]):
    """A screen whose failed workers end in one notice (the app words it), never a silent stall."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        _report(self, event)

    def worker_failed(self, group: str, error: BaseException) -> None:
        """Undo what the screen shows while `group` runs ("Reading…"); the notice is sent after."""


class SmigWidget(Widget):
    """A widget that runs its own workers: a failed one ends in one notice, like a `SmigScreen`'s."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        _report(self, event)

    def worker_failed(self, group: str, error: BaseException) -> None:
        """Undo what shows while `group` runs; the notice is sent after."""


def _report(node: SmigScreen[Any] | SmigWidget, event: Worker.StateChanged) -> None:
    """Undo what a failed worker's node shows, then post the notice (it bubbles to the app)."""
    worker = event.worker
    if event.state is not WorkerState.ERROR or worker.error is None:
        return
    node.worker_failed(worker.group, worker.error)
    node.post_message(WorkerFailed(worker.error, worker.group))
