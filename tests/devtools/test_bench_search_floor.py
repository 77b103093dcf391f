"""The benchmark's FTS5 floor is given the texts the index holds: one per message, and each distinct
text once; its row reads the builds' CPU as a multiple of the floors' (two of each, measured in turn)."""

from __future__ import annotations

from pathlib import Path

import pytest

from smig_devtools.bench_search import _floor_row, measure_floor
from smig_tui.services import build_services


def test_the_floor_takes_every_message_text_the_index_holds(
    fake_home: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = build_services()
    report = services.refresh_search_index()
    conn = services.search_index._connection()
    messages, text = conn.execute(
        "SELECT count(*), sum(t.length) FROM messages m JOIN texts t ON t.id = m.text"
    ).fetchone()
    distinct, distinct_text = conn.execute("SELECT count(*), sum(length) FROM texts").fetchone()
    services.search_index.close()
    floor = measure_floor(services.search_index.folder, tmp_path / "scratch")
    assert (floor["rows"], floor["text"]) == (messages, text) == (report.messages, text) and messages > 50
    assert (floor["distinct"], floor["distinct_text"]) == (distinct, distinct_text) and distinct < messages
    assert floor["cpu"] > 0 and floor["distinct_cpu"] > 0
    assert not list((tmp_path / "scratch").iterdir())  # its scratch databases are gone
    assert services.search("the", refresh=False)  # the index is as it was

    row = _floor_row([{"cpu": 3.0}, {"cpu": 2.4}], [{**floor, "cpu": 2.0}, {**floor, "cpu": 1.6}])
    assert (row.value, row.ok, row.floor) == (1.5, True, 1.5)  # the sums' ratio: 5.4 s over 3.6 s
    assert f"each of the {messages:,} messages' texts" in row.note
    assert "build CPU 3.0 and 2.4 s" in row.note and "floor CPU 2.0 and 1.6 s" in row.note
    assert not _floor_row([{"cpu": 3.1}, {"cpu": 2.4}], [{**floor, "cpu": 2.0}, {**floor, "cpu": 1.6}]).ok
