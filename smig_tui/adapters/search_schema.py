"""Provides the search index's SQLite schema, its version and how a damaged file is told apart."""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = "8"
CORRUPT_HINTS = ("malformed", "not a database", "corrupt", "no such table", "no such column", "disk i/o")
WORD_TOKENIZER = "unicode61 remove_diacritics 2"
"""How both word tables split and fold text (the benchmark's FTS5 floor uses the same)."""


SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE files(
    id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, path TEXT NOT NULL, agent TEXT NOT NULL,
    session_id TEXT NOT NULL,
    title TEXT, cwd TEXT, cwd_real TEXT, updated TEXT, size INTEGER, mtime REAL,
    subagent INTEGER, archived INTEGER, indexed INTEGER, last_id TEXT,
    resume_offset INTEGER, resume_line INTEGER, resume_digest TEXT, resume_state TEXT);
CREATE TABLE blocks(id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL);
CREATE TABLE texts(
    id INTEGER PRIMARY KEY, digest INTEGER NOT NULL, refs INTEGER NOT NULL, tool INTEGER NOT NULL,
    grams INTEGER NOT NULL, block INTEGER NOT NULL, start INTEGER NOT NULL, length INTEGER NOT NULL);
CREATE UNIQUE INDEX texts_digest ON texts(digest);
CREATE INDEX texts_block ON texts(block);
CREATE TABLE messages(
    id INTEGER PRIMARY KEY, file INTEGER NOT NULL, position INTEGER NOT NULL, message_id TEXT NOT NULL,
    role TEXT, kind TEXT, tier INTEGER, timestamp TEXT, text INTEGER NOT NULL, compacted INTEGER NOT NULL DEFAULT 0);
CREATE INDEX messages_file ON messages(file, position);
CREATE INDEX messages_text ON messages(text);
CREATE VIRTUAL TABLE words USING fts5(body, content='', tokenize='{WORD_TOKENIZER}');
CREATE VIRTUAL TABLE tool_words USING fts5(body, content='', columnsize=0, tokenize='{WORD_TOKENIZER}');
CREATE VIRTUAL TABLE grams USING fts5(body, content='', tokenize='trigram');
"""


def has_schema(conn: sqlite3.Connection) -> bool:
    """Tell whether the file already holds an index (any version)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone() is not None


def schema_version(conn: sqlite3.Connection) -> str | None:
    """The schema version an existing index was built with."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    return str(row[0]) if row else None


def is_damage(error: sqlite3.DatabaseError) -> bool:
    """Tell a damaged or foreign index file from a query error."""
    text = str(error).lower()
    return any(hint in text for hint in CORRUPT_HINTS) or type(error) is sqlite3.DatabaseError
