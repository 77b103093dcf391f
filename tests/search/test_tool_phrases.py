"""Tool traffic sits in its own word table, with positions since each distinct text is indexed once:
phrases found there are as exact as in the conversation table."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from search.search_helpers import tool_lines, write_rollout

from smig_tui.services import build_services


def test_phrases_in_tool_output_match_only_words_in_order(isolated_homes: dict[str, Path]) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "run the checks")])
    with path.open("a", encoding="utf-8") as handle:
        handle.write(tool_lines("pytest", "parser the cache: words out of order", "call_1"))
        handle.write(tool_lines("pytest", "FAILED: The_Parser-cache was stale", "call_2"))
        handle.write(tool_lines("grep", "Résumé parsers: 2 files", "call_3"))
    services = build_services()
    services.refresh_search_index()
    index = sqlite3.connect(services.search_index.db_path)
    count = "SELECT count(*) FROM {0} WHERE {0} MATCH 'stale'"
    assert [index.execute(count.format(table)).fetchone()[0] for table in ("words", "tool_words")] == [0, 1]

    found = services.search('"the parser cache"')
    assert [(hit.kind, "stale" in hit.snippet) for hit in found] == [("tool_result", True)]
    assert services.search('"parser the"')[0].snippet.startswith("parser the")
    assert len(services.search('"resume pars"*')) == 1  # accents folded, prefix on the last word
    assert services.search('"resume parsers files"') == []  # a word between: not the phrase
    assert len(services.search("parser cache")) == 2  # plain words need no order


def test_paging_runs_from_conversation_into_tool_output(isolated_homes: dict[str, Path]) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "the kestrel plan"), ("assistant", "kestrel plan made")])
    with path.open("a", encoding="utf-8") as handle:
        for n in range(3):
            handle.write(tool_lines("cat", f"kestrel plan step {n}", f"call_{n}"))
    services = build_services()
    every = services.search('"kestrel plan"', limit=10)
    assert [hit.kind for hit in every] == ["text", "text", "tool_result", "tool_result", "tool_result"]
    pages = [services.search('"kestrel plan"', limit=2, offset=start) for start in (0, 2, 4)]
    assert [hit.message_id for page in pages for hit in page] == [hit.message_id for hit in every]
