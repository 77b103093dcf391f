"""Each distinct text is stored, redacted and indexed once, however many messages hold it; a query
ranks the most recent conversation matches by bm25 and walks tool traffic newest first."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from search.search_helpers import tool_lines, write_rollout
from search_helpers import install_lineage

import smig_tui.adapters.search_index as search_index
import smig_tui.adapters.search_reading as search_reading
from smig_tui.core.redact import Redaction
from smig_tui.services import build_services

SECRET = "sk-proj-" + "Zx3dEf6hIj9kLm2nOp5qRs8tUv1wXy4q"


def counts(db: Path, *tables: str) -> list[int]:
    with sqlite3.connect(db) as conn:
        return [conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in tables]


def test_a_forks_inherited_turns_are_redacted_and_indexed_once(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    install_lineage(isolated_homes["codex"])  # real Codex 0.171.0: a parent, its fork, the fork's fork
    redacted: list[str] = []
    real = search_reading.redact_many

    def counting(texts: Sequence[str]) -> list[Redaction]:
        redacted.extend(texts)
        return real(texts)

    monkeypatch.setattr(search_reading, "redact_many", counting)
    services = build_services()
    services.search_index.parallel = False
    services.refresh_search_index()
    messages, texts = counts(services.search_index.db_path, "messages", "texts")
    assert len(redacted) == len(set(redacted)) == texts < messages  # the inherited turns share their texts
    assert len(services.search('"TOOLS-B"', limit=50)) >= 2


def test_a_text_a_session_repeats_is_hashed_once(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file read three times and a repeated prompt: each distinct text gets one digest (one per word
    table: the same words said and printed by a tool are two texts), yet every message a row."""
    said = "the notes, unchanged"
    path = write_rollout(isolated_homes["codex"], [("user", said), ("user", said)])
    with path.open("a", encoding="utf-8") as handle:
        for n in range(3):
            handle.write(tool_lines("cat notes.txt", said, f"call_{n}"))
    hashed: list[tuple[str, bool]] = []
    real = search_reading.text_digest

    def counting(text: str, tool: bool) -> int:
        hashed.append((text, tool))
        return real(text, tool)

    monkeypatch.setattr(search_reading, "text_digest", counting)
    services = build_services()
    services.search_index.parallel = False
    services.refresh_search_index()
    messages, texts = counts(services.search_index.db_path, "messages", "texts")
    assert len(hashed) == len(set(hashed)) == texts == 3 and messages == 8
    assert (said, False) in hashed and (said, True) in hashed


def test_a_text_two_sessions_hold_leaves_the_index_with_the_last_of_them(isolated_homes: dict[str, Path]) -> None:
    said = f"the osprey key is {SECRET}"
    first = write_rollout(isolated_homes["codex"], [("user", said)], "01a30000-0000-7000-8000-00000000b001")
    second = write_rollout(
        isolated_homes["codex"], [("user", said)], "01a30000-0000-7000-8000-00000000b002", day="2026-12-01"
    )
    services = build_services()
    db = services.search_index.db_path
    hits = services.search("osprey")
    assert sorted(hit.session_id[-4:] for hit in hits) == ["b001", "b002"]
    assert all(SECRET not in hit.snippet and "[REDACTED" in hit.snippet for hit in hits)
    assert counts(db, "messages", "texts") == [2, 1]

    first.unlink()
    assert [hit.session_id[-4:] for hit in services.search("osprey")] == ["b002"]
    assert counts(db, "messages", "texts") == [1, 1]

    second.unlink()
    assert services.search("osprey") == []
    assert counts(db, "messages", "texts", "blocks") == [0, 0, 0]
    with sqlite3.connect(db) as conn:  # the contentless word table forgot the text too
        assert conn.execute("SELECT count(*) FROM words WHERE words MATCH 'osprey'").fetchone()[0] == 0


HERONS = [
    "heron heron heron by the water",  # the best match, but the oldest
    "a heron flew over the long grey lake at dawn while we talked about the parser",
    "one heron here and some other words to make it longer than the rest",
    "heron, said in a long sentence with many words around it so its match counts for less",
    "heron heron twice",
    "heron once",
]


def test_conversation_ranks_its_most_recent_matches_by_bm25_then_lists_older_ones_newest_first(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_rollout(isolated_homes["codex"], [("user", text) for text in HERONS])
    services = build_services()
    everything = [hit.snippet for hit in services.search("heron")]
    assert everything[0] == HERONS[0]  # within the window every match is ranked

    monkeypatch.setattr(search_index, "RANKED_MATCHES", 3)
    windowed = [hit.snippet for hit in services.search("heron")]
    assert windowed == [HERONS[4], HERONS[5], HERONS[3], HERONS[2], HERONS[1], HERONS[0]]
    pages = [services.search("heron", limit=2, offset=start) for start in (0, 2, 4)]
    assert [hit.snippet for page in pages for hit in page] == windowed


def test_tool_output_comes_newest_session_first_after_all_conversation(isolated_homes: dict[str, Path]) -> None:
    sessions = {"c001": "2026-11-28", "c002": "2026-12-02", "c003": "2026-11-30"}
    for tail, day in sessions.items():
        path = write_rollout(
            isolated_homes["codex"], [("user", "run it")], f"01a30000-0000-7000-8000-00000000{tail}", day=day
        )
        with path.open("a", encoding="utf-8") as handle:
            handle.write(tool_lines("make", f"plover built on {day}", f"call_{tail}", f"{day}T10:00:05.000Z"))
    write_rollout(
        isolated_homes["codex"],
        [("assistant", "the plover step")],
        "01a30000-0000-7000-8000-00000000c004",
        day="2026-11-01",
    )
    hits = build_services().search("plover")
    assert [(hit.kind, hit.session_id[-4:]) for hit in hits] == [
        ("text", "c004"),
        ("tool_result", "c002"),
        ("tool_result", "c003"),
        ("tool_result", "c001"),
    ]


def test_injected_context_comes_after_all_tool_output_even_when_newer(isolated_homes: dict[str, Path]) -> None:
    older = write_rollout(isolated_homes["codex"], [("user", "go")], "01a30000-0000-7000-8000-00000000d001")
    with older.open("a", encoding="utf-8") as handle:
        handle.write(tool_lines("make", "grebe built", "call_d1"))
    write_rollout(
        isolated_homes["codex"],
        [("developer", "grebe house rules"), ("user", "start")],
        "01a30000-0000-7000-8000-00000000d002",
        day="2026-12-02",
    )
    services = build_services()
    hits = services.search("grebe")
    assert [(hit.role, hit.session_id[-4:]) for hit in hits] == [("tool", "d001"), ("developer", "d002")]
    assert [hit.role for hit in services.search("grebe", limit=1, offset=1)] == ["developer"]


def test_a_new_session_read_counting_on_a_text_the_index_lacks_is_read_again_and_indexed(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read leaves out the texts it was told are indexed; should one not be (it left with another
    session meanwhile), the session is read again whole, and nothing of the short read was written."""
    write_rollout(isolated_homes["codex"], [("user", "a kestrel over the field"), ("assistant", "kestrel noted")])
    services = build_services()
    services.search_index.parallel = False
    monkeypatch.setattr(search_index, "held_texts", lambda _conn, digests: {digest: 1 for digest in digests})
    report = services.refresh_search_index()
    assert (report.added, report.messages) == (1, 2)
    assert counts(services.search_index.db_path, "files", "messages", "texts") == [1, 2, 2]
    assert sorted(hit.snippet for hit in services.search("kestrel")) == ["a kestrel over the field", "kestrel noted"]
