"""Builds OpenCode homes for tests from the recorded real session (tests/fixtures/opencode/).

`opencode.sql` is the dump of the database OpenCode 1.18.33 wrote for two turns against the fake
model server (TOOLS-A: three bash calls, one with output OpenCode truncated; then UNICODE-REPLY);
`resume_request.json` holds the messages OpenCode sent the model when resuming it for the second turn.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "opencode"
SESSION_ID = "ses_dc3e7207effeBgRW7J0E6ofE2n"
RECORDED_CWD = "/tmp/oc.KpgK/work"


def install_database(data_dir: Path, wal: bool = True) -> Path:
    """Restore the recorded database as `data_dir/opencode.db` (WAL, as OpenCode keeps it)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    database = data_dir / "opencode.db"
    connection = sqlite3.connect(database)
    connection.executescript((FIXTURES / "opencode.sql").read_text(encoding="utf-8"))
    if wal:
        connection.execute("PRAGMA journal_mode=WAL")
    connection.commit()
    connection.close()
    return database


def recorded_request() -> list[dict[str, Any]]:
    """The Anthropic `messages` OpenCode sent when it resumed the recorded session."""
    return json.loads((FIXTURES / "resume_request.json").read_text(encoding="utf-8"))["messages"]


def add_child_session(database: Path, child_id: str, parent_id: str = SESSION_ID) -> None:
    """Copy the recorded session as a sub-session (a task's child: `parent_id` set)."""
    connection = sqlite3.connect(database)
    with connection:
        connection.execute(
            "INSERT INTO session SELECT ?1, project_id, workspace_id, ?2, slug || '-child', directory, path, "
            "'child task', version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, "
            "metadata, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, "
            "revert, permission, agent, model, time_created, time_updated, time_compacting, time_archived "
            "FROM session WHERE id = ?2",
            (child_id, parent_id),
        )
    connection.close()


def request_history(messages: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """An Anthropic request's history as (role, kind, content) in order: texts, tool inputs, tool outputs."""
    out: list[tuple[str, str, Any]] = []
    for message in messages:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            if block["type"] == "text":
                out.append((message["role"], "text", block["text"]))
            elif block["type"] == "tool_use":
                out.append(("assistant", "tool_call", block["input"]))
            elif block["type"] == "tool_result":
                body = block["content"]
                text = body if isinstance(body, str) else "".join(b.get("text", "") for b in body)
                out.append(("tool", "tool_result", text))
    return out
