"""Provides the Protocols the core needs from the outside world, implemented in adapters."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from smig_tui.core.models import Agent, Message, ReadWarning, Session, SessionInfo
from smig_tui.core.native import ContinueLatest, Lineage, NativeOutput, PlannedFile, Turn

WarningSink = Callable[[ReadWarning], None]
"""Where readers report what they skipped; the CLI prints to stderr, the TUI notifies."""


class TokenCounter(Protocol):
    """Counts tokens of text for one encoding."""

    @property
    def name(self) -> str:
        """The encoding's name (`o200k_base`, …) or `estimate` for the fallback."""
        ...

    @property
    def exact(self) -> bool:
        """False when the count is an estimate, so the UI can label it."""
        ...

    def count(self, text: str) -> int:
        """Return the number of tokens in `text`."""
        ...

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Return the token count of each text, in order."""
        ...


@runtime_checkable
class PartCounter(Protocol):
    """A counter that can count a long text's beginning alone, when only a lower bound of its count is needed."""

    def count_at_least(self, text: str, limit: float) -> tuple[int, int]:
        """`text`'s tokens counted from its start until they pass `limit`: (the count, the characters it
        covers), the whole text's count when those are all of them, else a beginning's, never more."""
        ...


class SessionSource(Protocol):
    """Finds and reads one agent's sessions."""

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        ...

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every session found, cheaply (file heads and tails), newest first where possible."""
        ...

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read one session in full, streaming the file."""
        ...


@dataclass(frozen=True, slots=True)
class NativeRequest:
    """What every writer is given: the migrated conversation (already redacted) and where it goes."""

    messages: tuple[Message, ...]
    note: str
    """The lineage note (where the session came from, what was left out); each writer places it."""
    folder: str
    """The project folder the session is written for."""
    lineage: Lineage
    title: str
    target: str
    """The model the plan was made for (a writer records it when its client can run it)."""
    git_branch: str | None
    now: datetime


@dataclass(frozen=True, slots=True)
class NativeLayout:
    """The files of one native session, ready to write (the session file last), and what it reads back as."""

    files: tuple[PlannedFile, ...]
    """Usually one; Gemini CLI adds its project folder's owner file before the session when the folder is new."""
    turns: tuple[Turn, ...]
    """The conversation as the client will see it, compared with the file read back after writing."""
    preamble: str | None = None
    """Model-visible text written before the turns as its own message (Codex's lineage note)."""


class NativeWriter(Protocol):
    """Lays out, and after writing completes, a session one agent's client resumes (`--to <agent>`)."""

    @property
    def agent(self) -> Agent:
        """The agent whose sessions this writes."""
        ...

    def unavailable(self) -> str | None:
        """Why this machine cannot write such a session (a missing command), or None when it can."""
        ...

    def lay_out(self, request: NativeRequest) -> NativeLayout:
        """Build every file's bytes; nothing is written (a dry run shows exactly this)."""
        ...

    def install(self, planned: PlannedFile) -> None:
        """After the files are written: make the session the client's (OpenCode imports it); most do nothing."""
        ...

    def uninstall(self, planned: PlannedFile) -> None:
        """Undo `install` when the commit fails later; quiet when there is nothing to undo."""
        ...

    def read_back(self, output: NativeOutput) -> Session:
        """Read a written session with smig's own reader, to compare it with the plan."""
        ...

    def announce(self, planned: PlannedFile) -> None:
        """After every session read back right: tell the client about it (Codex names the thread)."""
        ...

    @property
    def imports(self) -> bool:
        """True when `install` writes into the client's own database (OpenCode's import): such a session is
        installed after every file-only one read back right, so a commit failing before it leaves that
        database untouched."""
        ...

    def settle(self, planned: PlannedFile) -> ContinueLatest | None:
        """After the record is stored: let the client's own index learn of the session where it must
        (Codex), and say which session its "continue the latest" now picks in the folder. Never raises:
        what went wrong is said in the sentence."""
        ...


@dataclass(frozen=True, slots=True)
class ResumePoint:
    """Where the lines of a session file read so far end, so a file that only grew is read on from there."""

    offset: int
    """Byte offset just past the last complete line read."""
    line: int
    """The 1-based number of the line that starts at `offset`."""
    digest: str
    """A digest of the bytes just before `offset`: a file rewritten in place no longer matches it."""
    state: str = ""
    """What else the reader needs to read on, in its own words (Claude: the record the path ended at)."""


@dataclass(frozen=True, slots=True)
class Appended:
    """The messages of the lines a session file gained, and where its lines now end."""

    messages: tuple[Message, ...]
    """Numbered on from the messages read before."""
    point: ResumePoint


@runtime_checkable
class AppendReader(Protocol):
    """A source that can read only the lines a session file gained (the search index uses it)."""

    def resume_point(self, session: Session) -> ResumePoint | None:
        """Where a later read of appended lines may start, just after `session` was read whole; None
        when the file cannot be read on (compressed, or it changed since its info was taken)."""
        ...

    def read_appended(
        self, info: SessionInfo, point: ResumePoint, first_position: int, warn: WarningSink
    ) -> Appended | None:
        """The messages after `point`, or None when the file must be read whole again: its bytes
        before `point` changed, or the new lines rewrite earlier history (a compaction, a rollback)."""
        ...


@runtime_checkable
class HistoryReader(Protocol):
    """A source whose files hold more than the history the agent resumes (compacted-away turns)."""

    def load_history(self, info: SessionInfo, warn: WarningSink) -> Session:
        """`load`, with `Session.compacted_away` filled: everything the file holds can be searched."""
        ...


@runtime_checkable
class LineageReader(Protocol):
    """A source whose sessions inherit history from other sessions' files (Codex forks replay their parent's).

    The agent may have deleted a parent that smig's archive still holds: given a way to find the
    archived copies, the source reads a child's inherited history from them."""

    def use_archived_copies(self, copies: Callable[[str], list[str]]) -> None:
        """Use `copies(session_id)` (readable paths of that session's archived files, oldest first)
        when a session's own files are gone."""
        ...


NAMED_AT_MOST = 16
"""A `DirectLister` gives up on an id prefix that names more files than this: a short, ambiguous prefix
is answered as fast by the listing, which reads each file once."""


@runtime_checkable
class DirectLister(Protocol):
    """A source that can give some listing entries without listing its whole home.

    `smig plan PATH` or `smig plan ID` names one session; listing 2,000 sessions to find it costs
    most of a second cold. Where file names tell ids (Codex, Claude Code), a walk of names does.
    """

    def listed_as(self, resolved: str, warn: WarningSink) -> SessionInfo | None:
        """The entry `discover` would yield for the file at this resolved path, or None when this
        source cannot tell without a full listing (the caller then lists)."""
        ...

    def listed_with_id(self, prefix: str, warn: WarningSink) -> list[SessionInfo] | None:
        """The entries `discover` would yield whose id starts with `prefix`, in its order, found by
        file name; None when only a full listing can tell."""
        ...


@runtime_checkable
class CachedIds(Protocol):
    """A source that can tell the ids its last listing found without listing again (from its listing
    cache): what an id prefix shown for another agent's sessions must be unique among."""

    def cached_ids(self) -> list[str] | None:
        """Every session id of the last listing, sub-agents included; None when there is no such record."""
        ...


@dataclass(frozen=True, slots=True)
class Watched:
    """A folder or file a source's listing reads: changes under it may change what `discover` yields."""

    path: str
    tree: bool = False
    """A folder whose whole tree is read (session files in sub-folders); False: its own entries only,
    or one file."""
    names: str = ""
    """Of a folder's own entries, only those whose names begin with this count (a project folder where
    only the agent's history files matter: other files come and go without a listing)."""


@runtime_checkable
class WatchedFiles(Protocol):
    """A source that can name every folder and file its `discover` reads, so that a search can tell by
    their names, sizes and times alone that nothing it lists has changed (no file is opened). The
    built-in agents declare theirs in their profile (`AgentProfile.watched`), the archive's wrapper
    answers for them."""

    def watched(self) -> list[Watched] | None:
        """The folders and files `discover` reads (what is not under them never changes its result); None
        when this source cannot name them after all (a wrapper of one that cannot)."""
        ...


@dataclass(frozen=True, slots=True)
class ChatReply:
    """What one chat completion produced."""

    text: str
    truncated: bool = False
    """The reply may be incomplete: cut at the output cap, or the stream ended without finishing."""


class ChatBackend(Protocol):
    """Sends one chat request to a summarizer model, streaming deltas where asked."""

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        max_output_tokens: int,
        on_delta: Callable[[str], None] | None,
        cancel: threading.Event | None,
    ) -> ChatReply:
        """Return the model's reply, calling `on_delta` per streamed piece; stop when `cancel` is set."""
        ...
