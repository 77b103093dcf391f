"""Tests for the benchmark's table and corpus reuse (the measurements themselves are not unit tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from smig_devtools.bench import Row, ensure_corpus, render, render_markdown
from smig_devtools.corpus import KB, MB


def test_rows_say_pass_miss_or_why_not_measured() -> None:
    rows = [
        Row("smig list, warm", 0.2512, "s", "< 0.3 s", True),
        Row("open + plan", 23.75, "s", "< 10 s", False, "CPU 9.6 s"),
        Row("TUI first paint", None, "s", "< 1 s", None, "TUI not importable"),
    ]
    lines = render(rows).splitlines()
    assert lines[0].split()[:4] == ["measure", "value", "goal", "result"]
    assert "0.251 s" in lines[2] and lines[2].split()[-1] == "PASS"
    assert "23.8 s" in lines[3] and "MISS" in lines[3] and lines[3].endswith("CPU 9.6 s")
    assert "not available" in lines[4] and "n/a" in lines[4] and lines[4].endswith("TUI not importable")
    assert lines[0].index("goal") == lines[2].index("< 0.3 s") == lines[3].index("< 10 s")


def test_the_markdown_table_has_a_row_per_measure_and_escapes_pipes() -> None:
    rows = [
        Row("smig list, warm", 0.2512, "s", "< 0.3 s", True),
        Row("a | b", None, "s", "< 1 s", None, "x|y"),
        Row("smig show, 500 MB", 7.25, "s", "<= 400 MB", False, "CPU 5 s", 2.54),
        Row("parse floor", 1.2, "s", "(reference)", None, "", 1.0),
    ]
    lines = render_markdown(rows).splitlines()
    assert lines[:2] == ["| measure | value | goal | result | CPU / floor | notes |", "|---|---|---|---|---|---|"]
    assert lines[2] == "| smig list, warm | 0.251 s | < 0.3 s | PASS |  |  |"
    assert lines[3] == "| a \\| b | not available | < 1 s | n/a |  | x\\|y |"
    assert lines[4] == "| smig show, 500 MB | 7.250 s | <= 400 MB | MISS | 2.5x | CPU 5 s |"
    assert lines[5] == "| parse floor | 1.200 s | (reference) |  | 1.0x |  |"


def test_a_corpus_is_reused_only_with_the_same_parameters(tmp_path: Path) -> None:
    said: list[str] = []
    params = {"sessions": 6, "total_bytes": 200 * KB, "huge": 0, "huge_bytes": MB, "seed": 1}
    first = ensure_corpus(tmp_path, params, said.append)
    again = ensure_corpus(tmp_path, params, said.append)
    assert [e.path for e in again.sessions] == [e.path for e in first.sessions]
    assert said[-1].startswith("reusing")
    other = ensure_corpus(tmp_path, {**params, "seed": 2}, said.append)
    assert said[-2].startswith("generating") and other.params["seed"] == 2


def test_a_peer_runs_on_the_same_corpus_where_installed_and_is_skipped_where_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The peer row runs the installed peer (here a stand-in script that notes where it looked) and
    smig on the same corpus; without the peer the row says so and counts as neither pass nor miss."""
    from smig_devtools import bench_commands

    params = {"sessions": 6, "total_bytes": 200 * KB, "huge": 0, "huge_bytes": MB, "seed": 1}
    manifest = ensure_corpus(tmp_path / "work", params, lambda _: None)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.delenv(bench_commands.PEERS_ENV, raising=False)
    [skipped] = bench_commands.peer_rows(tmp_path / "work", manifest)
    assert skipped.value is None and skipped.ok is None and "not installed" in skipped.note
    peers = tmp_path / "bin"
    peers.mkdir()
    seen = tmp_path / "seen"
    peer = peers / "ccusage"
    peer.write_text(
        f'#!/bin/sh\n[ "$1" = --version ] && echo 20.0.24 && exit 0\necho "$CLAUDE_CONFIG_DIR $*" > {seen}\n'
    )
    peer.chmod(0o755)
    monkeypatch.setenv(bench_commands.PEERS_ENV, str(peers))
    [row] = bench_commands.peer_rows(tmp_path / "work", manifest)
    assert seen.read_text().split() == [str(tmp_path / "work" / "claude"), "session", "--json", "--offline"]
    assert row.value is not None and row.value > 0 and row.note.startswith("20.0.24: ")
