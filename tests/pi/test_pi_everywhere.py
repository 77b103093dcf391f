"""Pi's sessions in the rest of smig: archive, search, plan, export, memory sync, MCP, CLI choices, TUI.

The recorded sessions of tests/fixtures/real/pi in the temp home, driven through the CLI in-process.
No file outside Pi's package names it: the registry's entry point brings it everywhere.
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

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "pi"
SCENARIOS = json.loads((REAL / "scenarios.json").read_text(encoding="utf-8"))
TOOLS = SCENARIOS["tools"]["session"]


@pytest.fixture
def pi_home(isolated_homes: dict[str, Path]) -> Path:
    shutil.copytree(REAL / "home" / ".pi", isolated_homes["home"] / ".pi")
    return isolated_homes["home"] / ".pi" / "agent"


def _session_file(home: Path) -> Path:
    [path] = (home / "sessions").glob(f"*/{SCENARIOS['tools']['file']}")
    return path


def test_an_archived_session_outlives_its_file_and_is_restored_where_pi_finds_it(pi_home: Path) -> None:
    path = _session_file(pi_home)
    original = path.read_bytes()
    assert smig("archive")[0] == 0
    path.unlink()
    [entry] = [info for info in json.loads(smig("list", "--json")[1]) if info["id"] == TOOLS]
    assert entry["archived"] is True and entry["agent"] == "pi"
    hits = json.loads(smig("search", "OSPREY", "--agent", "pi", "--json")[1])
    assert any(hit["session_id"] == TOOLS and hit["archived"] for hit in hits)
    code, exported, _ = smig("export", TOOLS[:13], "--format", "markdown")
    assert code == 0 and "TOOLS: read notes.txt" in exported and "codename: OSPREY" in exported
    code, stdout, stderr = smig("archive", "restore", TOOLS[:13])
    assert code == 0, stderr
    assert Path(stdout.strip()) == path and path.read_bytes() == original


def test_search_finds_a_tool_result_and_a_prompt(pi_home: Path) -> None:
    hits = json.loads(smig("search", "cat", "missing.txt", "--agent", "pi", "--json")[1])
    assert {hit["session_id"] for hit in hits} == {TOOLS}
    hits = json.loads(smig("search", "colour teal", "--agent", "pi", "--role", "user", "--json")[1])
    # the chat scenario's; the compact scenario's went into its compaction summary, as the model saw it
    assert {hit["session_id"] for hit in hits} == {SCENARIOS["chat"]["session"]}


def test_export_keeps_every_call_paired_with_its_result(pi_home: Path) -> None:
    code, out, err = smig("export", TOOLS[:13], "--format", "json")
    assert code == 0, err
    exported = json.loads(out)
    assert exported["source"]["agent"] == "pi"
    messages = exported["messages"]
    calls = [m["call_id"] for m in messages if m["kind"] == "tool_call"]
    assert len(calls) == 3 and calls == [m["call_id"] for m in messages if m["kind"] == "tool_result"]
    results = [m["text"] for m in messages if m["kind"] == "tool_result"]
    assert results[-1].endswith("Command exited with code 1")  # the failed call's result, as Pi sent it


def test_a_plan_for_pi_takes_its_overhead_and_its_compaction_off_the_window(pi_home: Path) -> None:
    code, out, err = smig("plan", TOOLS[:13], "--target", "gpt-5.5", "--to", "pi", "--json")
    assert code == 0, err
    plan = json.loads(out)
    assert plan["agent_overhead"] == {
        "agent": "pi",
        "tokens": 1_280,
        "source": "measured with Pi 0.73.1",
        "assumed": False,
    }
    assert usable_window("pi", 128_000) == 128_000 - 16_384  # Pi compacts past the window less its reserve
    assert usable_window("pi", 200_000, 150_000) == 150_000  # the user's own limit, when lower


def test_the_profiles_overhead_is_the_one_recorded_from_the_real_client() -> None:
    from smig_tui.adapters.agents.pi import PROFILE

    recorded = SCENARIOS["overhead"]["interactive"]
    assert (
        PROFILE.overhead is not None
        and PROFILE.overhead.tokens == recorded["total"] == SCENARIOS["overhead"]["-p"]["total"]
    )
    assert dict(PROFILE.overhead.parts) == {key: value for key, value in recorded.items() if key != "total"}


def test_the_users_compaction_settings_change_pis_windows(pi_home: Path) -> None:
    from smig_tui.adapters.agents.pi import window_settings
    from smig_tui.core.models import AgentWindow, ModelCapacity

    assert window_settings(None) is None  # no settings.json: Pi's defaults
    model = ModelCapacity("gpt-5.5", "openai", 200_000, 8_000, "o200k_base")
    shipped = AgentWindow("pi", 200_000, usable_window("pi", 200_000), "catalog")
    (pi_home / "settings.json").write_text('{"compaction": {"reserveTokens": 50000}}', encoding="utf-8")
    adjust = window_settings(None)
    assert adjust is not None
    window = adjust(model, shipped, lambda _name: None)
    assert window.usable == 150_000 and "reserveTokens 50,000" in window.source
    (pi_home / "settings.json").write_text('{"compaction": {"enabled": false}}', encoding="utf-8")
    adjust = window_settings(None)
    assert adjust is not None and adjust(model, shipped, lambda _name: None).usable == 200_000


def test_memory_sync_points_pi_at_the_others_memory_and_carries_its_agents_md(
    pi_home: Path, isolated_homes: dict[str, Path]
) -> None:
    (pi_home / "AGENTS.md").write_text("# Pi notes\n- The user deploys on Fridays.\n", encoding="utf-8")
    codex_memory = isolated_homes["codex"] / "memories"
    codex_memory.mkdir(parents=True)
    (codex_memory / "memory_summary.md").write_text("# Profile\n- prefers uv\n", encoding="utf-8")
    code, _, err = smig("memory", "sync")
    assert code == 0, err
    assert "prefers uv" in (pi_home / "smig_memory.md").read_text(encoding="utf-8")
    agents_md = (pi_home / "AGENTS.md").read_text(encoding="utf-8")
    assert agents_md.startswith("# Pi notes") and str(pi_home / "smig_memory.md") in agents_md
    assert "deploys on Fridays" in (codex_memory / "claude_code_smig.md").read_text(encoding="utf-8")
    code, _, err = smig("memory", "sync")  # a second sync adds no second line
    assert code == 0, err and (pi_home / "AGENTS.md").read_text(encoding="utf-8") == agents_md


def test_memory_sync_writes_its_line_into_the_claude_md_pi_reads_rather_than_hide_it(
    pi_home: Path, isolated_homes: dict[str, Path]
) -> None:
    """Pi takes the first of AGENTS.md and CLAUDE.md: a new AGENTS.md would stop it reading the CLAUDE.md."""
    (pi_home / "CLAUDE.md").write_text("# Mine\n- CLAUDE-NOTE\n", encoding="utf-8")
    codex_memory = isolated_homes["codex"] / "memories"
    codex_memory.mkdir(parents=True)
    (codex_memory / "memory_summary.md").write_text("# Profile\n- prefers uv\n", encoding="utf-8")
    code, _, err = smig("memory", "sync", "--to-pi")
    assert code == 0, err
    assert not (pi_home / "AGENTS.md").exists()
    assert str(pi_home / "smig_memory.md") in (pi_home / "CLAUDE.md").read_text(encoding="utf-8")


def test_every_cli_choice_and_mcp_schema_names_pi() -> None:
    from smig_tui.mcp.schemas import TOOLS as MCP_TOOLS

    tools = {tool["name"]: tool["inputSchema"]["properties"] for tool in MCP_TOOLS}
    assert "pi" in tools["list_sessions"]["agent"]["enum"]
    assert "pi" in tools["commit_migration"]["to"]["items"]["enum"]
    assert "pi" in tools["memory_sync"]["to"]["items"]["enum"]
    profile = registry.profile_of("pi")
    assert profile is not None and profile.name == "Pi"
    assert profile.resume_argv is not None and profile.resume_argv("ID") == ("pi", "--session", "ID")
    assert profile.home_variables == ("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR")
    assert not profile.is_client("copilot") and profile.is_client("pi-coding-agent")


async def test_the_tui_tree_shows_pi_once_it_has_sessions_and_the_commit_dialog_offers_it(
    isolated_homes: dict[str, Path],
) -> None:
    from smig_tui.tui.screens.commit import native_choices

    assert not any(label.startswith("Pi ") for label in await source_tree_labels())  # no sessions: no node
    shutil.copytree(REAL / "home" / ".pi", isolated_homes["home"] / ".pi")
    assert "Pi (4)" in await source_tree_labels()
    assert ("pi", "Pi session") in native_choices()
