"""The benchmark's generated homes of Qwen Code, Copilot CLI, Pi, Crush and Aider are what smig's readers
list and load: every session, of about its entry's size, in the project its entry names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from smig_devtools.aider_corpus import generate_aider
from smig_devtools.copilot_corpus import generate_copilot
from smig_devtools.corpus import SessionEntry
from smig_devtools.crush_corpus import generate_crush
from smig_devtools.pi_corpus import generate_pi
from smig_devtools.qwen_corpus import generate_qwen
from smig_tui.adapters.agents.aider.source import AiderSource
from smig_tui.adapters.agents.copilot.source import CopilotSource
from smig_tui.adapters.agents.crush.source import CrushSource
from smig_tui.adapters.agents.pi.source import PiSource
from smig_tui.adapters.agents.qwen.source import QwenSource
from smig_tui.core.models import Kind, ReadWarning
from smig_tui.core.ports import SessionSource

SIZES = (3_000, 40_000, 250_000, 9_000)


def entries(work: Path, folders: int) -> list[SessionEntry]:
    """Four sessions of the given sizes, in `folders` project folders under `work`."""
    return [
        SessionEntry(
            "claude",
            "main",
            f"s{i}",
            f"/p{i}.jsonl",
            str(work / f"project-{i % folders}"),
            prompt=f"Task number {i}",
            size=size,
        )
        for i, size in enumerate(SIZES)
    ]


Maker = Callable[[Path, list[SessionEntry]], int]
READERS: dict[str, tuple[Maker, Callable[[Path], SessionSource], int]] = {
    "qwen": (generate_qwen, lambda home: QwenSource(home / ".qwen" / "projects"), 2),
    "copilot": (generate_copilot, lambda home: CopilotSource(home / ".copilot" / "session-state"), 2),
    "pi": (generate_pi, lambda home: PiSource(home / ".pi" / "agent" / "sessions"), 2),
    "crush": (generate_crush, lambda home: CrushSource({"CRUSH_GLOBAL_DATA": str(home)}), 2),
    "aider": (
        generate_aider,
        lambda home: AiderSource(lambda: (sorted((home.parent / "work").iterdir()), [])),
        len(SIZES),  # one history per folder
    ),
}


@pytest.mark.parametrize("agent", sorted(READERS))
def test_every_generated_session_lists_and_loads(tmp_path: Path, agent: str) -> None:
    make, source_of, folders = READERS[agent]
    made = entries(tmp_path / "work", folders)
    home = tmp_path / agent
    assert make(home, made) == len(SIZES)
    source = source_of(home)
    warnings: list[ReadWarning] = []
    listed = [info for info in source.discover(warnings.append) if not info.is_subagent]
    assert warnings == []
    infos = sorted(listed, key=lambda info: info.title or "")
    assert [info.title for info in infos] == [f"Task number {i}" for i in range(len(SIZES))]
    assert [info.cwd for info in infos] == [entry.cwd for entry in made]
    for info, entry in zip(infos, made, strict=True):
        assert 0.8 * entry.size <= info.size <= 1.2 * entry.size + 2_000, info.size
        session = source.load(info, warnings.append)
        assert warnings == []
        calls = [m for m in session.messages if m.kind is Kind.TOOL_CALL]
        results = [m for m in session.messages if m.kind is Kind.TOOL_RESULT]
        if agent != "aider":  # Aider's history holds edits, not tool calls
            assert len(calls) == len(results) > 0
        assert session.messages[-1].text.strip().endswith("Done.") or agent == "aider"
    before = sorted(str(path) for path in tmp_path.rglob("*"))
    assert make(home, made) == len(SIZES)  # reused as it is
    assert sorted(str(path) for path in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("agent", sorted(READERS))
def test_it_never_replaces_a_folder_it_did_not_make(tmp_path: Path, agent: str) -> None:
    make = READERS[agent][0]
    (tmp_path / "someone" / "mine.txt").parent.mkdir(parents=True)
    (tmp_path / "someone" / "mine.txt").write_text("the user's", encoding="utf-8")
    with pytest.raises(ValueError, match="not made by the corpus generator"):
        make(tmp_path / "someone", [])
    assert (tmp_path / "someone" / "mine.txt").read_text(encoding="utf-8") == "the user's"


def test_the_every_agent_row_lists_all_ten_agents_and_as_many_sessions_as_claude_code_had(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from smig_devtools.bench_agents import _every_agent_homes
    from smig_devtools.corpus import MB, generate
    from smig_tui.adapters.agents.registry import load
    from smig_tui.services.root import build_services

    manifest = generate(tmp_path / "codex", tmp_path / "claude", sessions=40, total_bytes=2 * MB, seed=5)
    claude = [e for e in manifest.sessions if e.agent == "claude" and not e.empty and not e.is_subagent]
    homes = _every_agent_homes(tmp_path, tmp_path / "every-agent", claude)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SMIG_TUI_HOME", str(tmp_path / "smig"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    for name, value in homes.items():
        monkeypatch.setenv(name, value)
    listed = build_services().list_sessions()
    counts = {p.id: sum(1 for info in listed if info.agent.value == p.id) for p in load()}
    assert all(counts.values()), counts
    codex = sum(1 for e in manifest.sessions if e.agent == "codex" and not e.empty and not e.is_subagent)
    assert len(counts) == 10 and counts["codex"] == codex
    # OpenCode's generator makes about one session in ten a sub-agent's (not listed)
    assert 0.85 * len(claude) <= len(listed) - codex <= len(claude)
