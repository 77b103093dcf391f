"""Provides `GeminiSource`: finds and reads Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/`).

Listing reads each JSON-lines file's head and tail only (`scan`); an older whole-document session is
parsed in full. The listing cache keeps each unchanged file's entry, so a warm listing reads no
session. Loading parses the whole file the way the client does (`records`, `convert`). A file with damaged lines (a line
half-written while the client appends, or a damaged `.json` document) is one warning naming the
file and its lines; the rest still lists and loads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.file_sessions import folder_entries, newest_first, warn_damaged
from smig_tui.adapters.agents.gemini.convert import Converted, convert
from smig_tui.adapters.agents.gemini.layout import SESSION_PREFIX, ProjectFolders
from smig_tui.adapters.agents.gemini.records import ConversationFile, NotASession, read_conversation
from smig_tui.adapters.agents.gemini.scan import Facts, scan
from smig_tui.adapters.storage.discovery_cache import cached_ids, listed
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import Agent, ReadWarning, Role, Session, SessionInfo
from smig_tui.core.ports import NAMED_AT_MOST, WarningSink
from smig_tui.core.words import title_line

TITLE_MAX = 120


class GeminiSource:
    """Reads Gemini CLI sessions from its home without ever writing to it."""

    def __init__(self, home: Path, listing_cache: Path | None = None) -> None:
        self._home = home
        self._listing_cache = listing_cache
        self._read_whole: _WholeRead | None = None
        """The last file `describe` had to read whole (an old document), kept for a `load` of it that comes
        next: a command given a session's path looks it up, then loads it, and so read a 500 MB document
        twice. A whole listing lets go of it as it ends, and `load` takes it."""

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        return Agent("gemini")

    def cached_ids(self) -> list[str] | None:
        """The ids its last listing found, from the listing cache (no folder read); None without one."""
        return cached_ids(self._listing_cache) if self._listing_cache else None

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every session with a conversation in it, newest file first."""
        tmp = self._home / "tmp"
        if not tmp.is_dir():
            return
        yield from self._entries(_session_files(tmp, warn), warn)
        self._read_whole = None  # a whole listing: no load of the file it read last need follow

    def listed_as(self, resolved: str, warn: WarningSink) -> SessionInfo | None:
        """The entry `discover` gives the session file at `resolved`, describing that file alone; None (list
        the home) when it is none of the files `discover` lists."""
        entries = self._listed_among(lambda path, parent: os.path.realpath(path) == resolved, warn)
        return entries[0] if entries else None

    def listed_with_id(self, prefix: str, warn: WarningSink) -> list[SessionInfo] | None:
        """The sessions whose id starts with `prefix`, newest first, describing only the files that may hold
        one: those whose name ends with a matching id (Gemini CLI names a session file after its id's first
        8 characters) and the sub-agents' (named otherwise). None (list the home) when more than
        `NAMED_AT_MOST` files may."""

        def named(path: Path, parent: str | None) -> bool:
            short = path.name.rpartition(".")[0].rpartition("-")[2]
            return parent is not None or short.startswith(prefix[: len(short)])

        entries = self._listed_among(named, warn, NAMED_AT_MOST)
        return None if entries is None else [info for info in entries if info.id.startswith(prefix)]

    def _listed_among(
        self, wanted: Callable[[Path, str | None], bool], warn: WarningSink, most: int | None = None
    ) -> list[SessionInfo] | None:
        """The entries of the session files `wanted` picks (by path and parent session), newest first, through
        the listing cache, to which they are added; None when there are more than `most`."""
        tmp = self._home / "tmp"
        chosen = [found for found in _session_files(tmp, warn) if wanted(found[0], found[2])] if tmp.is_dir() else []
        if most is not None and len(chosen) > most:
            return None
        return list(self._entries(chosen, warn, every=False))

    def _entries(
        self, files: Iterable[tuple[Path, Path, str | None]], warn: WarningSink, every: bool = True
    ) -> Iterator[SessionInfo]:
        """The listing entries of session files (path, project folder, parent session), newest first, through
        the listing cache (`listed`; `every` says the files are all the home holds)."""
        found = {path: (project, parent) for path, project, parent in files}
        folders = ProjectFolders(self._home)

        def describe(path: Path) -> SessionInfo | None:
            project, parent = found[path]
            return self.describe(path, warn, folders, project, parent)

        return listed(sorted(found, key=newest_first), describe, self._listing_cache, every)

    def describe(
        self,
        path: Path,
        warn: WarningSink,
        folders: ProjectFolders | None = None,
        project: Path | None = None,
        parent: str | None = None,
    ) -> SessionInfo | None:
        """The listing entry of one session file, or None (with a warning) when it cannot be read."""
        project = project or _project_folder(path)
        folders = folders or ProjectFolders(self._home)
        try:
            stat = path.stat()
            facts = scan(path, stat.st_size) if path.name.endswith(".jsonl") else None
            if facts is not None:
                return _info(path, stat, facts, folders, project, parent, warn)
            conversation = read_conversation(path, pack=True)  # a big document: parsed a message at a time
        except NotASession as error:
            warn(ReadWarning(str(path), None, f"skipped: {error}"))
            return None
        except OSError as error:
            warn(ReadWarning(str(path), None, f"skipped: cannot read it ({error.strerror or error})"))
            return None
        warn_damaged(path, conversation.damaged, warn)
        converted = convert(conversation.messages.values(), conversation.lines)
        self._read_whole = _WholeRead(_file_key(stat), str(path), conversation, converted)
        meta = conversation.meta
        facts = Facts(
            meta=meta,
            first_prompt=converted.first_prompt,
            summary=_text(meta.get("summary")),
            model=converted.model,
            context_tokens=converted.context_tokens or None,
            updated=_text(meta.get("lastUpdated")),
            has_reply=any(not m.injected and m.role is not Role.USER for m in converted.messages),
        )
        return _info(path, stat, facts, folders, project, parent, warn, message_count=len(converted.messages))

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read one session in full."""
        path = Path(info.path)
        warnings: list[ReadWarning] = []

        def sink(warning: ReadWarning) -> None:
            warnings.append(warning)
            warn(warning)

        kept, self._read_whole = self._read_whole, None
        try:
            if kept is not None and kept.path == str(path) and kept.key == _file_key(path.stat()):
                conversation, converted = kept.conversation, kept.converted
            else:
                conversation = read_conversation(path, pack=True)
                converted = convert(conversation.messages.values(), conversation.lines)
        except NotASession as error:
            raise SessionReadError(f"Cannot read {path}: {error}.") from error
        except OSError as error:
            raise SessionReadError(f"Cannot read {path}: {error.strerror or error}.") from error
        warn_damaged(path, conversation.damaged, sink)
        extra = {"kind": str(conversation.meta.get("kind"))} if conversation.meta.get("kind") else {}
        if conversation.legacy:
            extra["format"] = "one JSON document (as Gemini CLI wrote before its JSON-lines files)"
        return Session(
            info=info,
            messages=tuple(converted.messages),
            warnings=tuple(warnings),
            measured_context_tokens=converted.context_tokens or None,
            extra=extra,
        )


@dataclass(frozen=True, slots=True)
class _WholeRead:
    """A session file read whole, as it was when read (`_file_key`)."""

    key: tuple[int, int, int]
    path: str
    conversation: ConversationFile
    converted: Converted


def _file_key(stat: os.stat_result) -> tuple[int, int, int]:
    """What says a file is unchanged since it was read: inode, size and modification time."""
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def _info(
    path: Path,
    stat: os.stat_result,
    facts: Facts,
    folders: ProjectFolders,
    project: Path,
    parent: str | None,
    warn: WarningSink,
    message_count: int | None = None,
) -> SessionInfo | None:
    """The listing entry from what was read (a JSON-lines file's ends leave the message count unknown)."""
    if facts.half_written:
        warn(
            ReadWarning(
                str(path),
                None,
                "the last line is half-written or damaged; it is skipped and the rest of the session is read",
            )
        )
    if not facts.has_conversation:
        return None  # a start-up only session: the client deletes these and never lists them
    meta = facts.meta
    recorded_hash = meta.get("projectHash") if isinstance(meta.get("projectHash"), str) else None
    cwd = folders.cwd_of(project, recorded_hash)
    kind = meta.get("kind") if isinstance(meta.get("kind"), str) else None
    return SessionInfo(
        id=str(meta["sessionId"]),
        agent=Agent("gemini"),
        path=str(path),
        cwd=cwd,
        title=title_line(facts.summary or _text(meta.get("summary")), TITLE_MAX)
        or title_line(facts.first_prompt, TITLE_MAX),
        model=facts.model,
        created=_text(meta.get("startTime")),
        updated=facts.updated or _text(meta.get("lastUpdated")),
        origin=kind,
        parent_id=parent,
        is_subagent=kind == "subagent" or parent is not None,
        size=stat.st_size,
        mtime=stat.st_mtime,
        message_count=message_count,
        context_tokens=facts.context_tokens,
        project=cwd or project.name,
    )


def _session_files(tmp: Path, warn: WarningSink) -> Iterator[tuple[Path, Path, str | None]]:
    """(file, project folder, parent session id for a sub-agent) for every session file under `tmp/`."""
    for project in folder_entries(tmp, warn):
        chats = project / "chats"
        if not project.is_dir() or not chats.is_dir():
            continue
        for entry in folder_entries(chats, warn):
            if entry.name.startswith(SESSION_PREFIX) and entry.name.endswith((".json", ".jsonl")):
                if entry.is_file():
                    yield entry, project, None
            elif entry.is_dir() and not entry.is_symlink():
                for child in folder_entries(entry, warn):
                    if child.name.endswith(".jsonl") and child.is_file():
                        yield child, project, entry.name


def _project_folder(path: Path) -> Path:
    """`tmp/<project>` of a session file (`chats/` or `chats/<parent>/` below it)."""
    chats = next((parent for parent in path.parents if parent.name == "chats"), path.parent)
    return chats.parent


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
