"""Provides `PiSource`: finds and reads Pi sessions (`~/.pi/agent/sessions/--<project>--/<time>_<id>.jsonl`).

A listing parses each file once (its tree decides what the client would resume, so the ends alone
cannot say) and the listing cache keeps each unchanged file's entry, so a warm listing reads no
session. Damaged lines (one half-written while the client appends) are one warning naming the file
and its lines; the rest still lists and loads.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.file_sessions import folder_entries, newest_first, warn_damaged
from smig_tui.adapters.agents.pi.records import SessionFile, conversation, read_session
from smig_tui.adapters.storage.discovery_cache import listed
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo
from smig_tui.core.ports import WarningSink
from smig_tui.core.timeline import format_iso
from smig_tui.core.words import title_line

TITLE_MAX = 120
AGENT = Agent("pi")


class PiSource:
    """Reads Pi sessions from its sessions folder without ever writing to it."""

    def __init__(self, sessions: Path | Sequence[Path], listing_cache: Path | None = None) -> None:
        self._folders = (sessions,) if isinstance(sessions, Path) else tuple(sessions)
        """`sessions/` (one folder per project) and a flat session folder the user's settings name."""
        self._listing_cache = listing_cache

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        return AGENT

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every session with a conversation in it, newest file first."""
        found = [path for folder in self._folders if folder.is_dir() for path in session_files(folder, warn)]
        paths = sorted(dict.fromkeys(found), key=newest_first)
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
            warn(ReadWarning(str(path), None, "skipped: no Pi session header in it"))
            return None
        converted = conversation(session)
        if not any(not message.injected for message in converted.messages):
            return None  # nothing said yet: the client's picker lists no such session either
        header = session.header
        cwd = _text(header.get("cwd"))
        return SessionInfo(
            id=session.session_id,
            agent=AGENT,
            path=str(path),
            cwd=cwd,
            title=title_line(session.name or session.first_prompt or converted.first_prompt, TITLE_MAX),
            model=converted.model,
            created=_text(header.get("timestamp")),
            updated=_last_activity(session) or _text(header.get("timestamp")),
            source_version=f"session v{header['version']}" if isinstance(header.get("version"), int) else None,
            size=stat.st_size,
            mtime=stat.st_mtime,
            message_count=len(converted.messages),
            context_tokens=converted.context_tokens or None,
            project=cwd or path.parent.name,
            parent_id=_parent(header),
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
    """Every `*.jsonl` of each project folder, and of the folder itself (a flat session folder)."""
    for entry in folder_entries(sessions, warn):
        if entry.name.endswith(".jsonl") and entry.is_file():
            yield entry
        elif entry.is_dir():
            for inner in folder_entries(entry, warn):
                if inner.name.endswith(".jsonl") and inner.is_file():
                    yield inner


def _last_activity(session: SessionFile) -> str | None:
    """The time of the last user or assistant message: what Pi's picker orders sessions by."""
    for entry in reversed(session.path):
        message = entry.get("message")
        if (
            entry.get("type") == "message"
            and isinstance(message, dict)
            and message.get("role") in ("user", "assistant")
        ):
            stamp = message.get("timestamp")
            if isinstance(stamp, int | float) and not isinstance(stamp, bool) and 0 < stamp < 1e14:
                return format_iso(datetime.fromtimestamp(stamp / 1000, UTC))
            return _text(entry.get("timestamp"))
    return None


def _parent(header: dict[str, Any]) -> str | None:
    """The session a fork was made from (the header names its file)."""
    parent = _text(header.get("parentSession"))
    return Path(parent).stem.rsplit("_", 1)[-1] if parent else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
