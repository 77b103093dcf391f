"""Copilot CLI's sessions in the rest of smig: archive, search, plan, export, memory sync, MCP, CLI choices, TUI.

The recorded sessions of tests/fixtures/real/copilot in the temp home, driven through the CLI in-process;
nothing outside the agent's package names Copilot CLI for any of it (the plugin design).
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

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "copilot"
SCENARIOS = json.loads((REAL / "scenarios.json").read_text(encoding="utf-8"))
TOOLS = SCENARIOS["tools"]["session"]


@pytest.fixture
def copilot_home(isolated_homes: dict[str, Path]) -> Path:
    home = isolated_homes["home"] / ".copilot"
    shutil.copytree(REAL / "home" / ".copilot", home)
    return home


def test_an_archived_session_outlives_its_file_and_is_restored_where_copilot_finds_it(copilot_home: Path) -> None:
    path = copilot_home / "session-state" / TOOLS / "events.jsonl"
    original = path.read_bytes()
    assert smig("archive")[0] == 0
    path.unlink()
    [entry] = [info for info in json.loads(smig("list", "--json")[1]) if info["id"] == TOOLS]
    assert entry["archived"] is True and entry["agent"] == "copilot"
    hits = json.loads(smig("search", "OSPREY", "--agent", "copilot", "--json")[1])
    assert any(hit["session_id"] == TOOLS and hit["archived"] for hit in hits)
    code, exported, _ = smig("export", TOOLS[:8], "--format", "markdown")
    assert code == 0 and "TOOLS: read notes.txt" in exported and "codename: OSPREY" in exported
    code, stdout, stderr = smig("archive", "restore", TOOLS[:8])
    assert code == 0, stderr
    assert Path(stdout.strip()) == path and path.read_bytes() == original


def test_search_finds_a_tool_result_and_a_prompt_but_not_the_clients_system_prompt(copilot_home: Path) -> None:
    hits = json.loads(smig("search", "missing.txt", "--agent", "copilot", "--json")[1])
    assert {hit["session_id"] for hit in hits} == {TOOLS}
    hits = json.loads(smig("search", "colour teal", "--agent", "copilot", "--role", "user", "--json")[1])
    # the chat's prompt, and the compact scenario's inside the summary message Copilot sends in its place
    assert {hit["session_id"] for hit in hits} == {SCENARIOS["chat"]["session"], SCENARIOS["compact"]["session"]}
    assert json.loads(smig("search", "terminal assistant built by GitHub", "--agent", "copilot", "--json")[1]) == []


def test_export_keeps_every_call_paired_with_its_result(copilot_home: Path) -> None:
    code, out, err = smig("export", TOOLS[:8], "--format", "json")
    assert code == 0, err
    exported = json.loads(out)
    assert exported["source"]["agent"] == "copilot"
    messages = exported["messages"]
    calls = [m["call_id"] for m in messages if m["kind"] == "tool_call"]
    assert len(calls) == 3 and calls == [m["call_id"] for m in messages if m["kind"] == "tool_result"]


def test_a_plan_into_copilot_takes_its_measured_overhead_off_the_room(copilot_home: Path) -> None:
    code, out, err = smig("plan", TOOLS[:8], "--target", "claude-sonnet-5-5", "--to", "copilot", "--json")
    assert code == 0, err
    decision = json.loads(out)["decision"]
    assert decision["harness"] is True and decision["overhead"] >= 13_195 * 0.9  # calibrated for the target
    profile = registry.profile_of("copilot")
    assert profile is not None and profile.overhead is not None
    assert sum(tokens for _, tokens in profile.overhead.parts) == profile.overhead.tokens == 13_195
    assert usable_window("copilot", 168_000) == 134_400  # compacts at 80% of the prompt limit
    assert usable_window("copilot", 168_000, 100_000) == 100_000


def test_the_prompt_limit_variable_moves_copilots_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    profile = registry.profile_of("copilot")
    assert profile is not None and profile.window_settings({}) is None
    adjust = profile.window_settings({"COPILOT_PROVIDER_MAX_PROMPT_TOKENS": "20000"})
    assert adjust is not None
    from smig_tui.core.models import AgentWindow

    window = adjust(None, AgentWindow("copilot", 168_000, 134_400, "catalog"), lambda _name: None)  # type: ignore[arg-type]
    assert (window.window, window.usable) == (20_000, 16_000) and "COPILOT_PROVIDER_MAX_PROMPT_TOKENS" in window.source


def test_memory_sync_gives_copilot_the_others_memory_and_carries_its_instructions(
    copilot_home: Path, isolated_homes: dict[str, Path]
) -> None:
    (copilot_home / "copilot-instructions.md").write_text("# Mine\n\n- The user deploys on Fridays.\n", "utf-8")
    (copilot_home / "instructions").mkdir()
    (copilot_home / "instructions" / "style.instructions.md").write_text("- Tabs, not spaces.\n", "utf-8")
    codex_memory = isolated_homes["codex"] / "memories"
    codex_memory.mkdir(parents=True)
    (codex_memory / "memory_summary.md").write_text("# Profile\n- prefers uv\n", encoding="utf-8")
    code, _, err = smig("memory", "sync")
    assert code == 0, err
    bundle = copilot_home / "instructions" / "smig_memory.instructions.md"
    assert "prefers uv" in bundle.read_text(encoding="utf-8")
    # no line added to the user's own file: Copilot reads its whole instructions folder
    assert (copilot_home / "copilot-instructions.md").read_text("utf-8") == "# Mine\n\n- The user deploys on Fridays.\n"
    carried = (codex_memory / "claude_code_smig.md").read_text(encoding="utf-8")
    assert "deploys on Fridays" in carried and "Tabs, not spaces." in carried and "prefers uv" not in carried
    assert smig("memory", "sync")[0] == 0  # a second run changes nothing and never carries the bundle back
    assert "smig_memory.instructions" not in (codex_memory / "claude_code_smig.md").read_text(encoding="utf-8")


def test_memory_sync_never_writes_over_a_users_file_at_the_bundles_place(
    copilot_home: Path, isolated_homes: dict[str, Path]
) -> None:
    (copilot_home / "instructions").mkdir()
    theirs = copilot_home / "instructions" / "smig_memory.instructions.md"
    theirs.write_text("mine\n", encoding="utf-8")
    codex_memory = isolated_homes["codex"] / "memories"
    codex_memory.mkdir(parents=True)
    (codex_memory / "memory_summary.md").write_text("# Profile\n- prefers uv\n", encoding="utf-8")
    code, out, err = smig("memory", "sync")
    assert theirs.read_text(encoding="utf-8") == "mine\n"
    assert "not smig's" in out + err


def test_every_cli_choice_and_mcp_schema_names_copilot() -> None:
    from smig_tui.mcp.schemas import TOOLS as MCP_TOOLS

    tools = {tool["name"]: tool["inputSchema"]["properties"] for tool in MCP_TOOLS}
    assert "copilot" in tools["list_sessions"]["agent"]["enum"]
    assert "copilot" in tools["commit_migration"]["to"]["items"]["enum"]
    assert "copilot" in tools["memory_sync"]["to"]["items"]["enum"]
    profile = registry.profile_of("copilot")
    assert profile is not None and profile.name == "Copilot CLI" and profile.is_client("GitHub Copilot CLI")
    assert profile.resume_argv is not None and profile.resume_argv("ID") == ("copilot", "--resume", "ID")
    assert profile.home_variables == ("COPILOT_HOME",)


async def test_the_tui_tree_shows_copilot_once_it_has_sessions_and_the_commit_dialog_offers_it(
    isolated_homes: dict[str, Path],
) -> None:
    from smig_tui.tui.screens.commit import native_choices

    assert not any(label.startswith("Copilot CLI") for label in await source_tree_labels())  # no sessions: no node
    shutil.copytree(REAL / "home" / ".copilot", isolated_homes["home"] / ".copilot")
    assert "Copilot CLI (4)" in await source_tree_labels()
    assert ("copilot", "Copilot CLI session") in native_choices()


def test_smig_models_names_the_window_copilot_runs_a_model_at() -> None:
    code, out, err = smig("models", "claude-sonnet-4-5")
    assert code == 0, err
    assert "in Copilot CLI: usable 134,400 of 168,000" in out  # maxPromptTokens, 80% before it compacts
