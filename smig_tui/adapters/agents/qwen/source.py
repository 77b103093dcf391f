"""Provides `QwenSource`: finds and reads Qwen Code sessions (`~/.qwen/projects/<project>/chats/<id>.jsonl`).

A listing reads each file's chain from its lines' first bytes and parses only the records it shows
(`listing`), the whole file when those cannot say; the listing cache keeps each unchanged file's
entry, so a warm listing reads no session. Damaged lines (one half-written while the client appends) are one warning naming the file
and its lines; the rest still lists and loads.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from smig_tui.adapters.agents.file_sessions import cannot_read, folder_entries, load_whole, newest_first, warn_damaged
from smig_tui.adapters.agents.qwen.listing import Listing, listing_from_ends, whole_listing
from smig_tui.adapters.agents.qwen.records import conversation, read_session
from smig_tui.adapters.storage.discovery_cache import listed
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
            listing = listing_from_ends(path) or _read_whole(path, warn)
        except OSError as error:
            warn(cannot_read(path, error))
            return None
        if listing.session_id is None:
            warn(ReadWarning(str(path), None, "skipped: no Qwen Code session record in it"))
            return None
        if not listing.has_conversation:
            return None  # nothing said yet: the client lists no such session either
        return SessionInfo(
            id=listing.session_id,
            agent=AGENT,
            path=str(path),
            cwd=listing.cwd,
            title=listing.title or title_line(listing.first_prompt, TITLE_MAX),
            model=listing.model,
            created=listing.created,
            updated=listing.updated,
            source_version=listing.version,
            size=stat.st_size,
            mtime=stat.st_mtime,
            message_count=listing.message_count,
            context_tokens=listing.context_tokens,
            project=listing.cwd or path.parent.parent.name,
        )

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read one session in full, as the client would resume it."""
        return load_whole(info, warn, lambda path: read_session(path, pack=True), conversation)


def _read_whole(path: Path, warn: WarningSink) -> Listing:
    """The listing from the whole file, its damaged lines one warning."""
    session = read_session(path)
    warn_damaged(path, session.damaged, warn)
    return whole_listing(session)


def session_files(projects: Path, warn: WarningSink) -> Iterator[Path]:
    """Every `projects/<project>/chats/*.jsonl` (the client's own archive, `chats/archive/`, left out)."""
    for project in folder_entries(projects, warn):
        chats = project / "chats"
        if not chats.is_dir():
            continue
        for entry in folder_entries(chats, warn):
            if entry.name.endswith(".jsonl") and entry.is_file():
                yield entry
