"""Provides what a search asks of the index besides its words: the filters, the hit it returns, the
SQL its filters add, and the batches candidates are read in."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from smig_tui.core.search import CONTEXT, SearchQuery

FIRST_BATCH = 64
"""Candidates read first: a page of hits plus room for a fork's inherited copies, which are dropped."""
CONFIRM_BATCH = 200
"""Candidates read per round after the first (more copies than expected, or emoji and CJK confirmed on the text)."""


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """What narrows a search besides the query."""

    agent: str | None = None
    cwd: str | None = None
    """Only sessions recorded in this folder or below it."""
    since: str | None = None
    """ISO 8601 UTC: only messages from then on."""
    role: str | None = None


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One matching message, with where it is and a redacted, highlighted snippet."""

    agent: str
    session_id: str
    path: str
    title: str | None
    cwd: str | None
    message_id: str
    position: int
    role: str
    kind: str
    timestamp: str | None
    snippet: str
    spans: tuple[tuple[int, int], ...]
    archived: bool = False
    compacted: bool = False
    """The message is in the session's file but a compaction took it out of what the agent resumes."""


COLUMNS = (
    "m.position, m.message_id, m.role, m.kind, m.timestamp, t.block, t.start, t.length,"
    " f.agent, f.session_id, f.path, f.title, f.cwd, f.archived, m.compacted"
)
"""What a search reads per candidate: the message, where its text is, and its session."""


def filter_sql(query: SearchQuery, filters: SearchFilters) -> tuple[list[str], list[object]]:
    """The conditions (and their arguments) the query's trigram and scan terms and the filters add."""
    where: list[str] = []
    args: list[object] = []
    if query.gram_match:
        where.append("t.id IN (SELECT rowid FROM grams WHERE grams MATCH ?)")
        args.append(query.gram_match)
    for needle in query.scans:
        where.append("instr(smig_text(t.block, b.data, t.start, t.length), ?) > 0")
        args.append(needle)
    if filters.agent:
        where.append("f.agent = ?")
        args.append(filters.agent)
    if filters.cwd:
        root = os.path.realpath(filters.cwd).rstrip(os.sep) or os.sep
        where.append("(f.cwd_real = ? OR substr(f.cwd_real, 1, ?) = ?)")
        args += [root, len(root) + 1, root + os.sep]
    if filters.since:
        where.append("m.timestamp >= ?")
        args.append(filters.since)
    if filters.role:
        where.append("m.role = ?")
        args.append(filters.role)
    return where, args


def tool_then_context(batches: Iterator[list[Any]]) -> Iterator[list[Any]]:
    """Rows of tool traffic as they come (their tier, last, left off), then those of injected context."""
    context: list[Any] = []
    for rows in batches:
        yield [row[:-1] for row in rows if row[-1] != CONTEXT]
        context += [row[:-1] for row in rows if row[-1] == CONTEXT]
    for start in range(0, len(context), CONFIRM_BATCH):
        yield context[start : start + CONFIRM_BATCH]


def fetched(cursor: sqlite3.Cursor) -> Iterator[list[Any]]:
    """A cursor's rows in batches, the first small (a page of hits is usually found in it)."""
    size = FIRST_BATCH
    while rows := cursor.fetchmany(size):
        yield rows
        size = CONFIRM_BATCH


def inherited(message_id: str) -> bool:
    """Tell whether a message id names a message inherited from another thread (`<thread>@<n>:<id>`)."""
    return "@" in message_id
