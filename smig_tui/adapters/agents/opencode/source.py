"""Provides `OpenCodeSource`: lists and reads OpenCode sessions, never writing to OpenCode's files.

It reads a descendant's database as well (one that keeps OpenCode's tables): the home it is
given says whose it is (`OpenCodeHome.variant`), and the sessions are listed as that agent's.

Listing is one query over the `session` table (plus a count of the parts the model is sent);
loading one session reads its `message` and `part` rows. Sub-sessions (a task's child session,
`parent_id` set) are listed as sub-agents: hidden by default, reachable by id. Sessions of an old
install's `storage/` JSON tree are listed too, unless the database holds the same id.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.opencode import database as database_module
from smig_tui.adapters.agents.opencode.convert import (
    Conversation,
    Row,
    active_rows,
    converted,
    facts_of,
    iso_ms,
    to_conversation,
    usage_of,
)
from smig_tui.adapters.agents.opencode.database import OpenCodeDbError, columns, read_only
from smig_tui.adapters.agents.opencode.home import OpenCodeHome, session_ref, split_ref
from smig_tui.adapters.agents.opencode.storage_tree import (
    TITLE_WIDTH,
    describe_stored,
    load_stored_rows,
    stored_sessions,
)
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo
from smig_tui.core.ports import WarningSink

SENT_PARTS = "('text', 'reasoning', 'tool')"
"""Part types that become messages (a tool part becomes two)."""


class OpenCodeSource:
    """Reads OpenCode sessions from its database (read-only) and its legacy JSON tree."""

    def __init__(self, home: OpenCodeHome, timeout: float | None = None, listing_cache: Path | None = None) -> None:
        self._home = home
        self._given_timeout = timeout
        self._listing_cache = listing_cache
        """Where listing remembers each session's message count by its update time (None: count every time)."""

    @property
    def _timeout(self) -> float:
        """Seconds to wait for a lock: the one given, else the module's default (read at each use)."""
        return database_module.BUSY_TIMEOUT if self._given_timeout is None else self._given_timeout

    @property
    def agent(self) -> Agent:
        """The agent this source reads."""
        return Agent(self._home.variant.agent)

    @property
    def home(self) -> OpenCodeHome:
        """Where the sessions are read from."""
        return self._home

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Yield every session, newest first: the database's, then the legacy tree's not in it."""
        listed: set[str] = set()
        database = self._home.database
        if database.is_file():
            try:
                infos = self._list_database(database)
            except OpenCodeDbError as error:
                warn(ReadWarning(str(database), None, str(error)))
                infos = []
            for info in infos:
                listed.add(info.id)
                yield info
        if not self._home.variant.legacy_tree:
            return
        for path in stored_sessions(self._home.storage):
            stored = describe_stored(path, warn)
            if stored is not None and stored.id not in listed:
                yield stored

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """Read one session in full: the conversation OpenCode would send on resume."""
        ref = split_ref(info.path)
        if ref is None:
            conversation = to_conversation(load_stored_rows(self._home.storage, info, warn))
        else:
            conversation = self._load_database(Path(ref[0]), ref[1], warn)
        measured = conversation.last_usage.context_tokens if conversation.last_usage else None
        info = replace(
            info,
            message_count=len(conversation.messages),
            model=info.model or conversation.model,
            context_tokens=measured if measured is not None else info.context_tokens,
        )
        extra = {key: value for key, value in (("slug", info.project), ("version", info.source_version)) if value}
        return Session(
            info,
            conversation.messages,
            measured_context_tokens=measured,
            compactions=conversation.compactions,
            extra=extra,
        )

    def _list_database(self, database: Path) -> list[SessionInfo]:
        """Every session row of the database as a listing entry."""
        with read_only(database, self._timeout, self._home.variant.name) as connection:
            have = columns(connection, "session")
            if not have:
                return []
            optional = [name for name in ("parent_id", "title", "version", "model", "slug") if name in have]
            picked = ", ".join(f"s.{name}" for name in optional)
            rows = connection.execute(
                f"SELECT s.id, s.directory, s.time_created, s.time_updated{', ' if picked else ''}{picked} "
                "FROM session s ORDER BY s.time_updated DESC"
            ).fetchall()
            folders = sorted({row[1] for row in rows if isinstance(row[1], str) and row[1]})
            stats = self._stats(connection, database, {str(row[0]): row[3] for row in rows}, folders)
            mtime = os.stat(database).st_mtime
        from smig_tui.core.redact import redacted_line  # not at import: `smig list` without OpenCode needs none

        infos = []
        for row in rows:
            extra = dict(zip(optional, row[4:], strict=True))
            session_id = str(row[0])
            infos.append(
                SessionInfo(
                    id=session_id,
                    agent=self.agent,
                    path=session_ref(database, session_id),
                    cwd=row[1] or None,
                    title=redacted_line(extra.get("title"), TITLE_WIDTH),
                    model=_model_id(extra.get("model")),
                    created=iso_ms(row[2]),
                    updated=iso_ms(row[3]),
                    source_version=extra.get("version"),
                    origin=self._home.variant.agent,
                    parent_id=extra.get("parent_id"),
                    is_subagent=bool(extra.get("parent_id")),
                    mtime=(row[3] or 0) / 1000 or mtime,
                    message_count=stats.get(session_id, (None, None))[0],
                    context_tokens=stats.get(session_id, (None, None))[1],
                    project=extra.get("slug"),
                )
            )
        return infos

    def _stats(
        self, connection: sqlite3.Connection, database: Path, updated: dict[str, Any], folders: list[str]
    ) -> dict[str, tuple[int, int | None]]:
        """Each session's message count and logged context: remembered for sessions not updated since,
        read for the rest.

        Counting reads every part's JSON (most of a cold listing's time), so the figures are kept in
        smig's cache keyed by the session's update time, which OpenCode bumps on every change. The cache
        also names the folders the sessions ran in (`folders`), which other agents' readers look in.
        """
        cached, cached_folders = _read_cache(self._listing_cache, database)
        known = {
            sid: (entry[1], entry[2]) for sid, entry in cached.items() if sid in updated and entry[0] == updated[sid]
        }
        stale = [sid for sid in updated if sid not in known]
        if stale:
            fresh = _part_counts(connection, None if len(stale) == len(updated) else stale)
            if fresh is None:
                return known
            known.update({sid: (fresh.get(sid, 0), _last_context(connection, sid)) for sid in stale})
        if self._listing_cache is not None and (stale or len(cached) != len(known) or cached_folders != folders):
            _write_cache(
                self._listing_cache,
                database,
                {sid: [updated[sid], count, context] for sid, (count, context) in known.items()},
                folders,
            )
        return known

    def _load_database(self, database: Path, session_id: str, warn: WarningSink) -> Conversation:
        """One session's conversation: its message rows first (what is sent depends on its revert
        marker and its last compaction), then each kept message's parts as the conversion reaches it,
        so a big session's parts are never all held."""
        from smig_tui.adapters.agents.opencode.parts import (  # loading only: the listing needs none
            PARTS_IN_ORDER,
            PartsInOrder,
            RowSource,
        )
        from smig_tui.adapters.stored_text import packer_for

        name = self._home.variant.name
        rows_of = RowSource(database, warn, name)
        try:
            with read_only(database, self._timeout, name) as connection:
                found = connection.execute("SELECT revert FROM session WHERE id = ?", (session_id,)).fetchone()
                if found is None:
                    raise SessionReadError(f"{name} session {session_id} is no longer in {database}.")
                order: dict[str, int] = {}
                rows = []
                for message_id, data in connection.execute(
                    "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", (session_id,)
                ):
                    order[message_id] = len(order)
                    info = rows_of.json_object(data)
                    if info is not None:
                        rows.append(Row(facts_of(info, message_id), ()))
                revert = rows_of.json_object(found[0]) if found[0] else None
                kept, compactions = active_rows(rows, revert)
                cursor = connection.execute(PARTS_IN_ORDER, (session_id, session_id))
                parts = PartsInOrder(cursor, order, rows_of, packer_for(database))
                rows_in_order = (Row(row.info, parts.of(row.info.id)) for row in kept)
                conversation = converted(rows_in_order, compactions, parts.pack)
                parts.drain()
                return conversation
        except OpenCodeDbError as error:
            raise SessionReadError(str(error)) from error


def _part_counts(connection: sqlite3.Connection, only: list[str] | None) -> dict[str, int] | None:
    """Per session (all, or `only` these), how many messages its parts become (a tool part gives two)."""
    where = "" if only is None else "AND session_id IN (SELECT value FROM json_each(?)) "
    try:
        rows = connection.execute(
            "SELECT session_id, SUM(CASE json_extract(data, '$.type') WHEN 'tool' THEN 2 ELSE 1 END) "
            f"FROM part WHERE json_valid(data) AND json_extract(data, '$.type') IN {SENT_PARTS} {where}"
            "GROUP BY session_id",  # json_valid first: one damaged part must not leave every count unknown
            () if only is None else (json.dumps(only),),
        ).fetchall()
    except sqlite3.OperationalError:  # no part table or no JSON functions: counts stay unknown
        return None
    return {str(session_id): int(count) for session_id, count in rows}


def _last_context(connection: sqlite3.Connection, session_id: str) -> int | None:
    """The context OpenCode logged for the session's last model call (its newest assistant message)."""
    for (data,) in connection.execute(
        "SELECT data FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT 20", (session_id,)
    ):
        try:
            info = json.loads(data)
        except (ValueError, RecursionError):  # damaged or nested too deeply
            continue
        if isinstance(info, dict) and info.get("role") == "assistant":
            usage = usage_of(info.get("tokens"))
            if usage is not None:
                return usage.context_tokens
    return None


def _read_cache(path: Path | None, database: Path) -> tuple[dict[str, list[Any]], list[str] | None]:
    """The remembered counts for this database and the folders its sessions ran in (empty and None when
    missing, damaged or for another database; None folders from a cache written before they were kept)."""
    if path is None:
        return {}, None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}, None
    if not isinstance(data, dict) or data.get("db") != str(database) or not isinstance(data.get("counts"), dict):
        return {}, None
    counts = {sid: entry for sid, entry in data["counts"].items() if isinstance(entry, list) and len(entry) == 3}
    folders = data.get("folders")
    return counts, folders if isinstance(folders, list) else None


def _write_cache(path: Path, database: Path, counts: dict[str, list[Any]], folders: list[str]) -> None:
    """Remember the counts and folders; a failed write is only a lost speed-up."""
    from smig_tui.adapters.fs import atomic_write

    with contextlib.suppress(OSError):
        text = json.dumps({"db": str(database), "counts": counts, "folders": folders}, separators=(",", ":"))
        atomic_write(path, text)


def _model_id(value: object) -> str | None:
    """The model id of the session's `model` column (`{"id": …, "providerID": …}`)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return value
    if isinstance(parsed, dict):
        model = parsed.get("id") or parsed.get("modelID")
        return str(model) if model else None
    return None
