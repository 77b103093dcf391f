"""A big refresh reads sessions and redacts their texts in worker processes; the index it builds is
the one a refresh that reads and redacts in-process builds, secrets included (redacted the same way)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from search_helpers import message_line, tool_lines, write_rollout

import smig_tui.adapters.search_reading as search_reading
from smig_tui.core.redact import Redaction
from smig_tui.services import Services, build_services

SECRET = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"


def stored(services: Services) -> list[tuple[object, ...]]:
    """Every message as indexed, with its stored (redacted) text."""
    index = services.search_index
    conn = index._connection()
    rows = conn.execute(
        "SELECT f.session_id, m.position, m.message_id, m.tier, t.block, t.start, t.length"
        " FROM messages m JOIN texts t ON t.id = m.text JOIN files f ON f.id = m.file ORDER BY f.session_id, m.position"
    ).fetchall()
    return [(*row[:4], index._text(conn, *row[4:])) for row in rows]


def built(home: Path, monkeypatch: pytest.MonkeyPatch, parallel: bool) -> Services:
    monkeypatch.setenv("SMIG_TUI_HOME", str(home))
    services = build_services()
    services.search_index.parallel = parallel
    services.refresh_search_index()
    return services


def test_a_worker_redacts_as_this_process_would(
    fake_home: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_rollout(
        fake_home["codex"],
        [("user", f"use OPENAI_API_KEY={SECRET} for the osprey run")],
        session_id="01a30000-0000-7000-8000-00000000b002",
    )
    with path.open("a", encoding="utf-8") as handle:
        handle.write(tool_lines("env | grep KEY", f"OPENAI_API_KEY={SECRET}\n" + "osprey log line\n" * 40000, "call_1"))
        handle.write(message_line("assistant", "osprey " * 10))
    redacted_here: list[str] = []
    in_process = search_reading.redact_many

    def watched(texts: Sequence[str]) -> list[Redaction]:
        redacted_here.extend(texts)
        return in_process(texts)

    monkeypatch.setattr(search_reading, "redact_many", watched)
    here = stored(built(tmp_path / "here", monkeypatch, parallel=False))
    assert any("osprey log line" in text for text in redacted_here)
    redacted_here.clear()
    worker = built(tmp_path / "worker", monkeypatch, parallel=True)
    assert not any("osprey log line" in text for text in redacted_here)  # the worker did it
    assert stored(worker) == here and len(here) > 20
    assert not any(SECRET in row[4] for row in here)
    assert sum("[REDACTED:" in row[4] for row in here) == 2
    assert len(worker.search("osprey")) == 3


def test_a_grown_session_goes_through_the_worker_too(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "first words")])
    services = built(tmp_path / "worker", monkeypatch, parallel=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(message_line("assistant", f"token={SECRET} kestrel"))
    report = services.refresh_search_index()
    assert (report.grown, report.messages) == (1, 1)
    assert [hit.snippet for hit in services.search("kestrel")] == ["token=[REDACTED:openai-key] kestrel"]
    with sqlite3.connect(services.search_index.db_path) as conn:
        assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 2


def test_each_worker_unpickles_a_source_once_and_a_source_that_cannot_go_is_read_here(
    fake_home: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = stored(built(tmp_path / "here", monkeypatch, parallel=False))
    redacted_here: list[str] = []
    in_process = search_reading.redact_many
    monkeypatch.setattr(search_reading, "redact_many", lambda texts: redacted_here.extend(texts) or in_process(texts))
    monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / "unsendable"))
    services = build_services()
    services.search_index.parallel = True
    for source in services.sources:
        source.unsendable = lambda: None  # type: ignore[attr-defined]  # a lambda does not pickle
    services.refresh_search_index()
    assert stored(services) == here and len(here) > 10
    assert len(redacted_here) >= len({row[4] for row in here})  # read and redacted in this process

    source = build_services().sources[0]
    blob = search_reading._pickled(source)
    assert blob is not None
    monkeypatch.setattr(search_reading, "_sources", {})
    first, second = (
        search_reading.read_in_worker(blob, info, None).rows for info in list(source.discover(lambda _: None))[:2]
    )
    assert first and second and list(search_reading._sources) == [blob]
