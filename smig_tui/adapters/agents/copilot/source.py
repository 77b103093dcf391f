"""Provides `CopilotSource`: finds and reads GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`).

A listing finds each event of `events.jsonl` by its type and parses only the ones it shows
(`listing`), the whole file when those cannot say; the listing cache keeps each unchanged file's
entry, so a warm listing reads no session. The title is the picker's (`workspace.yaml` `name`), else the first
prompt. Damaged lines (one half-written while the client appends) are one warning naming the file
and its lines; the rest still lists and loads.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from smig_tui.adapters.agents.copilot.events import conversation, read_session
from smig_tui.adapters.agents.copilot.home import EVENTS, WORKSPACE
from smig_tui.adapters.agents.copilot.listing import Listing, listing_from_ends, whole_listing
from smig_tui.adapters.agents.copilot.workspace import read_workspace
from smig_tui.adapters.agents.file_sessions import cannot_read, load_whole, newest_first, warn_damaged
from smig_tui.adapters.storage.discovery_cache import listed
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo
from smig_tui.core.ports import WarningSink
from smig_tui.core.words import title_line

TITLE_MAX = 120
AGENT = Agent("copilot")


class CopilotSource:
    """Reads Copilot CLI sessions from its `session-state` folder without ever writing to it."""

    def __init__(self, sessions: Path, listing_cache: Path | None = None) -> None:
        self._sessions = sessions
        self._listing_cache = listing_cache

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        return AGENT

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every session with a conversation in it, newest file first."""
        if not self._sessions.is_dir():
            return
        paths = sorted(session_files(self._sessions, warn), key=newest_first)
        yield from listed(paths, lambda path: self.describe(path, warn), self._listing_cache)

    def describe(self, path: Path, warn: WarningSink) -> SessionInfo | None:
        """The listing entry of one `events.jsonl`, or None (with a warning) when it cannot be read."""
        try:
            stat = path.stat()
            listing = listing_from_ends(path) or _read_whole(path, warn)
        except OSError as error:
            warn(cannot_read(path, error))
            return None
        session_id = listing.session_id or _folder_id(path)
        if session_id is None:
            warn(ReadWarning(str(path), None, "skipped: no Copilot CLI session start in it"))
            return None
        if not listing.has_conversation:
            return None  # nothing said yet: the client's picker lists no such session either
        workspace = read_workspace(path.parent / WORKSPACE)
        cwd = listing.cwd or workspace.get("cwd") or None
        start = listing.start
        return SessionInfo(
            id=session_id,
            agent=AGENT,
            path=str(path),
            cwd=cwd,
            title=title_line(workspace.get("name"), TITLE_MAX) or title_line(listing.first_prompt, TITLE_MAX),
            model=listing.model or _text(start.get("selectedModel")),
            created=_text(start.get("startTime")) or listing.updated,
            updated=listing.updated,
            source_version=_text(start.get("copilotVersion")),
            size=stat.st_size,
            mtime=stat.st_mtime,
            message_count=listing.message_count,
            context_tokens=listing.context_tokens,
            project=cwd or path.parent.name,
        )

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read one session in full, as the client would resume it."""
        return load_whole(info, warn, lambda path: read_session(path, pack=True), conversation)


def _read_whole(path: Path, warn: WarningSink) -> Listing:
    """The listing from the whole file, its damaged lines one warning."""
    session = read_session(path)
    warn_damaged(path, session.damaged, warn)
    return whole_listing(session)


def session_files(sessions: Path, warn: WarningSink) -> Iterator[Path]:
    """Every `session-state/<id>/events.jsonl` (the client's lock folders, starting with `.`, left out)."""
    try:
        entries = list(os.scandir(sessions))
    except OSError as error:
        warn(ReadWarning(str(sessions), None, f"skipped: cannot list it ({error.strerror or error})"))
        return
    for entry in entries:
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        events = Path(entry.path) / EVENTS
        if events.is_file():
            yield events


def _folder_id(path: Path) -> str | None:
    """A session's id from its folder, when its start event is lost (a damaged first line)."""
    name = path.parent.name
    return name if len(name) == 36 and name.count("-") == 4 else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
