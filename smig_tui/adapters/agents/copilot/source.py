"""Provides `CopilotSource`: finds and reads GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`).

A listing reads each `events.jsonl` once, skipping the system prompts and compaction requests the
client records in it unparsed, and the listing cache keeps each unchanged file's entry, so a warm
listing reads no session. The title is the picker's (`workspace.yaml` `name`), else the first
prompt. Damaged lines (one half-written while the client appends) are one warning naming the file
and its lines; the rest still lists and loads.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from smig_tui.adapters.agents.copilot.events import conversation, read_session
from smig_tui.adapters.agents.copilot.home import EVENTS, WORKSPACE
from smig_tui.adapters.agents.copilot.workspace import read_workspace
from smig_tui.adapters.agents.file_sessions import newest_first, warn_damaged
from smig_tui.adapters.storage.discovery_cache import listed
from smig_tui.core.errors import SessionReadError
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
            session = read_session(path)
        except OSError as error:
            warn(ReadWarning(str(path), None, f"skipped: cannot read it ({error.strerror or error})"))
            return None
        warn_damaged(path, session.damaged, warn)
        session_id = session.session_id or _folder_id(path)
        if session_id is None:
            warn(ReadWarning(str(path), None, "skipped: no Copilot CLI session start in it"))
            return None
        converted = conversation(session)
        if not converted.messages:
            return None  # nothing said yet: the client's picker lists no such session either
        workspace = read_workspace(path.parent / WORKSPACE)
        cwd = session.cwd or workspace.get("cwd") or None
        start = session.first("session.start")
        created = start.get("startTime") if isinstance(start.get("startTime"), str) else None
        version = start.get("copilotVersion") if isinstance(start.get("copilotVersion"), str) else None
        return SessionInfo(
            id=session_id,
            agent=AGENT,
            path=str(path),
            cwd=cwd,
            title=title_line(workspace.get("name"), TITLE_MAX) or title_line(converted.first_prompt, TITLE_MAX),
            model=converted.model or _text(start.get("selectedModel")),
            created=created or session.last_stamp(),
            updated=session.last_stamp(),
            source_version=version,
            size=stat.st_size,
            mtime=stat.st_mtime,
            message_count=len(converted.messages),
            context_tokens=converted.context_tokens or None,
            project=cwd or path.parent.name,
        )

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read one session in full, as the client would resume it."""
        path = Path(info.path)
        warnings: list[ReadWarning] = []

        def sink(warning: ReadWarning) -> None:
            warnings.append(warning)
            warn(warning)

        try:
            session = read_session(path)
        except OSError as error:
            raise SessionReadError(f"Cannot read {path}: {error.strerror or error}.") from error
        warn_damaged(path, session.damaged, sink)
        converted = conversation(session)
        return Session(
            info=info,
            messages=tuple(converted.messages),
            warnings=tuple(warnings),
            measured_context_tokens=converted.context_tokens or None,
        )


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
