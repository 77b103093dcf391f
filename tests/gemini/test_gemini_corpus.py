"""The benchmark's generated Gemini home is what the reader lists and loads, one session per Codex thread."""

from __future__ import annotations

from pathlib import Path

import pytest

from smig_devtools.corpus import SessionEntry
from smig_devtools.gemini_corpus import generate_gemini
from smig_tui.adapters.agents.gemini.source import GeminiSource
from smig_tui.core.models import Kind, ReadWarning


def test_every_generated_session_lists_and_loads(tmp_path: Path) -> None:
    entries = [
        SessionEntry(
            "codex", "main", f"t{i}", f"/p{i}.jsonl", f"/home/user/repo{i % 3}", prompt=f"Task number {i}", size=size
        )
        for i, size in enumerate((3_000, 40_000, 250_000))
    ]
    home = tmp_path / "gemini"
    assert generate_gemini(home, entries) == 3
    source = GeminiSource(home / ".gemini")
    warnings: list[ReadWarning] = []
    infos = sorted(source.discover(warnings.append), key=lambda info: info.title or "")
    assert warnings == []
    assert [info.title for info in infos] == ["Task number 0", "Task number 1", "Task number 2"]
    assert [info.cwd for info in infos] == ["/home/user/repo0", "/home/user/repo1", "/home/user/repo2"]
    for info, entry in zip(infos, entries, strict=True):
        assert 0.8 * entry.size <= info.size <= 1.2 * entry.size + 2_000
        session = source.load(info, warnings.append)
        calls = [m for m in session.messages if m.kind is Kind.TOOL_CALL]
        results = [m for m in session.messages if m.kind is Kind.TOOL_RESULT]
        assert len(calls) == len(results) > 0  # each result read once, though recorded twice
        assert info.context_tokens == session.measured_context_tokens
    assert generate_gemini(home, entries) == 3  # reused as it is


def test_it_never_replaces_a_folder_it_did_not_make(tmp_path: Path) -> None:
    (tmp_path / "someone" / ".gemini").mkdir(parents=True)
    with pytest.raises(ValueError, match="not made by the corpus generator"):
        generate_gemini(tmp_path / "someone", [])
    assert (tmp_path / "someone" / ".gemini").is_dir()
