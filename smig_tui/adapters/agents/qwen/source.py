"""Provides `QwenSource`: finds and reads Qwen Code sessions (`~/.qwen/projects/<project>/chats/<id>.jsonl`).

A listing parses each file once (its chain decides what the client would resume, so the ends alone
cannot say) and the listing cache keeps each unchanged file's entry, so a warm listing reads no
session. Damaged lines (one half-written while the client appends) are one warning naming the file
and its lines; the rest still lists and loads.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.content_parts import part_text
from smig_tui.adapters.agents.file_sessions import folder_entries, newest_first, warn_damaged
from smig_tui.adapters.agents.qwen.records import SessionFile, conversation, read_session
from smig_tui.adapters.storage.discovery_cache import listed
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo
from smig_tui.core.ports import WarningSink
from smig_tui.core.words import title_line

TITLE_MAX = 120
AGENT = Agent("qwen")


class QwenSource:
    """Reads Qwen Code sessions from its projects folder without ever writing to it."""

    def __init__(self, projects: Path, listing_cache: Path | None = None) -> None:
        self._projects = projects
        self._listing_cache = listing_cache

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        return AGENT

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every session with a conversation in it, newest file first."""
        if not self._projects.is_dir():
            return
        paths = sorted(session_files(self._projects, warn), key=newest_first)
        yield from listed(paths, lambda path: self.describe(path, warn), self._listing_cache)

    def describe(self, path: Path, warn: WarningSink) -> SessionInfo | None:
        """The listing entry of one session file, or None (with a warning) when it cannot be read."""
        try:
            stat = path.stat()
            session = read_session(path)
        except OSError as error:
            warn(ReadWarning(str(path), None, f"skipped: cannot read it ({error.strerror or error})"))
            return None
        warn_damaged(path, session.damaged, warn)
        if session.session_id is None:
            warn(ReadWarning(str(path), None, "skipped: no Qwen Code session record in it"))
            return None
        converted = conversation(session)
        if not any(not message.injected for message in converted.messages):
            return None  # nothing said yet: the client lists no such session either
        first, last = session.first, session.chain[-1]
        cwd = _text(first.get("cwd"))
        return SessionInfo(
            id=session.session_id,
            agent=AGENT,
            path=str(path),
            cwd=cwd,
            title=_title(session) or title_line(_first_prompt(session) or converted.first_prompt, TITLE_MAX),
            model=converted.model,
            created=_text(first.get("timestamp")),
            updated=_text(last.get("timestamp")),
            source_version=_text(last.get("version")),
            size=stat.st_size,
            mtime=stat.st_mtime,
            message_count=len(converted.messages),
            context_tokens=converted.context_tokens or None,
            project=cwd or path.parent.parent.name,
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


def session_files(projects: Path, warn: WarningSink) -> Iterator[Path]:
    """Every `projects/<project>/chats/*.jsonl` (the client's own archive, `chats/archive/`, left out)."""
    for project in folder_entries(projects, warn):
        chats = project / "chats"
        if not chats.is_dir():
            continue
        for entry in folder_entries(chats, warn):
            if entry.name.endswith(".jsonl") and entry.is_file():
                yield entry


def _title(session: SessionFile) -> str | None:
    """The title the user gave the session (`/rename`: the last `custom_title` record), if any."""
    title = None
    for record in session.chain:
        payload = record.get("systemPayload")
        if record.get("subtype") == "custom_title" and isinstance(payload, dict):
            title = _text(payload.get("customTitle")) or title
    return title_line(title, TITLE_MAX)


def _first_prompt(session: SessionFile) -> str | None:
    """The first thing the user typed, as the client's picker shows it (a compression leaves it in the file)."""
    for record in session.chain:
        message = record.get("message")
        if record.get("type") == "user" and isinstance(message, dict):
            text = part_text(message.get("parts")).strip()
            if text:
                return text
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
