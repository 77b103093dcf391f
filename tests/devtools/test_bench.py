"""Tests for the benchmark's table and corpus reuse (the measurements themselves are not unit tests)."""

from __future__ import annotations

import os
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
    assert "CPU / peer" not in lines[0]  # no peer ran: no column
    assert "0.251 s" in lines[2] and lines[2].split()[-1] == "PASS"
    assert "23.8 s" in lines[3] and "MISS" in lines[3] and lines[3].endswith("CPU 9.6 s")
    assert "not available" in lines[4] and "n/a" in lines[4] and lines[4].endswith("TUI not importable")
    assert lines[0].index("goal") == lines[2].index("< 0.3 s") == lines[3].index("< 10 s")


def test_the_markdown_table_has_a_row_per_measure_and_escapes_pipes() -> None:
    rows = [
        Row("smig list, warm", 0.2512, "s", "< 0.3 s", True, rss=31.4),
        Row("a | b", None, "s", "< 1 s", None, "x|y"),
        Row("smig show, 500 MB", 7.25, "s", "<= 400 MB", False, "CPU 5 s", 2.54, 280.2),
        Row("parse floor", 1.2, "s", "(reference)", None, "", 1.0, 30),
    ]
    lines = render_markdown(rows).splitlines()
    assert lines[:2] == [
        "| measure | value | goal | result | peak RSS | CPU / floor | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    assert lines[2] == "| smig list, warm | 0.251 s | < 0.3 s | PASS | 31 MB |  |  |"
    assert lines[3] == "| a \\| b | not available | < 1 s | n/a |  |  | x\\|y |"
    assert lines[4] == "| smig show, 500 MB | 7.250 s | <= 400 MB | MISS | 280 MB | 2.5x | CPU 5 s |"
    assert lines[5] == "| parse floor | 1.200 s | (reference) |  | 30 MB | 1.0x |  |"
    with_peer = [
        *rows,
        Row("smig list, empty caches", 0.9, "s", "CPU < 1x ccusage", True, rss=34, peer="0.20x ccusage"),
    ]
    lines = render_markdown(with_peer).splitlines()
    assert lines[0] == "| measure | value | goal | result | peak RSS | CPU / floor | CPU / peer | notes |"
    assert lines[2] == "| smig list, warm | 0.251 s | < 0.3 s | PASS | 31 MB |  |  |  |"
    assert lines[-1] == "| smig list, empty caches | 0.900 s | CPU < 1x ccusage | PASS | 34 MB |  | 0.20x ccusage |  |"


def test_a_row_without_its_own_peak_takes_the_largest_of_the_processes_measured_since_the_last_row() -> None:
    from smig_devtools import bench

    bench.PEAKS[:] = [120.0, 310.5, 99.0]
    assert Row("search index, full build", 3.0, "s", "", True).rss == 310.5
    assert Row("index size", 25.0, "%", "", True).rss is None  # measured by no process of its own
    bench.PEAKS[:] = [500.0]
    assert Row("given", 1.0, "s", "", True, rss=42.0).rss == 42.0 and not bench.PEAKS


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
    skipped = bench_commands.peer_rows(tmp_path / "work", manifest)
    assert [row.measure for row in skipped] == ["peer: ccusage", "peer: aichat"]
    for row in skipped:
        assert row.value is None and row.ok is None and not row.peer
        assert "is not installed (on PATH or in $SMIG_BENCH_PEERS): its column is skipped;" in row.note
    assert "CPU / peer" not in render_markdown(skipped).splitlines()[0]
    peers = tmp_path / "bin"
    peers.mkdir()
    seen = tmp_path / "seen"
    peer = peers / "ccusage"
    peer.write_text(
        f'#!/bin/sh\n[ "$1" = --version ] && echo 20.0.24 && exit 0\necho "$CLAUDE_CONFIG_DIR $*" > {seen}\n'
    )
    peer.chmod(0o755)
    monkeypatch.setenv(bench_commands.PEERS_ENV, str(peers))
    [aichat, row] = bench_commands.peer_rows(tmp_path / "work", manifest)
    assert aichat.measure == "peer: aichat" and aichat.value is None
    assert seen.read_text().split() == [str(tmp_path / "work" / "claude"), "session", "--json", "--offline"]
    assert row.value is not None and row.value > 0 and row.rss is not None and row.rss > 0
    assert row.peer.endswith("x ccusage") and "20.0.24: " in row.note
    assert "| CPU / peer |" in render_markdown([aichat, row]).splitlines()[0]


def test_the_run_s_table_replaces_what_is_between_the_page_s_markers_and_nothing_else(tmp_path: Path) -> None:
    from smig_devtools.bench import TABLE_END, TABLE_START, paste_table

    page = tmp_path / "performance.md"
    page.write_text(f"# Performance\n\nintro\n\n{TABLE_START}\n\nold table\n\n{TABLE_END}\n\n## Later\n")
    paste_table(page, "smig benchmark, 2026-12-05\n\n| measure |")
    assert page.read_text() == (
        f"# Performance\n\nintro\n\n{TABLE_START}\n\nsmig benchmark, 2026-12-05\n\n| measure |\n\n{TABLE_END}\n\n## Later\n"
    )
    page.write_text("# Performance\n")
    with pytest.raises(ValueError, match="no `<!-- benchmark table"):
        paste_table(page, "x")


def test_the_performance_page_has_the_markers_the_run_pastes_between() -> None:
    from smig_devtools.bench import TABLE_END, TABLE_START

    page = (Path(__file__).parents[2] / "docs" / "performance.md").read_text(encoding="utf-8")
    assert page.count(TABLE_START) == 1 and page.index(TABLE_START) < page.index(TABLE_END)


def test_own_usage_runs_smig_and_writes_its_own_peak_and_cpu(tmp_path: Path) -> None:
    """`python -m smig_devtools.own_usage ARGS` is `smig ARGS` (its output and exit code), and writes that
    process's own peak RSS and CPU as it exits: what a client-written migration's row judges smig by."""
    import os
    import subprocess
    import sys

    from smig_devtools.own_usage import OWN_USAGE

    own = tmp_path / "own"
    env = os.environ | {OWN_USAGE: str(own)}
    done = subprocess.run([sys.executable, "-m", "smig_devtools.own_usage", "--version"], env=env, capture_output=True)
    direct = subprocess.run([sys.executable, "-m", "smig_tui", "--version"], capture_output=True)
    assert done.returncode == direct.returncode == 0 and done.stdout == direct.stdout
    peak, cpu = (float(value) for value in own.read_text(encoding="ascii").split())
    assert 5 < peak < 400 and 0 < cpu < 30
    refused = [sys.executable, "-m", "smig_devtools.own_usage", "--no-such-option"]  # reads nothing
    assert subprocess.run(refused, env=env, capture_output=True).returncode == 2


def test_the_children_get_tiktoken_s_files_from_the_environment_or_beside_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without them every count is estimated, cheaper than tiktoken's: a run must not measure that by
    accident (the offline copies are `../shared/tiktoken`, two folders above `smig_devtools/bench.py`)."""
    from smig_devtools import bench

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    assert bench.tiktoken_files() == tmp_path
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR")
    beside = Path(bench.__file__).resolve().parents[1].parent / "shared" / "tiktoken"
    assert bench.tiktoken_files() == (beside if beside.is_dir() else None)
    if beside.is_dir():
        assert "TIKTOKEN_CACHE_DIR" not in os.environ
        assert bench.corpus_env(tmp_path, tmp_path / "smig")["TIKTOKEN_CACHE_DIR"] == str(beside)
