"""A fifth agent plugs in through the `smig.agents` entry point alone, and every front end follows.

`tests/plugin_agent/` is a package as a third party would ship it: Wren (id `wren`), with its own session
format, writer, window rule, overhead and memory. The fixture installs it the way pip does (a
`*.dist-info/entry_points.txt` on `sys.path`); no other file names Wren. The CLI and the MCP schemas
are read in fresh processes, so they find it exactly as a user's `smig` would; the TUI's tree and commit
dialog are driven in process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Markdown

from smig_tui.adapters.agents import registry
from smig_tui.core import agent_rules
from smig_tui.services import build_services
from smig_tui.tui import backend
from smig_tui.tui.screens.commit import native_choices
from smig_tui.tui.screens.help import HelpModal
from smig_tui.tui.widgets.source_tree import SourceTree

BUILT_INS = ["codex", "claude", "gemini", "opencode", "qwen", "kilo", "crush", "copilot", "pi", "aider"]

TESTS = Path(__file__).parent
WREN_SESSION = """wren-session 1
id: wren-0001
cwd: {cwd}
title: Tame the wren
model: gpt-5.5
updated: 2026-11-30T10:00:00Z

>>> user
How do I feed a wren?
>>> assistant
Mealworms, mostly; a shallow dish works best.
"""
NOTES = "# Wren notes\n- The user keeps wrens; mention mealworms.\n"


@pytest.fixture
def wren(fake_home: dict[str, Path], tmp_path: Path) -> Iterator[dict[str, str]]:
    """Wren installed (its distribution's entry point on `sys.path`), with one session and its notes;
    yields the environment a fresh `smig` process finds it in."""
    site = tmp_path / "site"
    dist = site / "smig_wren-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: smig-wren\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[smig.agents]\nwren = plugin_agent:PROFILE\n")
    home = fake_home["home"] / ".wren"
    (home / "sessions").mkdir(parents=True)
    (home / "sessions" / "wren-0001.wren").write_text(WREN_SESSION.format(cwd=tmp_path))
    (home / "notes.md").write_text(NOTES)
    sys.path.insert(0, str(site))
    registry.load()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(TESTS)])}
    try:
        yield env
    finally:
        sys.path.remove(str(site))
        registry.load()


def _smig(env: dict[str, str], *argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "smig_tui", *argv], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _choices(env: dict[str, str], *command: str) -> str:
    return _smig(env, *command, "--help")


def test_the_entry_point_adds_wren_after_the_built_in_agents(wren: dict[str, str]) -> None:
    assert [entry.id for entry in registry.AGENTS] == [*BUILT_INS, "wren"]
    assert agent_rules.agent_ids()[-1] == "wren" and agent_rules.usable_window("wren", 100_000) == 80_000
    assert not registry.PROBLEMS


def test_it_lists_shows_plans_and_exports_from_the_cli(wren: dict[str, str]) -> None:
    listed = json.loads(_smig(wren, "list", "--agent", "wren", "--json"))
    assert [(s["id"], s["agent"], s["title"]) for s in listed] == [("wren-0001", "wren", "Tame the wren")]
    shown = json.loads(_smig(wren, "show", "wren-0001", "--json"))
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"]
    plan = json.loads(_smig(wren, "plan", "wren-0001", "--target", "gpt-5.5", "--to", "wren", "--json"))
    assert plan["decision"]["fits"] and plan["agent_overhead"]["agent"] == "wren"
    assert plan["decision"]["overhead"] == 1_234  # Wren's own figure, from its profile
    exported = _smig(wren, "export", "wren-0001", "--format", "markdown")
    assert "Mealworms, mostly" in exported


def test_it_migrates_as_a_source_and_as_a_destination(wren: dict[str, str], fake_home: dict[str, Path]) -> None:
    out = _smig(wren, "migrate", "wren-0001", "--target", "claude-sonnet-5-5", "--to", "claude")
    assert "resume:" in out and "claude --resume" in out
    codex = json.loads(_smig(wren, "list", "--agent", "codex", "--json"))[0]
    out = _smig(wren, "migrate", codex["id"], "--target", "gpt-5.5", "--to", "wren")
    written = list((fake_home["home"] / ".wren" / "sessions").glob("wren-*.wren"))
    assert len(written) == 2 and "wren --resume" in out
    listed = json.loads(_smig(wren, "list", "--agent", "wren", "--json"))
    assert {s["cwd"] for s in listed} >= {codex["cwd"]}


def test_memory_sync_gives_wren_the_others_memory_and_carries_its_notes(
    wren: dict[str, str], fake_home: dict[str, Path]
) -> None:
    codex_memory = fake_home["codex"] / "memories"
    codex_memory.mkdir(parents=True)
    (codex_memory / "memory_summary.md").write_text("# Profile\n- prefers uv\n")
    _smig(wren, "memory", "sync")
    home = fake_home["home"] / ".wren"
    bundle = (home / "smig_memory.md").read_text()
    assert "prefers uv" in bundle and "Also read" in (home / "notes.md").read_text()
    assert "mention mealworms" in (codex_memory / "claude_code_smig.md").read_text()  # Wren's notes reach Codex


def test_every_cli_choice_names_wren(wren: dict[str, str]) -> None:
    assert "--agent {codex,claude,gemini,opencode,qwen,kilo,crush,copilot,pi,aider,wren}" in _choices(wren, "list")
    assert "--to {store,claude,codex,gemini,opencode,qwen,kilo,copilot,pi,aider,wren,markdown,json}" in _choices(
        wren, "migrate"
    )
    assert "(claude, codex, gemini, opencode, qwen, kilo, copilot, pi, aider, wren;" in " ".join(
        _choices(wren, "plan").split()
    )
    assert "--to-wren" in _choices(wren, "memory")


def test_the_mcp_schemas_and_prompts_name_wren_and_know_its_client(wren: dict[str, str]) -> None:
    script = (
        "import json; from smig_tui.mcp.schemas import TOOLS; from smig_tui.mcp.prompts import PROMPTS; "
        "from smig_tui.mcp.handoffs import caller_agent; "
        "print(json.dumps({'tools': {t['name']: t['inputSchema']['properties'] for t in TOOLS}, 'prompt': PROMPTS[0], "
        "'callers': [caller_agent({'name': name}) for name in ('Wren-CLI', 'claude-code', 'codex-mcp-client', 'x')]}))"
    )
    done = subprocess.run([sys.executable, "-c", script], env=wren, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    tools = found["tools"]
    assert tools["list_sessions"]["agent"]["enum"][-1] == "wren"
    assert "wren" in tools["commit_migration"]["to"]["items"]["enum"]
    assert "wren" in tools["memory_sync"]["to"]["items"]["enum"]
    assert "Kilo Code, Crush, Copilot CLI, Pi, Aider or Wren)" in found["prompt"]["description"]
    assert found["prompt"]["arguments"][0]["description"].startswith(
        "Whose session: claude, codex, gemini, opencode, qwen, kilo, copilot, pi, aider, crush or wren."
    )
    assert found["callers"] == ["wren", "claude", "codex", None]


async def test_the_tui_tree_and_commit_dialog_show_wren(wren: dict[str, str], tmp_path: Path) -> None:
    services = build_services()
    sessions = services.list_sessions()

    class TreeApp(App[None]):
        def compose(self) -> ComposeResult:
            yield SourceTree(here=None, id="tree")

    async with TreeApp().run_test() as pilot:
        tree = pilot.app.query_one(SourceTree)
        tree.add_sessions(sessions)
        await pilot.pause()
        labels = [str(node.label) for node in tree.root.children]
    assert labels[-1] == "Wren (1)"
    assert ("wren", "Wren session") in native_choices()
    async with TreeApp().run_test() as pilot:
        pilot.app.push_screen(HelpModal([]))
        await pilot.pause()
        help_text = pilot.app.screen.query_one(Markdown).source
    assert "OpenCode, Qwen Code, Kilo Code, Crush, Copilot CLI, Pi, Aider and Wren) to another" in help_text
    session = services.load_session(services.find_session("wren-0001"))
    plan = services.plan(session, "gpt-5.5")
    _preview, choices, plans = backend.commit_preview(services, session, plan)
    assert "wren" in choices and backend.default_native(session) == "claude"
    assert plans["wren"][0].decision.overhead == 1_234  # planned for Wren with its own overhead
