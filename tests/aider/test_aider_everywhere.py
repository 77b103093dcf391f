"""Aider's histories in the rest of smig: archive, search, plan, export, MCP, CLI choices, the TUI.

The recorded histories of tests/fixtures/real/aider in a project folder of the temp home, driven
through the CLI in-process from that folder (how smig finds them without configuration).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from cli_runner import smig
from tui_pilot import source_tree_labels

from smig_tui.adapters.agents import registry
from smig_tui.adapters.agents.aider import folders as places
from smig_tui.core.agent_rules import usable_window

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "aider" / "projects"


@pytest.fixture
def project(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = isolated_homes["home"] / "osprey"
    shutil.copytree(REAL / "shell", folder)
    monkeypatch.chdir(folder)
    return folder


def _id(project: Path) -> str:
    return places.session_id_of(project / places.DEFAULT_NAME)


def test_an_archived_history_outlives_its_file_and_is_restored_where_it_was(project: Path) -> None:
    path = project / places.DEFAULT_NAME
    original = path.read_bytes()
    assert smig("archive")[0] == 0
    path.unlink()
    [entry] = [info for info in json.loads(smig("list", "--json")[1]) if info["id"] == _id(project)]
    assert entry["archived"] is True and entry["agent"] == "aider"
    hits = json.loads(smig("search", "OSPREY", "--agent", "aider", "--json")[1])
    assert any(hit["session_id"] == _id(project) and hit["archived"] for hit in hits)
    code, stdout, stderr = smig("archive", "restore", _id(project)[:8])
    assert code == 0, stderr
    assert Path(stdout.strip()) == path and path.read_bytes() == original


def test_search_finds_a_prompt_and_a_reply(project: Path) -> None:
    hits = json.loads(smig("search", "what did it print", "--agent", "aider", "--role", "user", "--json")[1])
    assert {hit["session_id"] for hit in hits} == {_id(project)}
    hits = json.loads(smig("search", "OSPREY", "--agent", "aider", "--json")[1])
    assert {hit["session_id"] for hit in hits} == {_id(project)}


def test_export_gives_the_restored_conversation(project: Path) -> None:
    code, out, err = smig("export", _id(project)[:8], "--format", "json")
    assert code == 0, err
    exported = json.loads(out)
    assert exported["source"]["agent"] == "aider"
    assert [m["role"] for m in exported["messages"]] == ["user", "assistant"] * 3
    assert exported["messages"][0]["text"] == "SHELL-1: show me notes.txt  \n"
    code, out, err = smig("export", _id(project)[:8], "--format", "markdown")
    assert code == 0 and "SHELL-REPLY-2: OSPREY" in out


def test_a_plan_for_aider_takes_its_measured_overhead_off_the_room(project: Path) -> None:
    code, out, err = smig("plan", _id(project)[:8], "--target", "gpt-4.1", "--to", "aider", "--json")
    assert code == 0, err
    decision = json.loads(out)["decision"]
    assert decision["overhead"] == 2_281  # o200k, as measured; gpt-4.1 counts in o200k
    profile = registry.profile_of("aider")
    assert profile is not None and profile.overhead is not None
    assert sum(tokens for _, tokens in profile.overhead.parts) == profile.overhead.tokens
    # Aider summarises the history past window / 16 (1,024 to 8,192 tokens), or the user's own limit
    assert usable_window("aider", 1_047_576) == 8_192
    assert usable_window("aider", 16_384) == 1_024
    assert usable_window("aider", 64_000) == 4_000
    assert usable_window("aider", 64_000, 20_000) == 20_000


def test_every_cli_choice_and_mcp_schema_names_aider(capsys: pytest.CaptureFixture[str]) -> None:
    from smig_tui.mcp.schemas import TOOLS as MCP_TOOLS

    tools = {tool["name"]: tool["inputSchema"]["properties"] for tool in MCP_TOOLS}
    assert "aider" in tools["list_sessions"]["agent"]["enum"]
    assert "aider" in tools["commit_migration"]["to"]["items"]["enum"]
    assert "aider" in tools["memory_sync"]["to"]["items"]["enum"]
    profile = registry.profile_of("aider")
    assert profile is not None and profile.name == "Aider" and profile.program == "aider"
    with pytest.raises(SystemExit):
        smig("migrate", "--help")
    usage = "".join(capsys.readouterr().out.split())
    assert ",aider," in usage[usage.index("--to{") : usage.index("}")]


def test_doctor_lists_aider_with_its_sessions(project: Path) -> None:
    code, out, err = smig("doctor", "--json")
    report = json.loads(out)
    [aider] = [agent for agent in report["agents"] if agent["agent"] == "aider"]
    assert aider["sessions"] == 1 and aider["program"] == "aider"


async def test_the_tui_tree_shows_aider_once_it_has_sessions_and_the_commit_dialog_offers_it(
    isolated_homes: dict[str, Path], monkeypatch: Any
) -> None:
    from smig_tui.tui.screens.commit import native_choices

    assert not any(label.startswith("Aider") for label in await source_tree_labels())  # no sessions: no node
    folder = isolated_homes["home"] / "chat"
    shutil.copytree(REAL / "chat", folder)
    monkeypatch.chdir(folder)
    assert "Aider (2)" in await source_tree_labels()
    assert ("aider", "Aider session") in native_choices()


def test_show_takes_the_history_file_by_its_path(project: Path) -> None:
    code, out, err = smig("show", places.DEFAULT_NAME, "--json")
    assert code == 0, err
    assert json.loads(out)["info"]["id"] == _id(project)
