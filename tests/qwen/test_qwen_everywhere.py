"""Qwen Code's sessions in the rest of smig: archive, search, plan, export, memory sync, MCP, CLI choices.

The recorded sessions of tests/fixtures/real/qwen in the temp home, driven through the CLI in-process.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_runner import smig
from tui_pilot import source_tree_labels

from smig_tui.adapters.agents import registry
from smig_tui.core.agent_rules import usable_window

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "qwen"
TOOLS = json.loads((REAL / "scenarios.json").read_text(encoding="utf-8"))["tools"]["session"]


@pytest.fixture
def qwen_home(isolated_homes: dict[str, Path]) -> Path:
    home = isolated_homes["home"] / ".qwen"
    shutil.copytree(REAL / "home" / ".qwen", home)
    return home


def _session_file(home: Path) -> Path:
    [path] = (home / "projects").glob(f"*/chats/{TOOLS}.jsonl")
    return path


def test_an_archived_session_outlives_its_file_and_is_restored_where_qwen_finds_it(qwen_home: Path) -> None:
    path = _session_file(qwen_home)
    original = path.read_bytes()
    assert smig("archive")[0] == 0
    path.unlink()
    [entry] = [info for info in json.loads(smig("list", "--json")[1]) if info["id"] == TOOLS]
    assert entry["archived"] is True and entry["agent"] == "qwen"
    hits = json.loads(smig("search", "OSPREY", "--agent", "qwen", "--json")[1])
    assert any(hit["session_id"] == TOOLS and hit["archived"] for hit in hits)
    code, exported, _ = smig("export", TOOLS[:8], "--format", "markdown")
    assert code == 0 and "TOOLS: read notes.txt" in exported and "codename: OSPREY" in exported
    code, stdout, stderr = smig("archive", "restore", TOOLS[:8])
    assert code == 0, stderr
    assert Path(stdout.strip()) == path and path.read_bytes() == original


def test_search_finds_a_tool_result_and_a_prompt(qwen_home: Path) -> None:
    hits = json.loads(smig("search", "cat", "missing.txt", "--agent", "qwen", "--json")[1])
    assert {hit["session_id"] for hit in hits} == {TOOLS}
    hits = json.loads(smig("search", "colour teal", "--agent", "qwen", "--role", "user", "--json")[1])
    # the chat scenario's; the compact scenario's went into its compression summary, as the model saw it
    assert {hit["session_id"] for hit in hits} == {json.loads((REAL / "scenarios.json").read_text())["chat"]["session"]}


def test_export_keeps_every_call_paired_with_its_result(qwen_home: Path) -> None:
    code, out, err = smig("export", TOOLS[:8], "--format", "json")
    assert code == 0, err
    exported = json.loads(out)
    assert exported["source"]["agent"] == "qwen"
    messages = exported["messages"]
    calls = [m["call_id"] for m in messages if m["kind"] == "tool_call"]
    assert len(calls) == 3 and calls == [m["call_id"] for m in messages if m["kind"] == "tool_result"]
    code, out, err = smig("export", TOOLS[:8], "--format", "openai")
    assert code == 0 and "codename: OSPREY" in out  # calls as text there, as every written session has them


def test_a_plan_for_qwen_takes_its_overhead_and_its_compaction_off_the_window(qwen_home: Path) -> None:
    code, out, err = smig("plan", TOOLS[:8], "--target", "qwen3-coder-plus", "--json")  # a Qwen model: Qwen Code
    assert code == 0, err
    decision = json.loads(out)["decision"]
    assert decision["prompt_limit"] == 850_000 and decision["harness"] is True
    assert decision["overhead"] == round(18_067 * 0.995)  # measured in o200k, in the Qwen tokenizer's terms
    assert usable_window("qwen", 1_000_000) == 850_000  # 0.85 of the window
    assert usable_window("qwen", 200_000) == 167_000  # the 33,000 reserve is the tighter one


def test_memory_sync_gives_qwen_the_others_memory_and_carries_its_qwen_md(
    qwen_home: Path, isolated_homes: dict[str, Path]
) -> None:
    (qwen_home / "QWEN.md").write_text("# Qwen notes\n- The user deploys on Fridays.\n", encoding="utf-8")
    codex_memory = isolated_homes["codex"] / "memories"
    codex_memory.mkdir(parents=True)
    (codex_memory / "memory_summary.md").write_text("# Profile\n- prefers uv\n", encoding="utf-8")
    code, _, err = smig("memory", "sync")
    assert code == 0, err
    assert "prefers uv" in (qwen_home / "smig_memory.md").read_text(encoding="utf-8")
    qwen_md = (qwen_home / "QWEN.md").read_text(encoding="utf-8")
    assert qwen_md.startswith("# Qwen notes") and "@./smig_memory.md" in qwen_md  # the import Qwen Code inlines
    assert "deploys on Fridays" in (codex_memory / "claude_code_smig.md").read_text(encoding="utf-8")


def test_every_cli_choice_and_mcp_schema_names_qwen() -> None:
    from smig_tui.mcp.schemas import TOOLS as MCP_TOOLS

    tools = {tool["name"]: tool["inputSchema"]["properties"] for tool in MCP_TOOLS}
    assert "qwen" in tools["list_sessions"]["agent"]["enum"]
    assert "qwen" in tools["commit_migration"]["to"]["items"]["enum"]
    assert "qwen" in tools["memory_sync"]["to"]["items"]["enum"]
    profile = registry.profile_of("qwen")
    assert profile is not None and profile.name == "Qwen Code"
    assert profile.resume_argv is not None and profile.resume_argv("ID") == ("qwen", "--resume", "ID")


async def test_the_tui_tree_shows_qwen_code_once_it_has_sessions_and_the_commit_dialog_offers_it(
    isolated_homes: dict[str, Path],
) -> None:
    from smig_tui.tui.screens.commit import native_choices

    assert not any(label.startswith("Qwen Code") for label in await source_tree_labels())  # no sessions: no node
    shutil.copytree(REAL / "home" / ".qwen", isolated_homes["home"] / ".qwen")
    assert "Qwen Code (4)" in await source_tree_labels()
    assert ("qwen", "Qwen Code session") in native_choices()
