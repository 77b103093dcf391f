"""Provides `PiSource`: finds and reads Pi sessions (`~/.pi/agent/sessions/--<project>--/<time>_<id>.jsonl`).

A listing reads each file's tree from its lines' first bytes and parses only the entries it shows
(`listing`), the whole file when those cannot say; the listing cache keeps each unchanged file's
entry, so a warm listing reads no session. Damaged lines (one half-written while the client appends) are one warning naming the file
and its lines; the rest still lists and loads.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.file_sessions import cannot_read, folder_entries, load_whole, newest_first, warn_damaged
from smig_tui.adapters.agents.pi.listing import Listing, listing_from_ends, whole_listing
from smig_tui.adapters.agents.pi.records import conversation, read_session
from smig_tui.adapters.storage.discovery_cache import listed
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo
from smig_tui.core.ports import WarningSink
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
            listing = listing_from_ends(path) or _read_whole(path, warn)
        except OSError as error:
            warn(cannot_read(path, error))
            return None
        if listing.session_id is None:
            warn(ReadWarning(str(path), None, "skipped: no Pi session header in it"))
            return None
        if not listing.has_conversation:
            return None  # nothing said yet: the client's picker lists no such session either
        header = listing.header
        cwd = _text(header.get("cwd"))
        return SessionInfo(
            id=listing.session_id,
            agent=AGENT,
            path=str(path),
            cwd=cwd,
            title=title_line(listing.name or listing.first_prompt, TITLE_MAX),
            model=listing.model,
            created=_text(header.get("timestamp")),
            updated=listing.updated or _text(header.get("timestamp")),
            source_version=f"session v{header['version']}" if isinstance(header.get("version"), int) else None,
            size=stat.st_size,
            mtime=stat.st_mtime,
            message_count=listing.message_count,
            context_tokens=listing.context_tokens,
            project=cwd or path.parent.name,
            parent_id=_parent(header),
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
    """Every `*.jsonl` of each project folder, and of the folder itself (a flat session folder)."""
    for entry in folder_entries(sessions, warn):
        if entry.name.endswith(".jsonl") and entry.is_file():
            yield entry
        elif entry.is_dir():
            for inner in folder_entries(entry, warn):
                if inner.name.endswith(".jsonl") and inner.is_file():
                    yield inner


def _parent(header: dict[str, Any]) -> str | None:
    """The session a fork was made from (the header names its file)."""
    parent = _text(header.get("parentSession"))
    return Path(parent).stem.rsplit("_", 1)[-1] if parent else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
