"""Crush's sessions in the rest of smig: archive, search, plan, export, migrate from it, MCP, CLI, TUI.

Crush is read-only (no writer proven: its client cannot be installed here), so it is offered
everywhere as a source and nowhere as a destination, and naming it as one gets one sentence why.
The databases are built from Crush's schema (tests/fixtures/crush), not written by Crush.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_runner import smig
from crush_builders import install, make
from tui_pilot import source_tree_labels

from smig_tui.adapters.agents import registry
from smig_tui.core.errors import SmigError
from smig_tui.core.native import Destination, destinations, parse_destination
from smig_tui.services import build_services

WHY = "smig cannot write Crush sessions: no writer is proven"


def _parsed(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Exit code and output of a command argparse ends (help, or a usage error), whitespace folded."""
    from smig_tui.cli.main import Context, main
    from smig_tui.cli.output import Output

    with pytest.raises(SystemExit) as ended:
        main(list(argv), Context(out=Output()))
    captured = capsys.readouterr()
    return int(ended.value.code or 0), " ".join((captured.out + captured.err).split())


@pytest.fixture
def crush(isolated_homes: dict[str, Path]) -> dict[str, Path]:
    return install(isolated_homes["home"])


def test_an_archived_session_outlives_its_database_and_is_not_restored(crush: dict[str, Path]) -> None:
    assert smig("archive")[0] == 0
    shutil.rmtree(crush["alpha"] / ".crush")
    [entry] = [info for info in json.loads(smig("list", "--json")[1]) if info["id"] == make.TOOLS]
    assert entry["archived"] is True and entry["agent"] == "crush"
    hits = json.loads(smig("search", "OSPREY", "--agent", "crush", "--json")[1])
    assert any(hit["session_id"] == make.TOOLS and hit["archived"] for hit in hits)
    code, exported, _ = smig("export", make.TOOLS[:8], "--format", "markdown")
    assert code == 0 and "codename: OSPREY" in exported and "notes.txt is modified." in exported
    code, _, err = smig("archive", "restore", make.TOOLS[:8])
    assert code != 0 and "Restoring Crush session" in err and "smig never writes" in err and "Traceback" not in err


def test_search_finds_a_tool_result_a_prompt_and_a_summary(crush: dict[str, Path]) -> None:
    hits = json.loads(smig("search", "missing.txt", "--agent", "crush", "--json")[1])
    assert {hit["session_id"] for hit in hits} == {make.TOOLS}
    hits = json.loads(smig("search", "magenta", "--agent", "crush", "--role", "user", "--json")[1])
    assert {hit["session_id"] for hit in hits} == {make.SUMMARISED}
    hits = json.loads(smig("search", "teal", "--agent", "crush", "--json")[1])
    assert {hit["session_id"] for hit in hits} == {make.SUMMARISED}  # in its summary, as Crush sends it


def test_export_keeps_every_call_paired_with_its_result(crush: dict[str, Path]) -> None:
    code, out, err = smig("export", make.TOOLS[:8], "--format", "json")
    assert code == 0, err
    exported = json.loads(out)
    assert exported["source"]["agent"] == "crush"
    messages = exported["messages"]
    calls = sorted(m["call_id"] for m in messages if m["kind"] == "tool_call")
    assert calls == ["call_cat", "call_lost", "call_view"]
    assert calls == sorted(m["call_id"] for m in messages if m["kind"] == "tool_result")


def test_a_plan_for_a_crush_session_is_made_for_the_agent_it_goes_to(
    crush: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = smig("plan", make.TOOLS[:8], "--target", "gpt-5.5", "--json")
    assert code == 0, err
    assert json.loads(out)["decision"]["target"] == "gpt-5.5"
    code, text = _parsed(capsys, "plan", make.TOOLS[:8], "--target", "gpt-5.5", "--to", "crush")
    assert code == 2 and "invalid choice: 'crush'" in text  # plan --to names the agent that resumes it


def test_a_crush_session_migrates_to_every_agent_smig_writes(crush: dict[str, Path]) -> None:
    services = build_services()
    session = services.load_session(services.find_session(make.TOOLS))
    written = []
    for destination in destinations():
        entry = registry.profile_of(destination.value)
        if entry is None or not services.can_write(destination):
            continue  # the store and exports; a writer that needs its client (OpenCode's, Kilo's)
        plan = services.plan(session, entry.default_target if entry.id != "crush" else "gpt-5.5", agent=entry.id)
        result = services.migrate(session, plan, to={Destination(entry.id)})  # read back as planned, or it raises
        [output] = result.outputs
        assert output.agent == entry.id and Path(output.path).exists()
        written.append(entry.id)
    assert {"claude", "codex", "gemini", "qwen"} <= set(written) and "crush" not in written


def test_naming_crush_as_a_destination_gets_one_sentence_why(
    crush: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = _parsed(capsys, "migrate", make.TOOLS[:8], "--target", "gpt-5.5", "--to", "crush")
    assert code == 2 and f"argument --to: {WHY}" in text and "Traceback" not in text
    with pytest.raises(ValueError, match=WHY):
        parse_destination("crush")
    services = build_services()
    assert not services.can_write("crush")
    session = services.load_session(services.find_session(make.TOOLS))
    with pytest.raises(SmigError, match=WHY):  # the core refuses it too, whatever front end asked
        services.migrate(session, services.plan(session, "gpt-5.5"), to={Destination("crush")}, dry_run=True)


def test_mcp_offers_crush_as_a_source_only_and_says_why_not_as_a_destination(crush: dict[str, Path]) -> None:
    from smig_tui.mcp.schemas import TOOLS, check_arguments
    from smig_tui.mcp.tools import InvalidArgumentError, SmigTools

    tools = {tool["name"]: tool for tool in TOOLS}
    properties = {name: tool["inputSchema"]["properties"] for name, tool in tools.items()}
    assert "crush" in properties["list_sessions"]["agent"]["enum"]
    assert "crush" not in properties["commit_migration"]["to"]["items"]["enum"]
    assert "crush" not in tools["commit_migration"]["description"]
    problem = check_arguments(
        tools["commit_migration"], {"session_id": make.TOOLS, "target_model": "gpt-5.5", "to": ["crush"]}
    )
    assert problem is not None and WHY in problem
    listed = SmigTools(build_services()).list_sessions(agent="crush")
    assert make.TOOLS in json.dumps(listed)
    with pytest.raises(InvalidArgumentError, match=WHY):
        SmigTools(build_services()).commit_migration(make.TOOLS, "gpt-5.5", to=["crush"])


def test_every_cli_choice_names_crush_as_a_source_and_none_as_a_destination(
    capsys: pytest.CaptureFixture[str],
) -> None:
    listed = _parsed(capsys, "list", "--help")[1]
    assert ",crush," in listed[listed.index("--agent {") : listed.index("}")].replace("{", ",")
    assert "crush" not in _parsed(capsys, "migrate", "--help")[1].lower()
    assert "crush" not in _parsed(capsys, "plan", "--help")[1].lower()
    assert "crush" not in _parsed(capsys, "memory", "--help")[1].lower()
    profile = registry.profile_of("crush")
    assert profile is not None and profile.name == "Crush" and profile.writer is None
    assert profile.hand_to == "claude" and profile.memory is None and profile.program is None


async def test_the_tui_tree_shows_crush_once_it_has_sessions_and_no_dialog_offers_it(
    isolated_homes: dict[str, Path],
) -> None:
    from smig_tui.tui import backend
    from smig_tui.tui.screens.commit import native_choices

    assert not any(label.startswith("Crush") for label in await source_tree_labels())  # no sessions: no node
    install(isolated_homes["home"])
    assert "Crush (4)" in await source_tree_labels()
    assert "crush" not in {key for key, _ in native_choices()}
    services = build_services()
    session = services.load_session(services.find_session(make.TOOLS))
    _preview, choices, plans = backend.commit_preview(services, session, services.plan(session, "gpt-5.5"))
    assert "crush" not in choices and "crush" not in plans and backend.default_native(session) == "claude"
