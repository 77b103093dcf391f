"""Provides `AiderSource`: lists and reads Aider's chat histories (`.aider.chat.history.md` in project folders).

One history file is one session: `--restore-chat-history` sends the model the whole file, every run
the client appended to it (each `# aider chat started at` header), so a run alone is nothing the
client could resume. A listing reads a file's head and tail (`describe`), a short file whole; the
listing cache keeps each unchanged file's entry by path, size and mtime. Damaged Markdown cannot fail
a read (any text is some conversation to Aider); a file that is not UTF-8 is read with replacement
characters and one warning (from the listing when what it read is not, from `load` always), as Aider
itself would restore nothing from it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from smig_tui.adapters.agents.aider import folders as places
from smig_tui.adapters.agents.aider.history import MODEL, VERSION, History, decode, restore, started
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

    def describe(self, path: Path, warn: WarningSink, whole: bool = False) -> SessionInfo | None:
        """The listing entry of one history file, or None (with a warning) when it cannot be read.

        It reads the file's head (the first run's start, smig's title, the first prompt) and its tail
        (the model and version the last run named), never the replies between: a history over
        `HEAD_BYTES` is listed without its message count (`load` counts it). `whole` reads it all
        (what the cheap entries are tested against).
        """
        try:
            stat = path.stat()
            glance = _read(path) if whole else _glance(path)
        except OSError as error:
            warn(ReadWarning(str(path), None, f"skipped: cannot read it ({error.strerror or error})"))
            return None
        if isinstance(glance, History):
            head, model, version, count = glance, glance.model, glance.version, len(glance.messages)
        else:
            head, model, version, count = glance.head, glance.model, glance.version, None
        _warn_damaged(path, head, warn)
        if not head.messages:
            return None  # nothing said yet: nothing to resume
        first = started(head.runs[0]) if head.runs else None
        prompt = next((text for m in head.messages if m.role == "user" and (text := m.whole).strip()), None)
        folder = str(path.parent)
        return SessionInfo(
            id=places.session_id_of(path),
            agent=AGENT,
            path=str(path),
            cwd=folder,
            title=title_line(head.title, TITLE_MAX) or title_line(prompt, TITLE_MAX),
            model=model,
            created=format_iso(first) if first else None,
            updated=format_iso(datetime.fromtimestamp(stat.st_mtime, UTC)),
            source_version=version,
            size=stat.st_size,
            mtime=stat.st_mtime,
            message_count=count,
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
        messages = tuple(messages_of(history))
        return Session(info=replace(info, message_count=len(messages)), messages=messages, warnings=tuple(warnings))


def messages_of(history: History) -> list[Message]:
    """The restored conversation as smig's messages, each with the line it starts on."""
    return [
        new_message(index, f"L{item.line}", ROLES[item.role], Kind.TEXT, item.text, line=item.line)
        for index, item in enumerate(history.messages)
    ]


def _read(path: Path) -> History:
    """Parse one history file a block at a time (raises OSError when it cannot be read)."""
    from smig_tui.adapters.agents.aider.history_file import read_history  # loading only: a listing glances

    return read_history(path)


HEAD_BYTES = 8_192
"""What a listing reads of a history's head (and, at first, of its tail); a smaller file is read whole."""


@dataclass(frozen=True, slots=True)
class _Glance:
    """What a listing reads of a history too long to read whole."""

    head: History
    """The file's first lines read as `restore` reads them: what they say of its start is the whole's."""
    model: str | None
    version: str | None


def _glance(path: Path) -> History | _Glance:
    """The history whole when it is short, else its head and what its last notices say (OSError when
    it cannot be read). The head grows until it holds the first run's start and the first prompt
    whole (or smig's title), the tail until it holds the last model and version notices."""
    with path.open("rb") as handle:
        size = HEAD_BYTES
        while True:
            handle.seek(0)
            data = handle.read(size + 1)
            if len(data) <= size:
                text, not_text = decode(data)
                return restore(text, not_text)
            text, not_text = decode(data[: data.rfind(b"\n") + 1])  # whole lines only
            head = restore(text, not_text)
            if _settled(head):
                break
            size *= 4
        model, version, damaged = _last_notices(handle)
    head.not_text = head.not_text or damaged
    return _Glance(head, model, version)


def _settled(head: History) -> bool:
    """Whether a head says what the whole file does of its start: the first run's time, that something
    is said, and the title (smig's, or a first prompt that a later message shows is whole)."""
    if not head.runs or not head.messages:
        return False
    if head.title:
        return True  # smig's notices come before the first message, all of them in this head
    last = len(head.messages) - 1
    return any(m.role == "user" and m.whole.strip() and number < last for number, m in enumerate(head.messages))


def _last_notices(handle: BinaryIO) -> tuple[str | None, str | None, bool]:
    """The model and version the file's last notices name (as `restore` keeps the last of each), read
    from the end back, and whether what was read is not UTF-8."""
    end = handle.seek(0, os.SEEK_END)
    size = HEAD_BYTES
    while True:
        start = max(0, end - size)
        handle.seek(start)
        data = handle.read()
        if start:
            data = data[data.find(b"\n") + 1 :] if b"\n" in data else b""  # from a line's start
        text, not_text = decode(data)
        model = version = None
        for line in reversed(text.splitlines(keepends=True)):
            if not line.startswith("> "):
                continue
            if model is None and (found := MODEL.match(line)) is not None:
                model = found.group(1)
            elif version is None and (found := VERSION.match(line)) is not None:
                version = found.group(1)
            if model is not None and version is not None:
                break
        if (model is not None and version is not None) or not start:
            return model, version, not_text
        size *= 4


def _warn_damaged(path: Path, history: History, warn: WarningSink) -> None:
    if history.not_text:
        warn(
            ReadWarning(
                str(path),
                None,
                "not UTF-8 text: read with replacement characters (Aider itself restores nothing from it)",
            )
        )
