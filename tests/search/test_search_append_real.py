"""Real transcripts (written by Codex CLI 0.171.0 and Claude Code 2.1.332) grown a line or a few at
a time while indexed: after every step the index read on from where it stopped holds exactly what a
first build from the same file holds, and most steps were read on rather than read again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.services import Services, build_services

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
CLAUDE = sorted(path for path in (REAL / "claude" / "projects").glob("*/*.jsonl"))
CODEX = sorted(
    path
    for name in ("auto_compaction", "compressed_and_plain", "revert_segments")
    for path in (REAL / "codex" / name / "codex_home" / "sessions").rglob("rollout-*.jsonl")
    if "_" not in path.name.split("T10-")[1]  # a thread's own first file: no earlier files to read first
)


def indexed_rows(services: Services) -> list[tuple[object, ...]]:
    with sqlite3.connect(services.search_index.db_path) as conn:
        return conn.execute(
            "SELECT f.session_id, m.position, m.message_id, m.role, m.kind, m.tier, m.timestamp, t.length"
            " FROM messages m JOIN texts t ON t.id = m.text JOIN files f ON f.id = m.file ORDER BY f.session_id, m.position"
        ).fetchall()


def grow_line_by_line(
    original: Path, target: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, full_loads: list[str]
) -> tuple[int, int]:
    """Grow `target` to `original` a line or a few at a time (about 25 steps, the last one whole);
    return (steps, steps read in full)."""
    lines = original.read_bytes().splitlines(keepends=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"")
    steps = read_whole = written = 0
    stride = max(1, len(lines) // 25)
    for count in [*range(1, len(lines), stride), len(lines)]:
        with target.open("ab") as handle:
            handle.write(b"".join(lines[written:count]))
        written = count
        monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / "grown"))
        before = len(full_loads)
        grown = build_services()
        grown.refresh_search_index()
        read_whole += len(full_loads) > before
        monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / f"fresh{count}"))
        fresh = build_services()
        fresh.refresh_search_index()
        assert indexed_rows(grown) == indexed_rows(fresh), f"{original.name} after {count} lines"
        steps += 1
    return steps, read_whole


@pytest.fixture
def full_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    for source, method in ((CodexSource, "load_history"), (ClaudeSource, "load")):  # what the index reads whole with
        original = getattr(source, method)

        def counting(self, info, warn, original=original):  # type: ignore[no-untyped-def]
            seen.append(info.path)
            return original(self, info, warn)

        monkeypatch.setattr(source, method, counting)
    return seen


@pytest.mark.parametrize("original", CLAUDE, ids=lambda path: path.parent.name.rsplit("-", 1)[-1] + "/" + path.stem[:8])
def test_a_claude_transcript_grown_line_by_line(
    original: Path,
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    full_loads: list[str],
) -> None:
    target = isolated_homes["claude"] / "projects" / original.parent.name / original.name
    steps, read_whole = grow_line_by_line(original, target, tmp_path, monkeypatch, full_loads)
    assert read_whole <= steps // 5, f"read whole {read_whole} of {steps} times"


@pytest.mark.parametrize("original", CODEX, ids=lambda path: path.parents[5].name)
def test_a_codex_rollout_grown_line_by_line(
    original: Path,
    isolated_homes: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    full_loads: list[str],
) -> None:
    target = isolated_homes["codex"] / original.relative_to(original.parents[4])
    steps, read_whole = grow_line_by_line(original, target, tmp_path, monkeypatch, full_loads)
    assert read_whole <= steps // 5, f"read whole {read_whole} of {steps} times"
