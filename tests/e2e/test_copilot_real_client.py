"""GitHub Copilot CLI 1.0.102, the real client, resumes what smig writes for it; its sessions migrate to the others.

Into Copilot: a Codex and a Gemini CLI recorded session (every other agent's is the matrix's) go through
`smig migrate --to copilot` in a lived-in home (Copilot ran in the project before, and the user's own
session there is newer than the conversation migrated). `copilot --continue` must continue the
migration, as smig's continue-latest fact says, and `copilot --resume ID` too: each request carries the
handoff note, the first and last kept text, and the new prompt last. Copilot's picker (`copilot
--resume` in its terminal UI) lists the migration above the user's own session and opening it sends the
same turns.

Out of Copilot: the real-client matrix (test_matrix_real_clients.py) migrates the recorded `tools` session
to every other agent, whose real client resumes it carrying the texts `drivers/copilot.py` lists.
Memory: after `smig memory sync`, the other agents' memory is in Copilot's request.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from copilot_client import copilot_binary, copilot_env, run_copilot
from drivers import Servers
from drivers import copilot as driver
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer
from real_clients import assert_continues, install_source, last_tool_turn, migrate_into_lived_in, smig_json
from terminal import Terminal

pytestmark = pytest.mark.e2e

SOURCES = ["codex", "gemini"]
"""Two sources in lived-in homes; every other agent's recorded session into this client is the matrix's
(test_matrix_real_clients.py), so the lived-in run, continue, resume by id and listing need not repeat per source."""
ALLOW = "--allow-all-tools"


@pytest.fixture(scope="module")
def gemini_server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as server:
        yield server


def _lived_in(home: Path, project: Path) -> None:
    """Copilot has run in the project: the user's own session is there, and the folder is trusted."""
    config = home / ".copilot" / "config.json"
    if not config.exists():
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({"trustedFolders": [str(project)]}), encoding="utf-8")
    with FakeModelServer() as server:
        run_copilot(home, project, server, "-p", "USER-OWN: hello", ALLOW)


def _migrate(source: str, homes: dict[str, Path], project: Path, tmp_path: Path) -> dict[str, Any]:
    """`source`'s recorded session into Copilot, in a project Copilot ran in just before."""
    return migrate_into_lived_in("copilot", "claude-sonnet-5-5", source, homes, project, tmp_path, _lived_in)


@pytest.mark.parametrize("source", SOURCES)
def test_copilot_continues_and_resumes_a_migration_in_a_lived_in_home(
    source: str, isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    copilot_binary()  # skips when Copilot CLI is not installed
    project = tmp_path / "osprey-app"
    project.mkdir()
    home = isolated_homes["home"]
    result = _migrate(source, isolated_homes, project, tmp_path)
    [written] = [entry for entry in result["files"] if entry["destination"] == "copilot" and entry.get("session_id")]
    [latest] = result["continue_latest"]
    assert latest["migration"] and latest["command"] == "copilot --continue", latest

    with FakeModelServer() as server:
        run_copilot(home, project, server, "--continue", "-p", "AFTER-MIGRATION: go on", ALLOW)
        assert_continues(last_tool_turn(server, "Copilot CLI"), result, "AFTER-MIGRATION: go on")
    with FakeModelServer() as server:
        run_copilot(home, project, server, "--resume", written["session_id"], "-p", "BY-ID: once more", ALLOW)
        body = last_tool_turn(server, "Copilot CLI")
    assert_continues(body, result, "BY-ID: once more")
    assert "AFTER-MIGRATION: go on" in json.dumps(body, ensure_ascii=False)
    # smig lists the session the client went on with first, and reads what the client appended
    rows = smig_json("list", "--agent", "copilot")
    assert rows[0]["id"] == written["session_id"] and rows[0]["title"].startswith("↪ from ")
    shown = smig_json("show", written["session_id"])["messages"]
    assert [m["text"] for m in shown if m["role"] == "user"][-1] == "BY-ID: once more"


def test_copilots_picker_lists_the_migration_above_the_users_own_and_opens_it(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    copilot_binary()
    project = tmp_path / "osprey-app"
    project.mkdir()
    home = isolated_homes["home"]
    result = _migrate("gemini", isolated_homes, project, tmp_path)
    with FakeModelServer() as server:
        env = copilot_env(home, server)
        env.pop("CI", None)
        terminal = Terminal([copilot_binary(), "--resume"], project, env)
        try:
            terminal.wait_for(lambda: "from gemini" in terminal.text() and "USER-OWN" in terminal.text(), "the picker")
            screen = terminal.text()
            assert screen.index("from gemini") < screen.index("USER-OWN"), screen
            terminal.type("\x1b[B\r")  # the picker's first entry is the new session it started
            terminal.wait_for(terminal.shows("/ commands"), "the client's prompt")
            terminal.type_until("PICKED: go on", terminal.shows("PICKED: go on"), "the prompt to be typed")
            terminal.type_until("\r", server.answered.is_set, "the client's request", attempt=10.0)
        finally:
            terminal.close()
        assert_continues(last_tool_turn(server, "Copilot CLI"), result, "PICKED: go on")


def test_the_driver_resumes_a_migration_into_copilot(
    isolated_homes: dict[str, Path], tmp_path: Path, gemini_server: FakeGeminiServer
) -> None:
    """The matrix's driver, end to end: a Qwen Code session into Copilot, resumed through `driver.resume`."""
    copilot_binary()
    project = tmp_path / "osprey-app"
    project.mkdir()
    session_id = install_source("qwen", isolated_homes, project, tmp_path)
    result = smig_json("migrate", session_id, "--target", driver.TARGET, "--to", driver.AGENT, "--cwd", str(project))
    [written] = [e for e in result["files"] if e["destination"] == "copilot" and e.get("session_id")]
    with FakeModelServer() as server:
        servers = Servers(server, gemini_server)
        driver.prepare_receiver(isolated_homes, servers)
        body = driver.resume(written["session_id"], isolated_homes, project, servers)
    assert_continues(body, result, "continue")


def test_copilot_reads_the_other_agents_memory_after_a_sync(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    """The bundle reaches the model as one of Copilot's own global instruction files."""
    copilot_binary()
    project = tmp_path / "osprey-app"
    project.mkdir()
    home = isolated_homes["home"]
    _lived_in(home, project)  # Copilot is set up here
    (home / ".copilot" / "copilot-instructions.md").write_text("# Mine\n- COPILOT-OWN-NOTE: tabs.\n", "utf-8")
    codex_memory = isolated_homes["codex"] / "memories"
    codex_memory.mkdir(parents=True)
    (codex_memory / "memory_summary.md").write_text("# Profile\n- CODEX-MEMORY-7: deploys on Fridays.\n")
    smig_json("memory", "sync", "--to-copilot")
    with FakeModelServer() as server:
        run_copilot(home, project, server, "-p", "MEMORY: what do you know?", ALLOW)
        sent = json.dumps(last_tool_turn(server, "Copilot CLI"), ensure_ascii=False)
    assert "CODEX-MEMORY-7: deploys on Fridays." in sent and "COPILOT-OWN-NOTE" in sent
