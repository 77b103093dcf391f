"""Provides generated Crush databases for the benchmark: one session per corpus entry, of its size.

Crush keeps each project's sessions in `<project>/.crush/crush.db` and lists the projects it opened in
`projects.json` in its global data folder (docs/formats/crush.md). Each entry's session goes into the
database of the project its `cwd` names, built from the schema smig's Crush tests use
(`tests/fixtures/crush/schema.sql`, Crush's migrations; the real client could not be run here): a
prompt, replies with reasoning, text and a `bash` tool call, `tool` messages with the output, each
message's parts ending in `finish`, times in seconds; each session also has the title-generation
sub-session Crush makes (`title-<id>`, listed as a sub-agent). WAL mode, as Crush keeps it.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

from smig_devtools.corpus import SessionEntry
from smig_devtools.home_corpus import MIN_SIZE, Text, mark, reusable

VERSION = 1
SCHEMA = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "crush" / "schema.sql"
BASE = 1_795_600_000
MODEL = "gpt-5.5"


def generate_crush(global_data: Path, entries: list[SessionEntry], seed: int = 7) -> int:
    """Write each entry's session into `<cwd>/.crush/crush.db` and `projects.json` into `global_data`
    (its own folder); return how many sessions (reused when made alike; a database it did not write is
    never replaced)."""
    wanted = {"version": VERSION, "seed": seed, "sessions": [[e.cwd, e.size] for e in entries]}
    if reusable(global_data, wanted):
        return len(entries)
    by_project: dict[str, list[tuple[int, SessionEntry]]] = {}
    for number, entry in enumerate(entries):
        by_project.setdefault(entry.cwd, []).append((number, entry))
    databases = [Path(cwd) / ".crush" / "crush.db" for cwd in by_project]
    taken = [str(database) for database in databases if database.exists()]
    if taken:
        raise ValueError(f"{taken[0]} exists and was not made by the corpus generator; refusing to replace it.")
    text = Text(random.Random(seed))
    for database, sessions in zip(databases, by_project.values(), strict=True):
        _write_database(database, sessions, text)
    listing = [
        {"path": cwd, "data_dir": str(Path(cwd) / ".crush"), "last_accessed": "2026-11-30T10:00:00Z"}
        for cwd in by_project
    ]
    (global_data / "projects.json").write_text(json.dumps({"projects": listing}, indent=2), encoding="utf-8")
    mark(global_data, wanted, outside=databases)
    return len(entries)


def _write_database(database: Path, sessions: list[tuple[int, SessionEntry]], text: Text) -> None:
    """One project's `crush.db` with these sessions."""
    database.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(database)
    connection.executescript(SCHEMA.read_text(encoding="utf-8"))
    # Crush's trigger sets updated_at to the wall clock on every update: laid aside while fixed times are written.
    (touch,) = connection.execute("SELECT sql FROM sqlite_master WHERE name = 'update_sessions_updated_at'").fetchone()
    connection.execute("DROP TRIGGER update_sessions_updated_at")
    with connection:
        for number, entry in sessions:
            session_id = text.uuid4()
            start = BASE + number * 3_600
            prompt = entry.prompt or f"Task {number}"
            rows, last_prompt = _messages(prompt, max(entry.size, MIN_SIZE), start, text)
            title = prompt.splitlines()[0][:60] if prompt.strip() else f"Task {number}"
            _insert(connection, session_id, None, title, rows, last_prompt)
            title_rows = [
                (text.uuid4(), "user", [_text(f"Generate a title for: {prompt[:200]}"), _finish("stop", start)], start),
                (text.uuid4(), "assistant", [_text(title), _finish("end_turn", start + 1)], start + 1),
            ]
            _insert(connection, f"title-{session_id}", session_id, "Generate a title", title_rows, 300)
    connection.execute(touch)
    connection.commit()
    connection.execute("PRAGMA journal_mode=WAL")
    connection.close()


Message = tuple[str, str, list[dict[str, Any]], int]
"""(id, role, parts, created_at)."""


def _messages(prompt: str, size: int, start: int, text: Text) -> tuple[list[Message], int]:
    """A session's messages of about `size` bytes of parts, and the last call's prompt tokens."""
    rows: list[Message] = [(text.uuid4(), "user", [_text(prompt), _finish("stop", start)], start)]
    written, turn, moment = len(prompt), 0, start
    while written < size:
        turn += 1
        moment += 2
        call_id = f"call_{turn:024d}"
        call = _part(
            "tool_call",
            id=call_id,
            name="bash",
            input=json.dumps({"command": f"step {turn}"}),
            provider_executed=False,
            finished=True,
        )
        reasoning = _part("reasoning", thinking=f"Run step {turn}.", signature="")
        reply = [reasoning, _text(f"Step {turn}."), call, _finish("tool_use", moment)]
        output = text.cut(text.turn_length(size, written))
        result = _part(
            "tool_result",
            tool_call_id=call_id,
            name="bash",
            content=output,
            data="",
            mime_type="",
            metadata="",
            is_error=False,
        )
        rows.append((text.uuid4(), "assistant", reply, moment))
        rows.append((text.uuid4(), "tool", [result, _finish("stop", moment + 1)], moment + 1))
        written += len(json.dumps(reply)) + len(output) + 200
    rows.append((text.uuid4(), "assistant", [_text("Done."), _finish("end_turn", moment + 2)], moment + 2))
    return rows, 1000 * (turn + 1)


def _insert(
    connection: sqlite3.Connection, session_id: str, parent: str | None, title: str, rows: list[Message], prompt: int
) -> None:
    updated = rows[-1][3] if rows else BASE
    connection.execute(
        "INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES (?, ?, ?, ?, ?)",
        (session_id, parent, title, updated, rows[0][3] if rows else BASE),
    )
    connection.executemany(
        "INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at, "
        "is_summary_message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)",
        [
            (
                message_id,
                session_id,
                role,
                json.dumps(parts),
                MODEL if role == "assistant" else "",
                "openai-compat" if role == "assistant" else None,
                created,
                created,
            )
            for message_id, role, parts, created in rows
        ],
    )
    connection.execute(
        "UPDATE sessions SET prompt_tokens = ?, completion_tokens = 40, updated_at = ? WHERE id = ?",
        (prompt, updated, session_id),
    )


def _part(kind: str, **data: Any) -> dict[str, Any]:
    """One `{"type", "data"}` part as Crush's `marshalParts` writes it."""
    return {"type": kind, "data": data}


def _text(value: str) -> dict[str, Any]:
    return _part("text", text=value)


def _finish(reason: str, at: int) -> dict[str, Any]:
    return _part("finish", reason=reason, time=at)
