"""OpenCode listing on a generated database: counts match a full read, and the count cache follows updates."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from smig_devtools.opencode_corpus import generate
from smig_tui.adapters.agents.opencode.home import OpenCodeHome
from smig_tui.adapters.agents.opencode.source import OpenCodeSource


def test_listed_counts_match_a_full_read_and_follow_updates(tmp_path: Path) -> None:
    database = tmp_path / "opencode.db"
    generate(database, 40, seed=3)
    cache = tmp_path / "cache" / "listing-opencode.json"
    source = OpenCodeSource(OpenCodeHome(tmp_path, database), listing_cache=cache)
    listed = list(source.discover(lambda _: None))
    assert len(listed) == 40 and any(info.is_subagent for info in listed)
    for info in listed[:8]:
        assert info.message_count == len(source.load(info, lambda _: None).messages)
    assert len(json.loads(cache.read_text())["counts"]) == 40
    busiest = max(listed, key=lambda info: info.message_count or 0)
    with sqlite3.connect(database) as connection:  # OpenCode adds a reply and bumps the session's time
        message = connection.execute(
            "SELECT id FROM message WHERE session_id = ? ORDER BY id DESC LIMIT 1", (busiest.id,)
        ).fetchone()[0]
        connection.execute(
            "INSERT INTO part VALUES ('prt_zzzzzzzzzzzzzzzzzzzzzzzzzz', ?, ?, 1, 1, ?)",
            (message, busiest.id, json.dumps({"type": "text", "text": "one more"})),
        )
        connection.execute("UPDATE session SET time_updated = time_updated + 1 WHERE id = ?", (busiest.id,))
    again = {info.id: info for info in source.discover(lambda _: None)}
    assert again[busiest.id].message_count == (busiest.message_count or 0) + 1
    assert [info.message_count for info in again.values() if info.id != busiest.id] == [
        info.message_count for info in listed if info.id != busiest.id
    ]
