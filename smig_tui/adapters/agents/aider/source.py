"""Provides `AiderSource`: lists and reads Aider's chat histories (`.aider.chat.history.md` in project folders).

One history file is one session: `--restore-chat-history` sends the model the whole file, every run
the client appended to it (each `# aider chat started at` header), so a run alone is nothing the
client could resume. A listing parses each file once; the listing cache keeps each unchanged file's
entry by path, size and mtime. Damaged Markdown cannot fail a read (any text is some conversation to
Aider); a file that is not UTF-8 is read with replacement characters and one warning, as Aider
itself would restore nothing from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from smig_tui.adapters.agents.aider import folders as places
from smig_tui.adapters.agents.aider.history import History, decode, restore, started
from smig_tui.adapters.agents.file_sessions import newest_first
from smig_tui.adapters.storage.discovery_cache import listed
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import Agent, Kind, Message, ReadWarning, Role, Session, SessionInfo, new_message
from smig_tui.core.ports import WarningSink
from smig_tui.core.timeline import format_iso
from smig_tui.core.words import title_line

TITLE_MAX = 120
AGENT = Agent("aider")
ROLES = {"user": Role.USER, "assistant": Role.ASSISTANT}


class AiderSource:
    """Reads Aider chat histories found in project folders, never writing to them."""

    def __init__(
        self,
        find: Callable[[], tuple[list[Path], list[Path]]],
        listing_cache: Path | None = None,
    ) -> None:
        self._find = find
        """(folders to look in, history files named directly), asked at each listing."""
        self._listing_cache = listing_cache

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        return AGENT

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every history with a conversation in it, newest file first."""
        folders, files = self._find()
        found = list(places.history_files(folders, files))
        paths = sorted(found, key=newest_first)
        yield from listed(paths, lambda path: self.describe(path, warn), self._listing_cache)

    def describe(self, path: Path, warn: WarningSink) -> SessionInfo | None:
        """The listing entry of one history file, or None (with a warning) when it cannot be read."""
        try:
            stat = path.stat()
            history = _read(path)
        except OSError as error:
            warn(ReadWarning(str(path), None, f"skipped: cannot read it ({error.strerror or error})"))
            return None
        _warn_damaged(path, history, warn)
        if not history.messages:
            return None  # nothing said yet: nothing to resume
        first = started(history.runs[0]) if history.runs else None
        prompt = next((m.text for m in history.messages if m.role == "user" and m.text.strip()), None)
        folder = str(path.parent)
        return SessionInfo(
            id=places.session_id_of(path),
            agent=AGENT,
            path=str(path),
            cwd=folder,
            title=title_line(history.title, TITLE_MAX) or title_line(prompt, TITLE_MAX),
            model=history.model,
            created=format_iso(first) if first else None,
            updated=format_iso(datetime.fromtimestamp(stat.st_mtime, UTC)),
            source_version=history.version,
            size=stat.st_size,
            mtime=stat.st_mtime,
            message_count=len(history.messages),
            project=folder,
        )

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read one history in full, as `--restore-chat-history` sends it to the model."""
        path = Path(info.path)
        warnings: list[ReadWarning] = []

        def sink(warning: ReadWarning) -> None:
            warnings.append(warning)
            warn(warning)

        try:
            history = _read(path)
        except OSError as error:
            raise SessionReadError(f"Cannot read {path}: {error.strerror or error}.") from error
        _warn_damaged(path, history, sink)
        return Session(info=info, messages=tuple(messages_of(history)), warnings=tuple(warnings))


def messages_of(history: History) -> list[Message]:
    """The restored conversation as smig's messages, each with the line it starts on."""
    return [
        new_message(index, f"L{item.line}", ROLES[item.role], Kind.TEXT, item.text, line=item.line)
        for index, item in enumerate(history.messages)
    ]


def _read(path: Path) -> History:
    """Parse one history file (raises OSError when it cannot be read)."""
    with path.open("rb") as handle:
        text, not_text = decode(handle.read())
    return restore(text, not_text)


def _warn_damaged(path: Path, history: History, warn: WarningSink) -> None:
    if history.not_text:
        warn(
            ReadWarning(
                str(path),
                None,
                "not UTF-8 text: read with replacement characters (Aider itself restores nothing from it)",
            )
        )
