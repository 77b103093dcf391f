r"""Provides a seeded generator of a fake OpenCode database, for the benchmark's OpenCode listing row.

    python -m smig_devtools.opencode_corpus --db FILE --sessions 2000 [--seed 7]

The tables smig reads (`project`, `session`, `message`, `part`) with the columns and indexes
OpenCode 1.18.33 creates; each session holds user prompts and assistant steps (text, reasoning,
bash tool parts with outputs, step-start/step-finish with tokens) of a long-tailed size, and about
one in ten is a task's sub-session. WAL mode, as OpenCode keeps it. Pure stdlib.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from smig_tui.core.errors import WriteRefusedError

BASE_MS = 1_795_600_000_000
SCHEMA = """
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, icon_url text,
  icon_url_override text, icon_color text, time_created integer NOT NULL, time_updated integer NOT NULL,
  time_initialized integer, sandboxes text NOT NULL, commands text);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text,
  slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL, version text NOT NULL,
  share_url text, summary_additions integer, summary_deletions integer, summary_files integer,
  summary_diffs text, metadata text, cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL,
  tokens_output integer DEFAULT 0 NOT NULL, tokens_reasoning integer DEFAULT 0 NOT NULL,
  tokens_cache_read integer DEFAULT 0 NOT NULL, tokens_cache_write integer DEFAULT 0 NOT NULL, revert text,
  permission text, agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL,
  time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_parent_idx ON session (parent_id);
"""
_WORDS = (
    "parser",
    "tokens",
    "window",
    "migrate",
    "session",
    "refactor",
    "test",
    "cache",
    "index",
    "query",
    "module",
    "error",
    "config",
    "schema",
    "listing",
    "résumé",
    "日本語",
    "build",
    "deploy",
    "lint",
)


def _id(prefix: str, number: int) -> str:
    """A unique, time-ordered id in OpenCode's shape."""
    return f"{prefix}_{number:012x}{'bench' + str(number).zfill(9)}"


def _prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def new_database(database: Path | str) -> sqlite3.Connection:
    """A new database in OpenCode's schema with its one global project, open for writing."""
    connection = sqlite3.connect(database)
    connection.executescript(SCHEMA)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute(
        "INSERT INTO project VALUES ('global', '/', NULL, NULL, NULL, NULL, NULL, ?, ?, NULL, '[]', NULL)",
        (BASE_MS, BASE_MS),
    )
    return connection


def turn(
    rng: random.Random,
    session_id: str,
    counter: int,
    moment: int,
    *,
    steps: tuple[int, int] = (1, 4),
    cache_read: bool = True,
    output_words: tuple[int, int] = (20, 400),
    command: str = "ls -la",
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], int, int]:
    """One prompt and the steps answering it (reasoning, text, a bash call and its output), as OpenCode's
    message and part rows; returns them with the id counter and the clock moved on."""
    model = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}
    counter += 1
    user = _id("msg", counter)
    moment += rng.randrange(1000, 60_000)
    messages: list[tuple[Any, ...]] = [
        (
            user,
            session_id,
            moment,
            moment,
            json.dumps({"role": "user", "time": {"created": moment}, "agent": "build", "model": model}),
        )
    ]
    counter += 1
    text = json.dumps({"type": "text", "text": _prose(rng, rng.randrange(5, 60))})
    parts: list[tuple[Any, ...]] = [(_id("prt", counter), user, session_id, moment, moment, text)]
    for _step in range(rng.randrange(*steps)):
        counter += 1
        reply = _id("msg", counter)
        moment += rng.randrange(500, 20_000)
        tokens = {
            "input": rng.randrange(1000, 90_000),
            "output": rng.randrange(10, 2000),
            "reasoning": 0,
            "cache": {"read": rng.randrange(0, 50_000) if cache_read else 0, "write": 0},
        }
        answer = {
            "role": "assistant",
            "parentID": user,
            "modelID": model["modelID"],
            "providerID": model["providerID"],
            "tokens": tokens,
            "time": {"created": moment},
            "finish": "stop",
        }
        messages.append((reply, session_id, moment, moment, json.dumps(answer)))
        step = [
            {"type": "step-start"},
            {"type": "reasoning", "text": _prose(rng, 30)},
            {"type": "text", "text": _prose(rng, rng.randrange(10, 120))},
            {
                "type": "tool",
                "tool": "bash",
                "callID": f"toolu_{counter}",
                "state": {
                    "status": "completed",
                    "input": {"command": command},
                    "output": _prose(rng, rng.randrange(*output_words)),
                },
            },
            {"type": "step-finish", "reason": "stop", "tokens": tokens},
        ]
        for part in step:
            counter += 1
            parts.append((_id("prt", counter), reply, session_id, moment, moment, json.dumps(part)))
    return messages, parts, counter, moment


def generate(database: Path, sessions: int, seed: int = 7) -> int:
    """Write the database (refusing to replace anything) and return the number of parts written."""
    if database.exists():
        raise WriteRefusedError(f"Refusing to overwrite existing file {database}.")
    database.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    connection = new_database(database)
    counter = 0
    parts = 0
    parents: list[str] = []
    with connection:
        for number in range(sessions):
            created = BASE_MS - rng.randrange(120 * 86_400_000)
            session_id = _id("ses", 0xFFFFFFFFFFFF - created)
            parent = rng.choice(parents) if parents and rng.random() < 0.1 else None
            folder = f"/home/user/{rng.choice(('smig', 'api', 'web', 'infra', 'docs'))}"
            turns = max(1, int(rng.paretovariate(1.5) * 3))
            rows_message, rows_part = [], []
            moment = created
            for _ in range(turns):
                messages, rows, counter, moment = turn(rng, session_id, counter, moment)
                rows_message += messages
                rows_part += rows
            connection.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", rows_message)
            connection.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", rows_part)
            parts += len(rows_part)
            connection.execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, model, time_created, "
                "time_updated) VALUES (?, 'global', ?, ?, ?, ?, '1.18.33', ?, ?, ?)",
                (
                    session_id,
                    parent,
                    f"bench-{number}",
                    folder,
                    _prose(rng, 5),
                    json.dumps({"id": "claude-sonnet-4-5", "providerID": "anthropic"}),
                    created,
                    moment,
                ),
            )
            if parent is None:
                parents.append(session_id)
    connection.close()
    return parts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m smig_devtools.opencode_corpus", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    parts = generate(args.db, args.sessions, args.seed)
    print(f"wrote {args.sessions} sessions ({parts} parts) to {args.db}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
