"""Provides the writing of the search index's texts and messages: each new distinct text packed into
a zstd block and put in its word table (and the trigram table when it needs one), each message a row
pointing at its text, references counted so a text leaves with its last message; and the
transactions a refresh writes in.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING

from smig_tui.adapters.zstd_files import compress
from smig_tui.core.search import CONVERSATION, char_tokens, letters_folded, needs_grams

if TYPE_CHECKING:
    from smig_tui.adapters.search_reading import IndexRead

BLOCK_BYTES = 1 << 20
"""Texts are packed together into zstd blocks of about this many bytes."""
BLOCK_LEVEL = 3
TextOf = Callable[[sqlite3.Connection, int, int, int], str]
"""A stored text, by its block, start and length."""
COMMIT_BYTES = 128 << 20
"""Session bytes read between two commits of a refresh: one commit per session made each FTS table
write its pending terms as a segment of its own (2,000 small segments, merged again and again)."""
BUILD_CACHE_KB = 32 << 10
"""SQLite's page cache during a bulk refresh (its default, 2 MB, keeps few of the index's pages)."""


FTS_TABLES = ("words", "tool_words", "grams")
AUTOMERGE = 4
"""FTS5's own default: after a write, merge a level's segments once it holds this many."""
CRISIS_MERGE = 16
"""FTS5's own default: a level holding this many segments is merged at once, whatever `automerge` says."""
BULK_CRISIS_MERGE = 64
"""The same during a bulk refresh: the benchmark's 2 GB corpus writes 17 segments of tool text, and at
16 FTS5 merged sixteen of them midway, which the closing `optimize` then merged again (a bulk build's
writing 8.8-9.4 s of CPU with it, 7.2-8.1 s without)."""
HASH_BYTES = 1 << 20
"""FTS5's own default: the terms written and not yet in a segment take up to this much memory."""
BULK_HASH_BYTES = 8 << 20
"""The same during a bulk refresh: eight times fewer segments to write and merge (inserting the
0.4 GB benchmark corpus's tool text took a fifth less CPU), for at most 7 MB more memory per table."""


@contextmanager
def batched(conn: sqlite3.Connection, bulk: bool) -> Iterator[Callable[[int], None]]:
    """One transaction around a refresh's writes, committed each `COMMIT_BYTES` of sessions and at
    the end. Interrupted, the index keeps what was committed: the next refresh indexes the rest.

    A bulk refresh (it ends with an `optimize`, merging every FTS table into one segment) does no
    merging as it writes (FTS5's `automerge`, about a fifth of its CPU on the benchmark corpus's
    300 MB of tool text, merged the same terms again level by level, and its `crisismerge`, which
    merges a level of many segments whatever `automerge` says), keeps more terms in memory
    before it writes them as a segment (`BULK_HASH_BYTES`), and has a bigger page cache. FTS5 keeps
    both settings in the index file: they are put back after, however the refresh ends."""
    pending = 0

    def written(size: int) -> None:
        nonlocal pending
        pending += size
        if pending >= COMMIT_BYTES:
            conn.execute("COMMIT")
            conn.execute("BEGIN IMMEDIATE")
            pending = 0

    def merging(level: int, crisis: int, hash_bytes: int) -> None:
        for table in FTS_TABLES:
            conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('automerge', ?)", (level,))
            conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('crisismerge', ?)", (crisis,))
            conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('hashsize', ?)", (hash_bytes,))

    cache = conn.execute("PRAGMA cache_size").fetchone()[0]
    if bulk:
        conn.execute(f"PRAGMA cache_size = -{BUILD_CACHE_KB}")
    conn.execute("BEGIN IMMEDIATE")
    try:
        if bulk:
            merging(0, BULK_CRISIS_MERGE, BULK_HASH_BYTES)
        yield written
        if bulk:
            merging(AUTOMERGE, CRISIS_MERGE, HASH_BYTES)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if bulk:  # a commit on the way may have kept the settings
            merging(AUTOMERGE, CRISIS_MERGE, HASH_BYTES)
        raise
    finally:
        conn.execute(f"PRAGMA cache_size = {cache}")


@dataclass(slots=True)
class Placed:
    """Where a read's texts go: the id of each text the index holds, by digest, the new ones in the
    order met (ids follow it, each with whether it is tool traffic), and each text's messages."""

    ids: dict[int, int]
    new: dict[int, bool]
    refs: Counter[int]


def place_texts(conn: sqlite3.Connection, read: IndexRead) -> Placed:
    """Which of a read's texts the index holds and which it gains; `MissingText` (read the session
    again) when a text the read counted on as held is not. Asked before anything of the session is
    written, so a read found short leaves no row behind."""
    rows = read.rows
    refs = Counter(map(itemgetter(6), rows))
    ids = held_texts(conn, list(refs))
    texts = read.texts
    new: dict[int, bool] = {}
    for row in rows:
        digest = row[6]
        if digest not in ids and digest not in new:
            if digest not in texts:  # held when the session was read, gone since
                from smig_tui.adapters.search_reading import MissingText

                raise MissingText
            new[digest] = row[4] != CONVERSATION
    return Placed(ids, new, refs)


def insert_messages(
    conn: sqlite3.Connection, file_id: int, updated: str | None, read: IndexRead, placed: Placed
) -> int:
    """Store messages, each pointing at its redacted text (`placed`: see `place_texts`). A text the
    index already holds gains a reference; a new one is packed into a block and indexed."""
    ids, new, refs, texts = placed.ids, placed.new, placed.refs, read.texts
    if new:
        next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM texts").fetchone()[0]
        batch: list[tuple[int, int, str, bytes, bool]] = []
        size = 0
        for digest, tool in new.items():
            text = texts[digest]
            data = text.encode()
            ids[digest] = next_id
            batch.append((next_id, digest, text, data, tool))
            next_id += 1
            size += len(data)
            if size >= BLOCK_BYTES:
                add_texts(conn, batch, refs)
                batch, size = [], 0
        add_texts(conn, batch, refs)
    if len(new) < len(refs):
        conn.executemany(
            "UPDATE texts SET refs = refs + ? WHERE id = ?",
            [(count, ids[digest]) for digest, count in refs.items() if digest not in new],
        )
    conn.executemany(
        "INSERT INTO messages(file, position, message_id, role, kind, tier, timestamp, text, compacted)"
        " VALUES (?,?,?,?,?,?,?,?,?)",
        [
            (file_id, position, message_id, role, kind, rank, stamp or updated, ids[digest], gone)
            for position, message_id, role, kind, rank, stamp, digest, gone in read.rows
        ],
    )
    return len(read.rows)


def drop_messages(
    conn: sqlite3.Connection,
    file_id: int,
    text_of: TextOf,
    forget_block: Callable[[int], None],
    up_to: int | None = None,
) -> None:
    """Remove a file's messages (those up to id `up_to`); a text no other message points at leaves
    the tables too (contentless FTS needs each text to forget it: `text_of` reads it) and so does a
    block left empty (`forget_block` is told)."""
    last = (1 << 63) - 1 if up_to is None else up_to
    counts = conn.execute(
        "SELECT text, count(*) FROM messages WHERE file = ? AND id <= ? GROUP BY text", (file_id, last)
    ).fetchall()
    conn.execute("DELETE FROM messages WHERE file = ? AND id <= ?", (file_id, last))
    conn.executemany("UPDATE texts SET refs = refs - ? WHERE id = ?", [(n, text_id) for text_id, n in counts])
    blocks: set[int] = set()
    for text_id, _ in counts:
        row = conn.execute(
            "SELECT tool, grams, block, start, length FROM texts WHERE id = ? AND refs <= 0", (text_id,)
        ).fetchone()
        if row is None:
            continue
        tool, grams, block, start, length = row
        text = text_of(conn, block, start, length)
        table = "tool_words" if tool else "words"
        conn.execute(f"INSERT INTO {table}({table}, rowid, body) VALUES ('delete', ?, ?)", (text_id, word_text(text)))
        if grams:
            conn.execute("INSERT INTO grams(grams, rowid, body) VALUES ('delete', ?, ?)", (text_id, text))
        conn.execute("DELETE FROM texts WHERE id = ?", (text_id,))
        blocks.add(block)
    for block in blocks:
        if conn.execute("SELECT 1 FROM texts WHERE block = ? LIMIT 1", (block,)).fetchone() is None:
            conn.execute("DELETE FROM blocks WHERE id = ?", (block,))
            forget_block(block)


def held_texts(conn: sqlite3.Connection, digests: list[int]) -> dict[int, int]:
    """The id of each text of `digests` the index already holds, by digest."""
    held: dict[int, int] = {}
    for start in range(0, len(digests), 500):
        chunk = digests[start : start + 500]
        held.update(conn.execute(f"SELECT digest, id FROM texts WHERE digest IN ({','.join('?' * len(chunk))})", chunk))
    return held


def add_texts(conn: sqlite3.Connection, batch: list[tuple[int, int, str, bytes, bool]], refs: Counter[int]) -> None:
    """Pack new texts (id, digest, text, its UTF-8, tool traffic or not) into one block and index them."""
    if not batch:
        return
    block = conn.execute(
        "INSERT INTO blocks(data) VALUES (?)", (compress(b"".join(b[3] for b in batch), BLOCK_LEVEL),)
    ).lastrowid
    rows: list[tuple[int, int, int, int, int, int | None, int, int]] = []
    talk: list[tuple[int, str]] = []
    tool: list[tuple[int, str]] = []
    grams: list[tuple[int, str]] = []
    start = 0
    for text_id, digest, text, data, is_tool in batch:
        gram = needs_grams(text)
        rows.append((text_id, digest, refs[digest], int(is_tool), int(gram), block, start, len(data)))
        start += len(data)
        (tool if is_tool else talk).append((text_id, word_text(text)))
        if gram:
            grams.append((text_id, text))
    conn.executemany(
        "INSERT INTO texts(id, digest, refs, tool, grams, block, start, length) VALUES (?,?,?,?,?,?,?,?)", rows
    )
    if talk:
        conn.executemany("INSERT INTO words(rowid, body) VALUES (?, ?)", talk)
    if tool:
        conn.executemany("INSERT INTO tool_words(rowid, body) VALUES (?, ?)", tool)
    if grams:
        conn.executemany("INSERT INTO grams(rowid, body) VALUES (?, ?)", grams)


def word_text(text: str) -> str:
    """What the word table indexes for a text: the text plus a token per emoji or CJK character, and
    a copy with the letters FTS5 does not fold folded (`Øresund` is found as `oresund`)."""
    extra = char_tokens(text)
    letters = letters_folded(text)
    if letters is not None:
        extra = f"{letters}\n{extra}"
    return f"{text}\n{extra}" if extra else text
