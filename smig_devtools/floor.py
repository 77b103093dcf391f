"""Provides the benchmark's parse floor: the least a reader of a session file must do, read it and
parse every record, with orjson (a dependency of smig) and the standard library where it is missing.

    python -m smig_devtools.floor PATH

A JSON-lines file is parsed line by line, a `.json` document whole, an OpenCode or Kilo Code database
(`<file.db>#ses_<id>`) by its session's message and part rows, a Crush database (`<crush.db>#<id>`) by its
session's messages' `parts`, and an Aider history (Markdown, no JSON) split into lines. Prints the records
parsed. Each benchmark row of a command on a session is also given as a multiple of this process's CPU time.
"""

from __future__ import annotations

import importlib
import json
import sqlite3
import sys
from collections.abc import Callable
from typing import Any

try:
    loads: Callable[[bytes | str], Any] = importlib.import_module("orjson").loads  # a fast C parser's floor
    PARSER = "orjson"
except ImportError:  # without the dev extra
    loads = json.loads
    PARSER = "json"


def parse_file(path: str) -> int:
    """Parse every record of the session at `path`; return how many."""
    database, sep, session = path.rpartition("#")
    if sep and session.startswith("ses_"):
        return _parse_database(database, session)
    if sep:
        return _parse_database(database, session, (("messages", "parts"),))
    if path.endswith(".md"):
        with open(path, encoding="utf-8", errors="replace") as handle:
            return len(handle.read().splitlines())
    if path.endswith(".json"):
        with open(path, "rb") as handle:
            loads(handle.read())
        return 1
    records = 0
    with open(path, "rb") as handle:
        for line in handle:
            if line.strip():
                try:
                    loads(line)
                except ValueError:
                    continue
                records += 1
    return records


OPENCODE_ROWS = (("message", "data"), ("part", "data"))
"""The tables and JSON columns of an OpenCode (or Kilo Code) session."""


def _parse_database(database: str, session: str, columns: tuple[tuple[str, str], ...] = OPENCODE_ROWS) -> int:
    """Parse the JSON of each of the session's rows in these tables' columns."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    records = 0
    try:
        for table, column in columns:
            query = f"SELECT {column} FROM {table} WHERE session_id = ?"
            for (data,) in connection.execute(query, (session,)):
                loads(data)
                records += 1
    finally:
        connection.close()
    return records


if __name__ == "__main__":
    print(f'{{"records": {parse_file(sys.argv[1])}, "parser": "{PARSER}"}}')
