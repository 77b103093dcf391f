"""Copilot CLI 1.0.102, interactive, asks before smig's writer runs: declined it writes nothing, approved it commits.

`copilot -p` cannot ask, so it refuses `commit_migration` unless a flag allows it (test_mcp_real_clients.py);
this drives the other half, the terminal UI a user sits at. smig is set up by `smig mcp --install copilot`
alone, in a temp `COPILOT_HOME`, and one session of the real client runs against the scripted fake model:
it lists the sessions and previews the migration (read-only: no prompt), then calls `commit_migration`.
Copilot shows its approval dialog; the test declines with a word for the model (option 3, which keeps the
turn going), checks that nothing reached smig's storage or Codex's home and that the model read the
refusal, then approves the model's second call (Enter on "1. Yes") and checks the migration, its result
as the model read it, and the Codex session it wrote. One user prompt, five model requests.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_runner import smig

sys.path.insert(0, str(Path(__file__).parent))
from copilot_client import copilot_binary, copilot_env
from fake_model_server import REPLY, FakeModelServer
from mcp_clients import anthropic_results_by_call, base_env, copilot_home, install, parsed
from terminal import Terminal

from smig_tui.mcp.tools import SmigTools
from smig_tui.services import build_services

pytestmark = pytest.mark.e2e

SESSION = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"
"""The Claude fixture session in /home/user/proj (tests/fixtures/claude_home)."""
TINY = "tiny-test"
COMMIT = {"session_id": SESSION, "target_model": TINY, "to": ["store", "codex"]}
ASKS = "Do you want to use this tool?"
"""The question under the tool's name and arguments in Copilot's approval dialog."""
DECLINE = "3. No, and tell Copilot what to do differently (Esc to stop)"
HINTS = "↑/↓ to navigate · enter to select · esc to cancel"
FEEDBACK = "NOT-YET: check the plan first"
PROMPT = "APPROVAL: hand this session to codex"


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its size and mtime: what a write would change."""
    return {
        str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in folder.rglob("*")
        if path.is_file()
    }


def _asking(terminal: Terminal) -> bool:
    """Whether Copilot's approval dialog is on the screen whole, "1. Yes" selected (Ink draws it in parts)."""
    screen = terminal.text()
    return all(part in screen for part in (ASKS, "❯ 1. Yes", DECLINE, HINTS))


def _turns(server: FakeModelServer) -> list[dict[str, Any]]:
    """The agent's requests so far (those offering tools), in order."""
    return [body for body in server.bodies("/messages") if body.get("tools")]


def _results(server: FakeModelServer) -> list[str]:
    """Each tool call's result as the model first read it, in call order."""
    first: dict[str, str] = {}
    for body in _turns(server):
        for call, text in anthropic_results_by_call(body):
            first.setdefault(call, text)
    return list(first.values())


def test_copilot_asks_before_smig_commits_then_writes_nothing_when_declined_and_commits_when_approved(
    fake_home: dict[str, Path], tmp_path: Path
) -> None:
    binary = copilot_binary()  # skips when Copilot CLI is not installed
    project = tmp_path / "project"
    project.mkdir()
    (fake_home["smig"] / "config").mkdir(parents=True)
    (fake_home["smig"] / "config" / "config.toml").write_text(
        f'[models."{TINY}"]\ncontext_window = 400\n', encoding="utf-8"
    )
    codex_before = _files(fake_home["codex"])
    steps = [
        {"name": "smig-list_sessions", "args": {"agent": "claude", "limit": 5}},
        {"name": "smig-preview_migration", "args": {"session_id": SESSION, "target_model": TINY, "to": "codex"}},
        {"name": "smig-commit_migration", "args": COMMIT},  # declined
        {"name": "smig-commit_migration", "args": COMMIT},  # approved
    ]
    with FakeModelServer(steps) as server:
        env = (
            copilot_env(fake_home["home"], server)
            | base_env(fake_home)
            | {"COPILOT_HOME": str(copilot_home(fake_home))}
        )
        env.pop("CI", None)  # the terminal UI, as a user runs it
        install("copilot")(env)
        # Copilot asks once whether to trust a folder; config.json keeps the answer (as answering would)
        (copilot_home(fake_home) / "config.json").write_text(
            json.dumps({"trustedFolders": [str(project)]}), encoding="utf-8"
        )
        terminal = Terminal([binary], project, env)
        try:
            terminal.wait_for(terminal.shows("/ commands"), "the client's prompt")
            terminal.type_until(PROMPT, terminal.shows(PROMPT), "the prompt to be typed")
            terminal.type_until("\r", server.answered.is_set, "the client's first request", attempt=10.0)
            # a writer run without asking would bring a third result: fail then, not at the time limit
            terminal.wait_for(lambda: _asking(terminal) or len(_results(server)) > 2, "the first approval dialog")
            asked = terminal.text()
            assert _asking(terminal), asked
            # the read-only tools ran without a dialog: the first one Copilot shows is the writer's
            assert "│ commit migration" in asked and f'"session_id": "{SESSION}"' in asked, asked
            assert "list sessions (MCP: smig)" in asked and "preview migration (MCP: smig)" in asked, asked
            assert len(_results(server)) == 2  # both read-only results had reached the model before it asked

            terminal.type("3")  # option 3 is a line to type what the model should do instead
            terminal.wait_for(terminal.shows(f"❯ {DECLINE}"), "option 3 to be selected")
            terminal.type_until(FEEDBACK, terminal.shows(FEEDBACK), "the feedback to be typed")
            terminal.type("\r")
            terminal.wait_for(lambda: len(_results(server)) == 3, "the refusal to reach the model")
            terminal.wait_for(lambda: _asking(terminal), "the second approval dialog")
            # the model's second call waits on the dialog: nothing has been written, by either call
            assert not (fake_home["smig"] / "data").exists()
            assert _files(fake_home["codex"]) == codex_before

            # Enter on "1. Yes", selected when the dialog opens, approves this call once (an Enter typed again
            # while the commit runs lands in the empty prompt, which ignores it)
            terminal.type_until("\r", lambda: not _asking(terminal), "the dialog to close on approval")
            terminal.wait_for(lambda: len(_results(server)) == 4, "the commit's result to reach the model")
            terminal.wait_for(terminal.shows(f"● {REPLY}"), "the model's last reply")
        finally:
            terminal.close()

    config = json.loads((copilot_home(fake_home) / "mcp-config.json").read_text(encoding="utf-8"))
    assert config["mcpServers"]["smig"]["args"] == ["mcp"] and not (fake_home["home"] / ".copilot").exists()
    listed, preview, refused, committed = _results(server)
    assert {s["id"] for s in parsed(listed)["sessions"]} >= {SESSION}
    assert parsed(preview)["session_id"] == SESSION
    assert refused == f"The user rejected this tool call. User feedback: {FEEDBACK}", refused
    # the commit's result reached the model whole: the one JSON document smig sent, nothing cut or added
    result = parsed(committed)
    assert committed == json.dumps(result, ensure_ascii=False, separators=(",", ":"))
    assert not result["dry_run"] and result["decision"] == parsed(preview)["decision"]
    assert Path(result["record_path"]).is_relative_to(fake_home["smig"])
    assert Path(result["record_path"]).is_file()
    assert SmigTools(build_services()).get_handoff("/home/user/proj")["id"] == result["migration_id"]
    # the receiving agent's session: written in Codex's home, and smig reads it back
    [written] = [entry for entry in result["files"] if entry["destination"] == "codex"]
    assert Path(written["path"]).is_file() and Path(written["path"]).is_relative_to(fake_home["codex"])
    assert set(_files(fake_home["codex"])) - set(codex_before) == {
        str(Path(written["path"]).relative_to(fake_home["codex"]))
    }
    code, out, err = smig("show", written["session_id"], "--json")
    assert code == 0, err
    assert json.loads(out)["messages"], out
