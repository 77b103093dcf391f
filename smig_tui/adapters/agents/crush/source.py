"""Provides `CrushSource`: lists and reads Crush sessions from every project's database, never writing.

The databases are the ones Crush's `projects.json` names (`home.projects`). Listing one database
reads its sessions and messages once and turns them as `load` would, so counts, titles and models
agree; the result is kept in smig's listing cache under the database's size and mtime (and its WAL's,
where Crush writes while it runs), so a warm listing opens no database that has not changed.
Sub-agent and title sessions (`parent_session_id` set) are listed as sub-agents: hidden by default.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.crush.convert import Converted, Row, iso_seconds, to_conversation
from smig_tui.adapters.agents.crush.database import MESSAGE_ORDER, NAME, connect, session_columns
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
CACHE_VERSION = 2
_FIELDS = frozenset(field.name for field in fields(SessionInfo))
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
            seen[str(project.database)] = {"key": key, "sessions": [asdict(info) for info in infos]}
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

        try:
            with connect(database) as connection:
                have = session_columns(connection)
                picked = [name for name in ("summary_message_id", "prompt_tokens") if name in have]
                found = connection.execute(
                    f"SELECT id{''.join(', ' + name for name in picked)} FROM sessions WHERE id = ?", (session_id,)
                ).fetchone()
                if found is None:
                    raise SessionReadError(f"Crush session {session_id} is no longer in {database}.")
                rows = _rows(connection, session_id)
        except RowsUnreadable as error:
            raise SessionReadError(str(error)) from error
        facts = dict(zip(picked, found[1:], strict=True))
        converted = to_conversation(rows, _text(facts.get("summary_message_id")))
        _warn_damaged(database, session_id, converted, sink)
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

    def _list_database(self, project: Project, warn: WarningSink) -> list[SessionInfo]:
        """Every session of one database with a conversation in it, newest first."""
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
            messages: dict[str, list[Row]] = {}
            for session_id, *row in connection.execute(
                f"SELECT session_id, {_MESSAGE_COLUMNS} FROM messages {MESSAGE_ORDER}"
            ):
                messages.setdefault(str(session_id), []).append(_row(row))
        from smig_tui.core.redact import redacted_line  # not at import: a listing without Crush needs none

        infos = []
        for session_id, *values in sessions:
            facts = dict(zip(picked, values, strict=True))
            rows = messages.get(str(session_id), [])
            converted = to_conversation(rows, _text(facts.get("summary_message_id")))
            _warn_damaged(database, str(session_id), converted, warn)
            if not any(not message.injected for message in converted.messages):
                continue  # nothing said yet
            first_prompt = next((m.text for m in converted.messages if m.role.value == "user"), None)
            prompt = facts.get("prompt_tokens")  # the last call's prompt (Crush resets it when it summarises)
            updated = facts.get("updated_at")
            parent = _text(facts.get("parent_session_id")) or None
            infos.append(
                SessionInfo(
                    id=str(session_id),
                    agent=AGENT,
                    path=session_ref(database, str(session_id)),
                    cwd=project.path,
                    title=redacted_line(_text(facts.get("title")) or first_prompt, TITLE_WIDTH),
                    model=converted.model,
                    created=iso_seconds(facts.get("created_at")),
                    updated=iso_seconds(updated),
                    parent_id=parent,
                    is_subagent=parent is not None,
                    size=sum(len(row.parts) for row in rows),
                    mtime=_seconds(updated) or os.stat(database).st_mtime,
                    message_count=len(converted.messages),
                    context_tokens=prompt if isinstance(prompt, int) and prompt > 0 else None,
                    project=project.path,
                )
            )
        return infos


_MESSAGE_COLUMNS = "id, role, parts, model, created_at, is_summary_message"


def _rows(connection: Any, session_id: str) -> list[Row]:
    """One session's message rows, in Crush's order."""
    return [
        _row(row)
        for row in connection.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE session_id = ? {MESSAGE_ORDER}", (session_id,)
        )
    ]


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


def _warn_damaged(database: Path, session_id: str, converted: Converted, warn: WarningSink) -> None:
    """One warning per session naming the messages skipped because their parts do not parse."""
    if converted.damaged:
        shown = ", ".join(converted.damaged[:5]) + (" …" if len(converted.damaged) > 5 else "")
        warn(
            ReadWarning(
                str(database),
                None,
                f"{NAME} session {session_id}: skipped {len(converted.damaged)} message(s) whose parts do not "
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
    return data["databases"]  # type: ignore[no-any-return]


def _decoded(entry: object, key: list[int]) -> list[SessionInfo] | None:
    """A database's cached listing when the database is unchanged, else None."""
    if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("sessions"), list):
        return None
    infos = []
    for data in entry["sessions"]:
        if not isinstance(data, dict) or set(data) != _FIELDS:
            return None
        try:
            infos.append(SessionInfo(**{**data, "agent": AGENT}))
        except (TypeError, ValueError):
            return None
    return infos
