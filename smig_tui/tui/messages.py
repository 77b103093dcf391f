"""Provides the messages workers post to screens, and screens post to each other."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from smig_tui.core.models import ModelCapacity, Plan, Session, SessionInfo, Strategy


@dataclass
class SessionsFound(Message):
    """A batch of sessions the discovery worker has just read."""

    infos: list[SessionInfo]
    seen: int
    """Sessions discovered so far, this batch included."""


@dataclass
class SessionsLoaded(Message):
    """Discovery has finished."""

    total: int
    warnings: list[str] = field(default_factory=list)


@dataclass
class SessionRead(Message):
    """A session was read in full."""

    session: Session


@dataclass
class LoadProgress(Message):
    """Bytes of a session file read so far."""

    path: str
    done: int
    total: int


@dataclass
class LoadStopped(Message):
    """Reading a session was cancelled (Escape) before it finished."""

    path: str


@dataclass
class PlansReady(Message):
    """Plans for one session against one target: the tab on show first, then every strategy."""

    session_id: str
    target: ModelCapacity
    plans: dict[Strategy, Plan]
    estimate: int
    """The session's size by the target's counter, summed over messages."""
    exact: bool
    """False when that counter is the labelled estimate, not the real tokenizer."""
    counter_name: str = ""
    estimated: frozenset[str] = frozenset()
    """Ids of messages whose tokens are a length guess, marked ≈ in the tables."""
    pending: frozenset[Strategy] = frozenset()
    """Strategies still being planned (the tab on show is planned first, the others follow)."""
    generation: int = 0
    """Which plan request these answer: a newer one (another target, a pin) supersedes them."""
    shown: threading.Event = field(default_factory=threading.Event)
    """Set once the screen has handled these plans and drawn itself: the planner waits for it before
    planning the other tabs, which would otherwise hold the interpreter's lock half the time the
    tab on show is being drawn."""


@dataclass
class PlansUnavailable(Message):
    """The planner could not plan (not installed yet, or the target is unknown)."""

    reason: str


@dataclass
class SummaryDelta(Message):
    """A piece of the summary as the provider streams it."""

    text: str


@dataclass
class SummaryNotice(Message):
    """What a summary tab would send, or why it cannot: shown before anything is sent."""

    strategy: Strategy
    text: str


@dataclass
class SummaryFinished(Message):
    """The summarizer has finished (or was cancelled, with `text` holding what arrived)."""

    strategy: Strategy
    text: str
    result: Any = None
    cancelled: bool = False
    failed: bool = False
    """The summarizer raised: nothing usable arrived, whatever `text` holds."""


@dataclass
class CommitPreviewed(Message):
    """A dry run of the commit: what would be written where."""

    preview: Any
    choices: dict[str, str]
    """Output name -> description shown in the confirm dialog."""
    plans: dict[str, tuple[Plan, str]] = field(default_factory=dict)
    """Output name ('' for storage only) -> the plan written for it, and why it differs from the preview's."""


@dataclass
class Committed(Message):
    """The migration has been written."""

    result: Any
    note: str = ""
    """Why what was written differs from the preview (planned again for the chosen agent), or ''."""
    plan: Plan | None = None
    """The plan written: its figures, and whether it fit, are part of the result."""


@dataclass
class Exported(Message):
    """An export finished; `detail` says exactly what happened."""

    detail: str
    text: str | None = None
    """The exported text when it goes to the clipboard (copied on the UI thread)."""


@dataclass
class RecentTargetsSaved(Message):
    """The recent-target list was written to disk."""

    names: list[str]


@dataclass
class WorkerFailed(Message):
    """A screen's worker raised; the app shows it as a notification, never a traceback."""

    error: BaseException
    group: str
