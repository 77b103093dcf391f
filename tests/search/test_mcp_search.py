"""MCP `search_sessions` through the server's tool runner: ranked, redacted, paged, clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from search_helpers import write_rollout

from smig_tui.mcp.server import SmigToolRunner
from smig_tui.services import build_services


def call(runner: SmigToolRunner, **arguments: Any) -> dict[str, Any]:
    reply = runner("search_sessions", arguments)
    assert reply["isError"] is False, reply["content"][0]["text"]
    return dict(reply["structuredContent"])


def test_search_sessions_returns_marked_redacted_snippets(isolated_homes: dict[str, Path]) -> None:
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    write_rollout(
        isolated_homes["codex"], [("user", f"the kestrel deploy token is {key}"), ("assistant", "kestrel deployed")]
    )
    runner = SmigToolRunner(build_services())
    result = call(runner, query="kestrel")
    assert result["total"] == 2 and result["next_offset"] is None
    assert all("«kestrel»" in hit["marked"] and "«" not in hit["snippet"] for hit in result["hits"])
    assert key not in json.dumps(result) and "[REDACTED:github-token]" in json.dumps(result)
    assert call(runner, query="kestrel", role="assistant")["total"] == 1
    assert call(runner, query="kestrel", agent="claude")["total"] == 0


def test_search_sessions_pages_by_characters(isolated_homes: dict[str, Path]) -> None:
    turns = [("user", f"albatross note number {i} " + "padding words " * 60) for i in range(30)]
    write_rollout(isolated_homes["codex"], turns)
    runner = SmigToolRunner(build_services())
    first = call(runner, query="albatross", limit=30, max_chars=2000)
    assert 0 < len(first["hits"]) < 30 and first["next_offset"] == len(first["hits"])
    second = call(runner, query="albatross", limit=30, max_chars=2000, offset=first["next_offset"])
    assert second["hits"][0]["message_id"] not in {hit["message_id"] for hit in first["hits"]}


def test_search_sessions_errors_are_one_sentence(isolated_homes: dict[str, Path]) -> None:
    runner = SmigToolRunner(build_services())
    for arguments in (
        {"query": '"open'},
        {"query": "x", "since": "someday"},
        {"query": "x" * 501},
        {"query": "x", "limit": 0},
    ):
        reply = runner("search_sessions", arguments)
        assert reply["isError"] is True
        text = reply["content"][0]["text"]
        assert text.startswith("search_sessions") and "\n" not in text
