"""Provides `CrushSource`: lists and reads Crush sessions from every project's database, never writing.

The databases are the ones Crush's `projects.json` names (`home.projects`). Listing one database
reads its session rows and, in one query, each session's size and last reply (its model), so the
message count is left to `load`; a session those cannot describe exactly is read whole and counted
as `load` would turn it (`convert.listed`). The result is kept in smig's listing cache under the
database's size and mtime (and its WAL's, where Crush writes while it runs), so a warm listing opens
no database that has not changed.
Sub-agent and title sessions (`parent_session_id` set) are listed as sub-agents: hidden by default.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.crush.convert import Row, iso_seconds, listed, parse_parts, to_conversation
from smig_tui.adapters.agents.crush.database import MESSAGE_ORDER, NAME, connect, message_rows, session_columns
from smig_tui.adapters.agents.crush.home import (
    Project,
    ProjectsUnreadable,
    projects,
    projects_file,
    session_ref,
    split_ref,
)
from smig_tui.adapters.agents.profile import Env, RowsUnreadable
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo
from smig_tui.core.ports import WarningSink

AGENT = Agent("crush")
TITLE_WIDTH = 120
CACHE_VERSION = 3
_FIELDS = tuple(field.name for field in fields(SessionInfo))
_FIELD_SET = frozenset(_FIELDS)
_SESSION_COLUMNS = ("parent_session_id", "title", "created_at", "updated_at", "summary_message_id", "prompt_tokens")
"""The `sessions` columns read when present (every Crush version since 2025-05 has them)."""


class CrushSource:
    """Reads Crush sessions from the databases of the projects Crush has opened."""

    def __init__(self, env: Env = None, listing_cache: Path | None = None) -> None:
        self._env = env
        self._listing_cache = listing_cache

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        return AGENT

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every session with a conversation, each database's newest first."""
        try:
            found = projects(self._env)
        except ProjectsUnreadable as error:
            warn(ReadWarning(str(projects_file(self._env)), None, f"skipped Crush's list of projects: {error}"))
            return
        cache = _read_cache(self._listing_cache)
        seen: dict[str, Any] = {}
        for project in found:
            if not project.database.is_file():
                continue
            key = _key(project.database)
            entry = cache.get(str(project.database))
            infos = _decoded(entry, key)
            if infos is None:
                try:
                    infos = self._list_database(project, warn)
                except RowsUnreadable as error:
                    warn(ReadWarning(str(project.database), None, str(error)))
                    continue
                stored = [{name: getattr(info, name) for name in _FIELDS} for info in infos]
            else:
                stored = entry["sessions"] if isinstance(entry, dict) else []  # as `_decoded` found it
            seen[str(project.database)] = {"key": key, "sessions": stored}
            yield from infos
        if self._listing_cache is not None and seen != cache:
            with contextlib.suppress(OSError):
                from smig_tui.adapters.fs import atomic_write

                folders = sorted({info["cwd"] for entry in seen.values() for info in entry["sessions"] if info["cwd"]})
                text = json.dumps({"v": _version(), "databases": seen, "folders": folders}, separators=(",", ":"))
                atomic_write(self._listing_cache, text)  # `folders`: where other agents' readers look

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read one session in full: the conversation Crush would send on its next turn."""
        ref = split_ref(info.path)
        if ref is None:
            raise SessionReadError(f"{info.path} is not a Crush session reference.")
        database, session_id = Path(ref[0]), ref[1]
        warnings: list[ReadWarning] = []

        def sink(warning: ReadWarning) -> None:
            warnings.append(warning)
            warn(warning)

        from smig_tui.adapters.stored_text import packer_for  # loading a session only: a listing needs none

        try:
            with connect(database) as connection:
                have = session_columns(connection)
                picked = [name for name in ("summary_message_id", "prompt_tokens") if name in have]
                found = connection.execute(
                    f"SELECT id{''.join(', ' + name for name in picked)} FROM sessions WHERE id = ?", (session_id,)
                ).fetchone()
                if found is None:
                    raise SessionReadError(f"Crush session {session_id} is no longer in {database}.")
                facts = dict(zip(picked, found[1:], strict=True))
                summary = _text(facts.get("summary_message_id"))
                converted = to_conversation(_each_row(connection, session_id), summary, packer_for(database))
        except RowsUnreadable as error:
            raise SessionReadError(str(error)) from error
        _warn_damaged(database, session_id, converted.damaged, sink)
        prompt = facts.get("prompt_tokens")
        measured = prompt if isinstance(prompt, int) and prompt > 0 else None
        info = replace(info, message_count=len(converted.messages), model=info.model or converted.model)
        return Session(
            info,
            tuple(converted.messages),
            warnings=tuple(warnings),
            measured_context_tokens=measured,
            compactions=converted.compactions,
        )

    def _list_database(self, project: Project, warn: WarningSink, whole: bool = False) -> list[SessionInfo]:
        """Every session of one database with a conversation in it, newest first.

        Each entry comes from the session's row and its last reply (`_TAILS`: one query for the whole
        database), its message count left None; a session those cannot describe exactly as a whole
        read of its rows would (no title, its last reply cancelled, damaged or of no model, no reply
        yet) is read whole. `whole` reads every session whole (what the cheap entries are tested against).
        """
        database = project.database
        with connect(database) as connection:
            have = session_columns(connection)
            if "id" not in have:
                return []
            picked = [name for name in _SESSION_COLUMNS if name in have]
            order = " ORDER BY updated_at DESC" if "updated_at" in have else ""
            sessions = connection.execute(
                f"SELECT id{''.join(', ' + name for name in picked)} FROM sessions{order}"
            ).fetchall()
            tails = None if whole else _tails(connection, "summary_message_id" in have)
            messages: dict[str, list[Row]] = {}
            if tails is None:
                for session_id, *row in connection.execute(
                    f"SELECT session_id, {_MESSAGE_COLUMNS} FROM messages {MESSAGE_ORDER}"
                ):
                    messages.setdefault(str(session_id), []).append(_row(row))
            infos = []
            for session_id, *values in sessions:
                facts = dict(zip(picked, values, strict=True))
                info: SessionInfo | None = None
                if tails is not None:
                    tail = tails.get(str(session_id))
                    if tail is None:
                        continue  # no message at all: nothing said yet
                    info = _from_tail(project, str(session_id), facts, tail)
                    if info is None:
                        messages[str(session_id)] = _rows(connection, session_id)
                if info is None:
                    info = _from_rows(project, str(session_id), facts, messages.get(str(session_id), []), warn)
                if info is not None:
                    infos.append(info)
        return infos


_TAILS = """
WITH ranked AS (
    SELECT m.rowid AS at, m.session_id AS session,
           row_number() OVER (PARTITION BY m.session_id ORDER BY m.created_at DESC, m.rowid DESC) AS place
    FROM messages AS m {join}
    WHERE m.role = 'assistant'{summary}
), sizes AS (
    SELECT session_id AS session, typeof(session_id) AS kind,
           sum(CASE WHEN typeof(parts) = 'text' THEN length(CAST(parts AS BLOB)) ELSE 0 END) AS size
    FROM messages GROUP BY session_id
)
SELECT sizes.session, sizes.kind, sizes.size, last.id, last.role, last.model, last.parts
FROM sizes
LEFT JOIN ranked ON ranked.session = sizes.session AND ranked.place = 1
LEFT JOIN messages AS last ON last.rowid = ranked.at
"""
"""Per session: the UTF-8 bytes of its rows' parts (its `size`), and its last reply, or its summary in
use when that comes later (what the model is read from), in Crush's order: all in SQLite, no row's
parts parsed but that one's."""


@dataclass(frozen=True, slots=True)
class _Tail:
    size: int
    last: Row | None


def _tails(connection: Any, summaries: bool) -> dict[str, _Tail] | None:
    """Each session's `_Tail` by id; None when a message names its session by other than text (then
    the whole read groups them as it always did) or when SQLite is too old for the query."""
    if sqlite3.sqlite_version_info < (3, 25, 0):
        return None  # no window functions (SQLite before 2018): every session is read whole
    join = "LEFT JOIN sessions AS s ON s.id = m.session_id" if summaries else ""
    summary = " OR m.id = s.summary_message_id" if summaries else ""
    found: dict[str, _Tail] = {}
    for session_id, kind, size, *last in connection.execute(_TAILS.format(join=join, summary=summary)):
        if kind != "text":
            return None
        row = None if last[0] is None else _row((last[0], last[1], last[3], last[2], None, 0))
        found[str(session_id)] = _Tail(int(size or 0), row)
    return found


def _from_tail(project: Project, session_id: str, facts: dict[str, Any], tail: _Tail) -> SessionInfo | None:
    """A session's entry from its row and its last reply, equal to `_from_rows`' but for the message
    count (None); None when they cannot say it exactly."""
    title = _text(facts.get("title"))
    last = tail.last
    if not title or last is None:
        return None
    parts = parse_parts(last.parts)
    if not parts:
        return None  # damaged, or nothing in it: the whole read says what comes before
    if last.id == _text(facts.get("summary_message_id")):
        if not _text(_first_data(parts, "text").get("text")).strip():
            return None  # a summary with no text says nothing: whether anything else does is in the rest
        model = last.model  # the summary in use starts what is sent: no earlier reply counts
    else:
        text = _text(_first_data(parts, "text").get("text")).strip()
        said = text or _text(_first_data(parts, "reasoning").get("thinking")) or any(k == "tool_call" for k, _ in parts)
        if not said or not last.model:
            return None  # cancelled before it replied, or of no model: an earlier reply names it
        model = last.model
    from smig_tui.core.redact import redacted_line  # not at import: a listing without Crush needs none

    return _entry(project, session_id, facts, redacted_line(title, TITLE_WIDTH), model, tail.size, None)


def _from_rows(
    project: Project, session_id: str, facts: dict[str, Any], rows: list[Row], warn: WarningSink
) -> SessionInfo | None:
    """A session's entry from all its rows, counted as `load` converts them; None when nothing is said."""
    shown = listed(rows, _text(facts.get("summary_message_id")))
    _warn_damaged(project.database, session_id, shown.damaged, warn)
    if not shown.spoken:
        return None  # nothing said yet
    from smig_tui.core.redact import redacted_line

    title = redacted_line(_text(facts.get("title")) or shown.first_user, TITLE_WIDTH)
    size = sum(len(row.parts.encode("utf-8", "surrogatepass")) for row in rows)  # bytes, as SQLite counts them
    return _entry(project, session_id, facts, title, shown.model, size, shown.message_count)


def _entry(
    project: Project,
    session_id: str,
    facts: dict[str, Any],
    title: str | None,
    model: str | None,
    size: int,
    count: int | None,
) -> SessionInfo:
    prompt = facts.get("prompt_tokens")  # the last call's prompt (Crush resets it when it summarises)
    updated = facts.get("updated_at")
    parent = _text(facts.get("parent_session_id")) or None
    return SessionInfo(
        id=session_id,
        agent=AGENT,
        path=session_ref(project.database, session_id),
        cwd=project.path,
        title=title,
        model=model,
        created=iso_seconds(facts.get("created_at")),
        updated=iso_seconds(updated),
        parent_id=parent,
        is_subagent=parent is not None,
        size=size,
        mtime=_seconds(updated) or os.stat(project.database).st_mtime,
        message_count=count,
        context_tokens=prompt if isinstance(prompt, int) and prompt > 0 else None,
        project=project.path,
    )


def _first_data(parts: list[tuple[str, dict[str, Any]]], kind: str) -> dict[str, Any]:
    return next((data for part_kind, data in parts if part_kind == kind), {})


_MESSAGE_COLUMNS = "id, role, parts, model, created_at, is_summary_message"


def _rows(connection: Any, session_id: str) -> list[Row]:
    """One session's message rows, in Crush's order."""
    return list(_each_row(connection, session_id))


def _each_row(connection: Any, session_id: str) -> Iterator[Row]:
    """`_rows` one at a time, as they are read."""
    for row in message_rows(connection, _MESSAGE_COLUMNS, session_id):
        yield _row(row)


def _row(values: Any) -> Row:
    message_id, role, parts, model, created, summary = values
    return Row(
        str(message_id),
        _text(role),
        parts if isinstance(parts, str) else "",
        _text(model) or None,
        created if isinstance(created, int) else None,
        bool(summary),
    )


def _warn_damaged(database: Path, session_id: str, damaged: list[str], warn: WarningSink) -> None:
    """One warning per session naming the messages skipped because their parts do not parse."""
    if damaged:
        shown = ", ".join(damaged[:5]) + (" …" if len(damaged) > 5 else "")
        warn(
            ReadWarning(
                str(database),
                None,
                f"{NAME} session {session_id}: skipped {len(damaged)} message(s) whose parts do not "
                f"parse ({shown}); Crush itself cannot open this session",
            )
        )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _seconds(value: object) -> float:
    """Crush's seconds (or milliseconds) as seconds; 0 when absent."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return 0.0
    return value / 1000 if value > 100_000_000_000 else float(value)


def _key(database: Path) -> list[int]:
    """What says a database is unchanged: its size and mtime, and its WAL's (Crush writes there while it runs)."""
    key = []
    for path in (database, Path(f"{database}-wal")):
        try:
            stat = path.stat()
        except OSError:
            key += [-1, -1]
        else:
            key += [stat.st_size, stat.st_mtime_ns]
    return key


def _version() -> str:
    """The cache's version: this reader's and the secret detector's (titles are redacted)."""
    import sys

    from smig_tui.adapters.storage.discovery_cache import VERSION
    from smig_tui.core.redact_version import DETECTOR_VERSION

    detector = sys.modules.get("smig_tui.core.redact")
    fingerprint = detector.detector_version() if detector is not None else DETECTOR_VERSION
    return f"crush{CACHE_VERSION}:{VERSION}:{fingerprint}"


def _read_cache(path: Path | None) -> dict[str, Any]:
    """The cached listings by database (empty when missing, damaged or of another version)."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("v") != _version() or not isinstance(data.get("databases"), dict):
        return {}
    databases: dict[str, Any] = data["databases"]
    return databases


def _decoded(entry: object, key: list[int]) -> list[SessionInfo] | None:
    """A database's cached listing when the database is unchanged, else None."""
    if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("sessions"), list):
        return None
    infos = []
    for data in entry["sessions"]:
        if not isinstance(data, dict) or data.keys() != _FIELD_SET:
            return None
        try:
            infos.append(SessionInfo(**{**data, "agent": AGENT}))
        except (TypeError, ValueError):
            return None
    return infos
