"""The first build of the index writes many sessions per transaction; it must hold what an index grown
one session at a time holds (the same messages, texts, references and hits), and a build stopped
half-way keeps what it committed, the next refresh indexing the rest."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

import smig_tui.adapters.search_index as search_index
import smig_tui.adapters.search_writing as search_writing
from smig_tui.adapters.search_schema import SCHEMA
from smig_tui.services import Services, build_services

LINEAGE = Path(__file__).parents[1] / "fixtures" / "real" / "codex" / "fork_lineage"
QUERIES = ("the", "file", "error", "test*", '"of the"', "seq", "go")


def _install(homes: dict[str, Path]) -> list[tuple[Path, Path]]:
    """The checked-in Codex and Claude Code homes and the real Codex fork lineage, as (file, where
    it goes) pairs, oldest first."""
    pairs = []
    for tree, home in (
        (Path(__file__).parents[1] / "fixtures" / "codex_home", homes["codex"]),
        (Path(__file__).parents[1] / "fixtures" / "claude_home", homes["claude"]),
        (LINEAGE / "codex_home", homes["codex"]),
    ):
        pairs += [(file, home / file.relative_to(tree)) for file in sorted(tree.rglob("*")) if file.is_file()]
    mtimes = json.loads((LINEAGE / "expected.json").read_text(encoding="utf-8"))["mtimes"]
    times = {homes["codex"] / rel: mtime for rel, mtime in mtimes.items()}
    return sorted(pairs, key=lambda pair: times.get(pair[1], pair[0].stat().st_mtime))


def _copy(file: Path, target: Path, homes: dict[str, Path]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(file, target)
    mtimes = json.loads((LINEAGE / "expected.json").read_text(encoding="utf-8"))["mtimes"]
    for rel, mtime in mtimes.items():
        if homes["codex"] / rel == target:
            os.utime(target, (mtime, mtime))


def _index(services: Services) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Every message as indexed with its stored text and that text's references; every query's hits."""
    index = services.search_index
    conn = index._connection()
    rows = conn.execute(
        "SELECT f.session_id, f.path, m.position, m.message_id, m.role, m.kind, m.tier, m.timestamp, m.compacted,"
        " t.refs, t.tool, t.grams, t.block, t.start, t.length"
        " FROM messages m JOIN texts t ON t.id = m.text JOIN files f ON f.id = m.file"
    ).fetchall()
    stored = sorted((*row[:12], index._text(conn, *row[12:])) for row in rows)
    hits = [
        (query, hit.session_id, hit.message_id, hit.snippet, hit.spans)
        for query in QUERIES
        for hit in services.search(query, limit=1000, refresh=False)
    ]
    return stored, sorted(hits)


@pytest.mark.parametrize("parallel", [False, True])
def test_a_first_build_holds_what_an_index_grown_a_session_at_a_time_holds(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parallel: bool
) -> None:
    pairs = _install(isolated_homes)
    monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / "grown"))
    grown = build_services()
    for file, target in pairs:
        _copy(file, target, isolated_homes)
        grown.refresh_search_index()
    monkeypatch.setattr(search_index, "OPTIMIZE_AFTER", 1)  # a bulk build, as of 50 sessions or more
    monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / "built"))
    built = build_services()
    built.search_index.parallel = parallel
    report = built.refresh_search_index()
    assert report.added == len({row[1] for row in _index(built)[0]}) >= 10
    stored, hits = _index(built)
    assert (stored, hits) == _index(grown)
    assert len(stored) > 100 and len(hits) > 20
    assert _merging(built) == [4, 4, 4]  # FTS5 merges as it writes again after the build


def _merging(services: Services) -> list[int]:
    """Each FTS table's `automerge` setting (FTS5's default, 4, when never set), once each table is
    known to keep terms in memory as FTS5 does by default (1 MB) again and to merge a level of 16
    segments at once (its `crisismerge`)."""
    conn = services.search_index._connection()
    for table in search_writing.FTS_TABLES:
        assert next(iter(conn.execute(f"SELECT v FROM {table}_config WHERE k = 'hashsize'")), (1 << 20,)) == (1 << 20,)
        assert next(iter(conn.execute(f"SELECT v FROM {table}_config WHERE k = 'crisismerge'")), (16,)) == (16,)
    return [
        next(iter(conn.execute(f"SELECT v FROM {table}_config WHERE k = 'automerge'")), (4,))[0]
        for table in search_writing.FTS_TABLES
    ]


def test_a_build_stopped_half_way_keeps_what_it_committed(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for file, target in _install(isolated_homes):
        _copy(file, target, isolated_homes)
    monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / "whole"))
    whole = build_services()
    whole.refresh_search_index()
    monkeypatch.setattr(search_writing, "COMMIT_BYTES", 1)  # a commit after each session
    monkeypatch.setattr(search_index, "OPTIMIZE_AFTER", 1)  # and no merging while it writes

    def stop_at_the_fourth(done: int, _total: int) -> None:
        if done == 3:
            raise KeyboardInterrupt

    monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / "stopped"))
    stopped = build_services()
    with pytest.raises(KeyboardInterrupt):
        stopped.search_index.refresh(stopped.sources, lambda _: None, stop_at_the_fourth)
    stopped.search_index.close()
    assert stopped.search_index.stats()["sessions"] == 3
    assert _merging(stopped) == [4, 4, 4]
    report = stopped.refresh_search_index()
    assert report.added == len({row[1] for row in _index(whole)[0]}) - 3
    assert _index(stopped) == _index(whole)


def test_a_bulk_refresh_leaves_every_segment_to_the_closing_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    """FTS5 merges a level of 16 segments at once (`crisismerge`) even with `automerge` off, and the
    build's closing `optimize` merged the result again: a bulk refresh writes 20 segments unmerged."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript(SCHEMA)
    monkeypatch.setattr(search_writing, "COMMIT_BYTES", 1)  # each commit writes the pending terms as a segment
    segments = []
    with search_writing.batched(conn, bulk=True) as written:
        for number in range(20):
            conn.execute("INSERT INTO tool_words(rowid, body) VALUES (?, ?)", (number + 1, f"output number{number}"))
            written(1)
            segments.append(conn.execute("SELECT count(DISTINCT segid) FROM tool_words_idx").fetchone()[0])
    assert segments == list(range(1, 21))
    hits = conn.execute("SELECT rowid FROM tool_words WHERE tool_words MATCH 'output' ORDER BY rowid").fetchall()
    assert hits == [(number,) for number in range(1, 21)]
