"""Provides the full-text index of every session: SQLite FTS5 in smig's cache folder.

Each distinct text is stored and indexed once, redacted: messages point at it by a digest of its
content, so a fork's inherited turns, a file read again and again, a repeated instruction cost a
row of `messages` and no redaction (half of the text of the generated corpus is such repeats).
Texts are packed in zstd blocks of about 1 MB. Conversation is indexed in a word table ranked
with bm25, tool traffic (most of the text) in another; both keep positions, so phrases are exact
in the index. A text holding a script written without spaces also goes into a trigram table. The
FTS tables are contentless, so the text is not stored twice.

A query walks each word table in its own rowid order, newest first, joined to the messages and
filters, and stops when it has a page: tool traffic newest first, then injected context;
conversation ranks its `RANKED_MATCHES` most recent matching texts by bm25 (which costs per match)
and lists older ones after.

The index follows the files: each session is keyed by (agent, id, path) and checked by the file's
size and mtime. A file that only grew gets only its new messages: a reader that can (`AppendReader`:
Codex, Claude Code) reads on from where the file's lines ended, kept per file with a digest of the
bytes before; others read it whole. A rewritten one is indexed again, a removed one leaves. In a big
refresh two worker processes read the sessions (a huge one whole, without a process of its own) and
redact their new texts while this one writes. A
damaged index file is deleted and built again, with a notice: it is a cache, the sessions are the
truth.

This module keeps the index itself (opening, refreshing, text blocks, queries); its other jobs live
beside it: `search_schema` (tables, version, damage), `search_reading` (sessions read and redacted for
the index, in worker processes in a big refresh), `search_writing` (texts, messages and the
transactions a refresh writes in) and `search_query` (filters, hits, the filter SQL).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smig_tui.adapters.freshness import source_fingerprint
from smig_tui.adapters.fs import file_lock
from smig_tui.adapters.search_query import (
    COLUMNS,
    fetched,
    filter_sql,
    inherited,
    tool_then_context,
)
from smig_tui.adapters.search_query import SearchFilters as SearchFilters  # what callers import from here
from smig_tui.adapters.search_query import SearchHit as SearchHit
from smig_tui.adapters.search_schema import SCHEMA, SCHEMA_VERSION, has_schema, is_damage, schema_version
from smig_tui.adapters.search_writing import (
    FTS_TABLES,
    batched,
    drop_messages,
    held_texts,
    insert_messages,
    place_texts,
)
from smig_tui.adapters.zstd_files import DAMAGED, decompress
from smig_tui.core.errors import LockedError
from smig_tui.core.models import SessionInfo
from smig_tui.core.ports import ResumePoint, SessionSource, WarningSink
from smig_tui.core.redact import redact
from smig_tui.core.search import (
    CONTEXT,
    CONVERSATION,
    SNIPPET_MARGIN,
    TOOLING,
    SearchQuery,
    SearchQueryError,
    Snippet,
    ascii_lower,
    make_snippet,
    snippet_region,
    tier_holds_role,
)

if TYPE_CHECKING:  # reading sessions for the index: imported when a refresh has something to read
    from smig_tui.adapters.search_reading import IndexRead, Previous

CACHED_BLOCKS = 24
"""Unpacked blocks kept in memory while searching."""
RANKED_MATCHES = 2000
"""Conversation matches, the most recent, ranked by bm25. bm25 costs about a microsecond per match
(it reads each one's length and positions), so ranking every match of a common word grows with the
history; older matches follow the ranked ones, newest first."""
PARALLEL_BYTES = 64 << 20
"""Session bytes to index in one refresh from which sessions are read in worker processes."""
OPTIMIZE_AFTER = 50
"""Sessions indexed in one refresh past which the FTS segments are merged."""

Progress = Callable[[int, int], None]
"""Called with (sessions done, sessions to do) while the index is refreshed."""
Notice = Callable[[str], None]
"""Called with one sentence worth telling the user (a rebuilt index, a refresh skipped)."""


@dataclass
class RefreshReport:
    """What one refresh did."""

    added: int = 0
    grown: int = 0
    reindexed: int = 0
    removed: int = 0
    messages: int = 0
    rebuilt: bool = False
    skipped: bool = False
    """True when another smig was refreshing, so this one used the index as it was."""

    @property
    def changed(self) -> int:
        """Sessions whose rows changed."""
        return self.added + self.grown + self.reindexed + self.removed


@dataclass
class _Known:
    """What the index holds for one file."""

    id: int
    size: int
    mtime: float
    indexed: int
    last_id: str | None
    meta: tuple[object, ...] = field(default=())
    resume: ResumePoint | None = None
    """Where the file's complete lines ended when last read, for a reader that can read on from there."""


def _previous(old: _Known | None) -> Previous | None:
    from smig_tui.adapters.search_reading import Previous

    return Previous(old.size, old.indexed, old.last_id, old.resume) if old else None


class IndexDamagedError(Exception):
    """The index file turned out damaged while searching; it was deleted, refresh and search again."""


class SearchIndex:
    """The search index in `folder` (`<cache>/search/`): refresh it from the sources, query it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.db_path = folder / "index.sqlite3"
        self._conn: sqlite3.Connection | None = None
        self._guard = threading.RLock()
        self._blocks: OrderedDict[int, bytes] = OrderedDict()
        """Recently unpacked blocks by id (ids are never reused, so an entry never goes stale)."""
        self.parallel: bool | None = None
        """Redact in a worker process: None decides by how much there is to index."""
        self._real_paths: dict[str | None, str | None] = {}
        """Each session folder with its links resolved, during a refresh."""

    # --- opening, and recovering from a damaged file ---------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        """The open connection, creating the schema on first use."""
        if self._conn is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            fresh = not self.db_path.exists()
            if fresh:  # private from the first byte; SQLite gives its -wal and -shm files the same mode
                os.close(os.open(self.db_path, os.O_CREAT | os.O_WRONLY, 0o600))
            conn = sqlite3.connect(self.db_path, check_same_thread=False, isolation_level=None)
            try:
                conn.create_function("smig_text", 4, self._lowered_text)
                if fresh:  # only takes effect before the first table and the switch to WAL
                    conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                if fresh or not has_schema(conn):
                    conn.executescript(SCHEMA)
                    conn.execute("INSERT INTO meta VALUES ('version', ?)", (SCHEMA_VERSION,))
                elif schema_version(conn) != SCHEMA_VERSION:  # an index an older smig built: a cache, so start over
                    conn.close()
                    self._reset()
                    return self._connection()
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def close(self) -> None:
        """Close the connection (it reopens on next use)."""
        with self._guard:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _reset(self) -> None:
        """Delete the index files so the next use builds it again."""
        self.close()
        self._blocks.clear()
        for suffix in ("", "-wal", "-shm"):
            Path(str(self.db_path) + suffix).unlink(missing_ok=True)

    @contextmanager
    def _recovering(self, notice: Notice) -> Iterator[list[bool]]:
        """Run a block; if the index turns out damaged, delete it, say so, and flag a rebuild."""
        flag = [False]
        try:
            yield flag
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
            notice(f"The search index was damaged ({error}); rebuilding it from the sessions.")
            self._reset()
            flag[0] = True

    # --- refreshing ------------------------------------------------------------------------------

    def refresh(
        self,
        sources: Sequence[SessionSource],
        warn: WarningSink,
        progress: Progress | None = None,
        notice: Notice | None = None,
    ) -> RefreshReport:
        """Bring the index up to date with every session the sources yield.

        Another smig refreshing at the same time is not waited for: this one searches what is there.
        """
        say = notice or (lambda _: None)
        try:
            with file_lock(self.folder / "index.lock", timeout=0.0, what="the search index"):
                report = RefreshReport()
                with self._recovering(say) as damaged:
                    self._refresh(sources, warn, progress, report)
                if damaged[0]:
                    report = RefreshReport(rebuilt=True)
                    self._refresh(sources, warn, progress, report)
                return report
        except LockedError:
            say("Another smig is updating the search index; searching it as it is.")
            return RefreshReport(skipped=True)

    def _refresh(
        self, sources: Sequence[SessionSource], warn: WarningSink, progress: Progress | None, report: RefreshReport
    ) -> None:
        with self._guard:
            conn = self._connection()
            self._real_paths.clear()  # a link may have changed since the last refresh
            listed: dict[str, str | None] = {}
            known: dict[str, _Known] = {}
            todo: list[tuple[SessionSource, SessionInfo]] = []
            seen: set[str] = set()
            for source, value in _listings_to_read(conn, sources):
                listed[source.agent.value] = value
                known.update(_known_files(conn, source.agent.value))
                for info in source.discover(warn):
                    key = _key(info)
                    if key in seen:
                        continue
                    seen.add(key)
                    old = known.get(key)
                    if old is None or old.size != info.size or old.mtime != info.mtime:
                        todo.append((source, info))
                    elif not _same_meta(old.meta, info):
                        conn.execute(
                            "UPDATE files SET title=?, cwd=?, updated=?, subagent=?, archived=?, cwd_real=? WHERE id=?",
                            (*_meta(info)[2:], self._real_cwd(info.cwd), old.id),
                        )
            if not listed:
                return  # nothing any listing reads has changed since the last refresh
            gone = [old.id for key, old in known.items() if key not in seen]  # of the agents listed
            for file_id in gone:
                self._drop_file(conn, file_id)
                report.removed += 1
            if todo:
                self._read_and_write(conn, todo, known, listed, warn, progress, report)
            if progress and todo:
                progress(len(todo), len(todo))
            if len(todo) >= OPTIMIZE_AFTER:  # many new segments: merge them, smaller and faster to query
                for table in FTS_TABLES:
                    conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
                conn.executescript("PRAGMA incremental_vacuum;")  # run to the end: execute() frees one page
            if todo or gone:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            for agent, value in listed.items():  # a listing with a failed read is read again next time
                if value is None:
                    conn.execute("DELETE FROM meta WHERE key = ?", (LISTED + agent,))
                else:
                    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (LISTED + agent, value))

    def _read_and_write(
        self,
        conn: sqlite3.Connection,
        todo: list[tuple[SessionSource, SessionInfo]],
        known: dict[str, _Known],
        listed: dict[str, str | None],
        warn: WarningSink,
        progress: Progress | None,
        report: RefreshReport,
    ) -> None:
        """Read the new and changed sessions (in worker processes when there is much) and write them.

        The readers are imported here, when there is something to read: a search on a fresh index
        needs none of them (nor `multiprocessing`)."""
        from smig_tui.adapters.search_reading import Readers

        # Oldest first, so ids follow time: hits of tool traffic come newest first by id alone.
        todo.sort(key=lambda pair: pair[1].updated or "")
        parallel = (
            self.parallel if self.parallel is not None else (sum(info.size for _, info in todo) >= PARALLEL_BYTES)
        )
        with Readers(parallel) as readers, batched(conn, len(todo) >= OPTIMIZE_AFTER) as written:
            reads = readers.read(
                ((source, info, _previous(known.get(_key(info)))) for source, info in todo),
                partial(held_texts, conn),
            )
            for done, ((source, info), read) in enumerate(zip(todo, reads, strict=True)):
                if progress:
                    progress(done, len(todo))
                for warning in read.warnings:
                    warn(warning)
                if read.mode != "failed":
                    self._write(conn, source, info, known.get(_key(info)), read, report)
                    written(info.size)
                else:
                    listed[source.agent.value] = None

    def _write(
        self,
        conn: sqlite3.Connection,
        source: SessionSource,
        info: SessionInfo,
        old: _Known | None,
        read: IndexRead,
        report: RefreshReport,
    ) -> None:
        """Write one session as read; should a text it counted on as indexed be missing, read it again here."""
        from smig_tui.adapters.search_reading import MissingText, read_for_index

        try:
            if read.mode == "append":
                assert old is not None
                self._append_file(conn, info, old, read, report)
            else:
                self._index_file(conn, info, old, read, report)
        except MissingText:
            again = read_for_index(source, info, _previous(old), lambda _: {})
            if again.mode != "failed":
                self._write(conn, source, info, old, again, report)

    def _index_file(
        self, conn: sqlite3.Connection, info: SessionInfo, old: _Known | None, read: IndexRead, report: RefreshReport
    ) -> None:
        """Index one session file, read whole, as a whole or not at all: only its new messages when it just grew."""
        grew = read.mode == "grow"
        placed = place_texts(conn, read)
        facts = (
            *_meta(info),
            self._real_cwd(info.cwd),
            info.size,
            info.mtime,
            read.count,
            read.last_id,
            *_resume_columns(read.point),
        )
        if old is None:  # its row first (the messages point at it), whole: a new file is written once
            cursor = conn.execute(
                "INSERT INTO files(key, path, agent, session_id, title, cwd, updated, subagent, archived, cwd_real,"
                " size, mtime, indexed, last_id, resume_offset, resume_line, resume_digest, resume_state)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (_key(info), info.path, *facts),
            )
            insert_messages(conn, int(cursor.lastrowid or 0), info.updated, read, placed)
            report.added += 1
        else:
            last = conn.execute("SELECT coalesce(max(id), 0) FROM messages WHERE file = ?", (old.id,)).fetchone()[0]
            insert_messages(conn, old.id, info.updated, read, placed)
            if not grew:  # the old messages leave after the new ones hold their texts
                drop_messages(conn, old.id, self._text, self._forget_block, last)
            conn.execute(
                "UPDATE files SET agent=?, session_id=?, title=?, cwd=?, updated=?, subagent=?, archived=?,"
                " cwd_real=?, size=?, mtime=?, indexed=?, last_id=?, resume_offset=?, resume_line=?,"
                " resume_digest=?, resume_state=? WHERE id=?",
                (*facts, old.id),
            )
            if grew:
                report.grown += 1
            else:
                report.reindexed += 1
        report.messages += len(read.rows)

    def _append_file(
        self, conn: sqlite3.Connection, info: SessionInfo, old: _Known, read: IndexRead, report: RefreshReport
    ) -> None:
        """Index the messages a file gained, read from where its lines ended, as a whole or not at all."""
        added = insert_messages(conn, old.id, info.updated, read, place_texts(conn, read))
        conn.execute(
            "UPDATE files SET title=?, updated=?, size=?, mtime=?, indexed=?, last_id=?, resume_offset=?,"
            " resume_line=?, resume_digest=?, resume_state=? WHERE id=?",
            (
                _meta(info)[2],
                info.updated,
                info.size,
                info.mtime,
                old.indexed + read.count,
                read.last_id or old.last_id,
                *_resume_columns(read.point),
                old.id,
            ),
        )

        report.messages += added
        report.grown += 1

    def _real_cwd(self, cwd: str | None) -> str | None:
        """`cwd` with its links resolved, each folder once a refresh (most sessions share a few)."""
        if cwd not in self._real_paths:
            self._real_paths[cwd] = _real(cwd)
        return self._real_paths[cwd]

    def _block(self, conn: sqlite3.Connection, block: int, data: bytes | None = None) -> bytes:
        """The unpacked bytes of a block, from the memory cache when recently used."""
        cached = self._blocks.get(block)
        if cached is None:
            if data is None:
                row = conn.execute("SELECT data FROM blocks WHERE id = ?", (block,)).fetchone()
                if row is None:
                    raise sqlite3.DatabaseError(f"no such block {block}: the index is damaged")
                data = row[0]
            try:
                cached = decompress(data)
            except DAMAGED as error:
                raise sqlite3.DatabaseError(f"block {block} is corrupt ({error})") from None
            self._blocks[block] = cached
            while len(self._blocks) > CACHED_BLOCKS:
                self._blocks.popitem(last=False)
        else:
            self._blocks.move_to_end(block)
        return cached

    def _forget_block(self, block: int) -> None:
        """Drop a deleted block from the memory cache."""
        self._blocks.pop(block, None)

    def _text(self, conn: sqlite3.Connection, block: int, start: int, length: int) -> str:
        """One message's stored text."""
        return self._block(conn, block)[start : start + length].decode()

    def _lowered_text(self, block: int, data: bytes, start: int, length: int) -> str:
        """`smig_text()` in SQL: a stored text ASCII-lowered, for substring scans."""
        assert self._conn is not None
        return ascii_lower(self._block(self._conn, block, data)[start : start + length].decode())

    def _drop_file(self, conn: sqlite3.Connection, file_id: int) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            drop_messages(conn, file_id, self._text, self._forget_block)
            conn.execute("DELETE FROM files WHERE id = ?", (file_id,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    # --- searching -------------------------------------------------------------------------------

    def search(
        self,
        query: SearchQuery,
        filters: SearchFilters = SearchFilters(),  # noqa: B008 (frozen: one shared default is safe)
        limit: int = 20,
        offset: int = 0,
        notice: Notice | None = None,
    ) -> list[SearchHit]:
        """The best `limit` hits after `offset`: conversation before tool traffic, then by bm25, newest first."""
        with self._guard:
            try:
                return self._search(query, filters, limit, offset)
            except sqlite3.DatabaseError as error:
                if not is_damage(error):
                    raise
                (notice or (lambda _: None))(
                    f"The search index was damaged ({error}); rebuilding it from the sessions."
                )
                self._reset()
                raise IndexDamagedError(str(error)) from None

    def _search(self, query: SearchQuery, filters: SearchFilters, limit: int, offset: int) -> list[SearchHit]:
        """Conversation hits first (bm25 over the most recent matches), then tool traffic, then injected
        context (newest first each): the word tables have positions, so only character terms are
        confirmed on the text."""
        conn = self._connection()
        wanted = offset + limit
        seen: dict[tuple[Any, ...], int] = {}
        rows: list[tuple[Any, ...]] = []
        confirm = query.confirms if query.needs_confirming else None
        try:
            for batches in self._phases(conn, query, filters):
                rows += self._rows(conn, batches, confirm, wanted - len(rows), seen)
                if len(rows) >= wanted:
                    break
                seen = {key: -1 for key in seen}  # the next phase only needs to know these were shown
        except sqlite3.OperationalError as error:
            if "fts5" in str(error) or "syntax" in str(error):
                raise SearchQueryError(f"The search index cannot run this query: {error}.") from None
            raise
        hits = []
        needles, anchors = query.needles, query.anchors
        for position, message_id, role, kind, stamp, text, agent, session_id, path, title, cwd, archived, gone in rows[
            offset:
        ]:
            snippet = make_snippet(
                redact(snippet_region(text, needles, anchors=anchors)).text, needles, anchors=anchors
            )
            hits.append(
                SearchHit(
                    agent,
                    session_id,
                    path,
                    redact(title).text if title else None,
                    cwd,
                    message_id,
                    position,
                    role,
                    kind,
                    stamp,
                    snippet.text,
                    snippet.spans,
                    bool(archived),
                    bool(gone),
                )
            )
        return hits

    def _phases(
        self, conn: sqlite3.Connection, query: SearchQuery, filters: SearchFilters
    ) -> Iterator[Iterator[list[Any]]]:
        """The candidate rows of each ranking tier in turn, best first, as batches read on demand."""
        where, args = filter_sql(query, filters)
        if not query.word_match:  # characters or punctuation only: every message the filters leave
            sql = f"SELECT {COLUMNS} FROM texts t JOIN messages m ON m.text = t.id JOIN files f ON f.id = m.file"
            if query.scans:
                sql += " JOIN blocks b ON b.id = t.block"
            cursor = conn.execute(f"{sql} WHERE {' AND '.join(where) or '1'} ORDER BY m.tier, m.timestamp DESC", args)
            yield fetched(cursor)
            return
        joined = (
            f"JOIN messages m ON m.text = t.id JOIN files f ON f.id = m.file"
            f"{' JOIN blocks b ON b.id = t.block' if query.scans else ''}"
            f" WHERE m.tier BETWEEN ? AND ? AND {' AND '.join(where) or '1'}"
        )
        if not filters.role or tier_holds_role(CONVERSATION, filters.role):
            yield self._ranked(conn, "words", query.word_match, joined, [CONVERSATION, CONVERSATION, *args])
        # Tool traffic, then injected context: one walk of the tool table in its own rowid order,
        # newest first, read until enough; context met on the way waits for the walk's end.
        cursor = conn.execute(
            f"SELECT {COLUMNS}, m.tier FROM tool_words JOIN texts t ON t.id = tool_words.rowid {joined}"
            " AND tool_words MATCH ? ORDER BY tool_words.rowid DESC",
            [TOOLING, CONTEXT, *args, query.word_match],
        )
        yield tool_then_context(fetched(cursor))

    def _ranked(
        self, conn: sqlite3.Connection, table: str, match: str, joined: str, args: list[object]
    ) -> Iterator[list[Any]]:
        """Conversation matches: the `RANKED_MATCHES` most recent texts by bm25 (equal scores: the
        newer text first), each text's messages newest first; then the messages of older texts,
        newest first. A text's messages are read only when the hits reach it."""
        ranked = conn.execute(
            f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT ?",
            (match, RANKED_MATCHES),
        ).fetchall()
        order = [text_id for text_id, _ in sorted(ranked, key=lambda pair: (pair[1], -pair[0]))]
        done, size = 0, 4
        while done < len(order):  # a few texts first (a page is usually in them), then more at a time
            chunk = order[done : done + size]
            cursor = conn.execute(
                f"SELECT {COLUMNS} FROM texts t {joined} AND t.id IN ({','.join('?' * len(chunk))})"
                f" ORDER BY CASE t.id {' '.join(f'WHEN ? THEN {n}' for n in range(len(chunk)))} END,"
                " m.timestamp DESC",
                (*args, *chunk, *chunk),
            )
            yield from fetched(cursor)
            done, size = done + size, min(4 * size, 256)
        if len(ranked) == RANKED_MATCHES:
            oldest = min(text_id for text_id, _ in ranked)
            cursor = conn.execute(
                f"SELECT {COLUMNS} FROM {table} JOIN texts t ON t.id = {table}.rowid {joined}"
                f" AND {table} MATCH ? AND {table}.rowid < ? ORDER BY {table}.rowid DESC",
                (*args, match, oldest),
            )
            yield from fetched(cursor)

    def _rows(
        self,
        conn: sqlite3.Connection,
        batches: Iterator[list[Any]],
        confirm: Callable[[str], bool] | None,
        wanted: int,
        seen: dict[tuple[Any, ...], int],
    ) -> list[tuple[Any, ...]]:
        """The first `wanted` rows with their texts, read batch by batch.

        When the index only narrows (emoji, CJK characters) each candidate is confirmed on its text.
        A message a fork inherited is the same message in several sessions: it is shown once, from
        the session that wrote it when that is among the hits.
        """
        found: list[tuple[Any, ...]] = []
        for rows in batches:
            texts: dict[int, str] = {}
            for index, row in sorted(enumerate(rows), key=lambda pair: pair[1][5]):  # each block unpacked once
                text = self._text(conn, *row[5:8])
                if confirm is None or confirm(text):
                    texts[index] = text
            for index, row in enumerate(rows):
                if index not in texts:
                    continue
                hit = (*row[:5], texts[index], *row[8:])
                key = (row[8], row[2], row[3], row[4], texts[index])  # agent, role, kind, time, text
                if key in seen:  # an inherited copy: keep the one the session wrote itself
                    if seen[key] >= 0 and inherited(found[seen[key]][1]) and not inherited(row[1]):
                        found[seen[key]] = hit
                    continue
                seen[key] = len(found)
                found.append(hit)
            if len(found) >= wanted:
                break
        return found[:wanted]

    def excerpt(self, hit: SearchHit, query: SearchQuery, width: int = 1200) -> Snippet:
        """A longer window of a hit's message around its first match, redacted, matches marked."""
        with self._guard:
            conn = self._connection()
            row = conn.execute(
                "SELECT t.block, t.start, t.length FROM messages m JOIN texts t ON t.id = m.text"
                " JOIN files f ON f.id = m.file WHERE f.path = ? AND f.session_id = ? AND m.message_id = ?",
                (hit.path, hit.session_id, hit.message_id),
            ).fetchone()
            if row is None:
                return Snippet(hit.snippet, hit.spans)
            text = self._text(conn, *row)
        region = snippet_region(text, query.needles, max(SNIPPET_MARGIN, 2 * width), query.anchors)
        return make_snippet(redact(region).text, query.needles, width, query.anchors)

    def stats(self) -> dict[str, int]:
        """Sessions, messages and bytes the index holds."""
        with self._guard:
            conn = self._connection()
            files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
            messages = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        size = sum(
            Path(str(self.db_path) + suffix).stat().st_size
            for suffix in ("", "-wal")
            if Path(str(self.db_path) + suffix).exists()
        )
        return {"sessions": files, "messages": messages, "bytes": size}


LISTED = "listed:"
"""The `meta` key prefix of each agent's listing fingerprint, as taken before its last complete refresh."""


def _listings_to_read(
    conn: sqlite3.Connection, sources: Sequence[SessionSource]
) -> Iterator[tuple[SessionSource, str | None]]:
    """The sources whose listing must be read, in order, each with the fingerprint of what it reads now
    (None: none can be taken, or it must not be trusted). A source whose fingerprint is the one stored
    is left out: nothing it lists has changed. Each is taken just before its own listing, after those
    of the sources before it (Aider looks for histories where the other agents' sessions ran): a change
    while it is read shows next time."""
    agents = [source.agent.value for source in sources]
    if len(set(agents)) < len(agents):  # two sources of one agent: one fingerprint cannot stand for both
        yield from ((source, None) for source in sources)
        return
    stored = dict(conn.execute("SELECT key, value FROM meta WHERE key LIKE ?", (LISTED + "%",)).fetchall())
    for source in sources:
        value = source_fingerprint(source)
        if value is None or stored.get(LISTED + source.agent.value) != value:
            yield source, value


def _known_files(conn: sqlite3.Connection, agent: str) -> dict[str, _Known]:
    """What the index holds of one agent's files, by key."""
    return {
        row[0]: _Known(
            row[1],
            row[2],
            row[3],
            row[4],
            row[5],
            tuple(row[6:11]),
            ResumePoint(row[11], row[12], row[13], row[14]) if row[11] is not None else None,
        )
        for row in conn.execute(
            "SELECT key, id, size, mtime, indexed, last_id, title, cwd, updated, subagent, archived,"
            " resume_offset, resume_line, resume_digest, resume_state FROM files WHERE agent = ?",
            (agent,),
        )
    }


def _key(info: SessionInfo) -> str:
    """What the index follows: a session in a file (an agent may keep several sessions in one file)."""
    return f"{info.agent.value}\t{info.id}\t{info.path}"


def _meta(info: SessionInfo) -> tuple[object, ...]:
    """The listing facts stored per file: agent, id, title, cwd, updated, sub-agent, archived."""
    title = redact(info.title).text if info.title else info.title  # a first prompt may hold a secret
    return (info.agent.value, info.id, title, info.cwd, info.updated, int(info.is_subagent), int(info.archived))


def _same_meta(stored: tuple[object, ...], info: SessionInfo) -> bool:
    """Whether the stored listing facts are still `info`'s (`_meta(info)[2:]`), redacting the title only
    when it differs from the stored one: a title is stored redacted, and redacting each of 2,000 titles
    on every refresh was a third of a warm `smig search`."""
    if stored[1:] != (info.cwd, info.updated, int(info.is_subagent), int(info.archived)):
        return False
    return stored[0] == info.title or stored == _meta(info)[2:]


def _resume_columns(point: ResumePoint | None) -> tuple[int | None, int | None, str | None, str | None]:
    return (point.offset, point.line, point.digest, point.state) if point else (None, None, None, None)


def _real(cwd: str | None) -> str | None:
    return os.path.realpath(cwd) if cwd else None
