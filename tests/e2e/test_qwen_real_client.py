"""Qwen Code 0.24.4, the real client, resumes what smig writes for it; its sessions migrate to the others.

Into Qwen Code: a Codex and a Gemini CLI recorded session (every other agent's is the matrix's) go
through `smig migrate --to qwen` in a lived-in home (Qwen Code ran in the project before, and the user's
own session there is newer than the conversation migrated). Then `qwen -c` (continue the latest) must
continue the migration, and `qwen --resume ID` too, each request carrying the handoff note, the first
and last kept text and the new prompt last; the client's picker (`qwen --resume` in its terminal UI)
lists the migration first, by the title smig gave it, and opening it sends the same turns.

Out of Qwen Code, and Qwen Code resuming each other agent's session as it is and truncated, is the
real-client matrix's (tests/e2e/test_matrix_real_clients.py, through drivers/qwen.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_model_server import FakeModelServer
from qwen_client import qwen_binary, qwen_env, run_qwen
from real_clients import assert_continues, last_tool_turn, migrate_into_lived_in, smig_json
from terminal import Terminal

pytestmark = pytest.mark.e2e

SOURCES = ["codex", "gemini"]
"""Two sources in lived-in homes; every other agent's recorded session into this client is the matrix's
(test_matrix_real_clients.py), so the lived-in run, continue, resume by id and listing need not repeat per source."""


def _lived_in(home: Path, project: Path) -> None:
    """Qwen Code has run in the project: the user's own session is there."""
    with FakeModelServer() as server:
        run_qwen(home, project, server, "USER-OWN: hello")


def _migrate(source: str, homes: dict[str, Path], project: Path, tmp_path: Path) -> dict[str, Any]:
    """`source`'s recorded session into Qwen Code, in a project Qwen Code ran in just before."""
    return migrate_into_lived_in("qwen", "qwen3-coder-plus", source, homes, project, tmp_path, _lived_in)


@pytest.mark.parametrize("source", SOURCES)
def test_qwen_code_continues_and_resumes_a_migration_in_a_lived_in_home(
    source: str, isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    qwen_binary()  # skips when Qwen Code is not installed
    project = tmp_path / "osprey-app"
    project.mkdir()
    home = isolated_homes["home"]
    result = _migrate(source, isolated_homes, project, tmp_path)
    [written] = [entry for entry in result["files"] if entry["destination"] == "qwen" and entry.get("session_id")]
    [latest] = result["continue_latest"]
    assert latest["migration"], latest  # smig says `qwen -c` picks it

    with FakeModelServer() as server:
        run_qwen(home, project, server, "-c", "AFTER-MIGRATION: go on")
        assert_continues(last_tool_turn(server, "Qwen Code"), result, "AFTER-MIGRATION: go on")
    with FakeModelServer() as server:
        run_qwen(home, project, server, "--resume", written["session_id"], "BY-ID: once more")
        body = last_tool_turn(server, "Qwen Code")
    assert_continues(body, result, "BY-ID: once more")
    assert "AFTER-MIGRATION: go on" in json.dumps(body, ensure_ascii=False)
    # smig lists the session the client went on with first, and reads what the client appended
    rows = smig_json("list", "--agent", "qwen")
    assert rows[0]["id"] == written["session_id"] and rows[0]["title"].startswith("↪ from ")


def test_qwen_codes_picker_lists_the_migration_first_and_opens_it(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    qwen_binary()
    project = tmp_path / "osprey-app"
    project.mkdir()
    home = isolated_homes["home"]
    result = _migrate("gemini", isolated_homes, project, tmp_path)
    with FakeModelServer() as server:
        env = qwen_env(home, server)
        env.pop("CI", None)
        terminal = Terminal([qwen_binary(), "--resume"], project, env)
        try:
            terminal.wait_for(lambda: "from gemini" in terminal.text() and "USER-OWN" in terminal.text(), "the picker")
            screen = terminal.text()
            assert screen.index("from gemini") < screen.index("USER-OWN"), screen
            terminal.type("\r")
            terminal.wait_for(terminal.shows("Type your message"), "the client's prompt")
            terminal.type_until("PICKED: go on", terminal.shows("PICKED: go on"), "the prompt to be typed")
            terminal.type_until("\r", server.answered.is_set, "the client's request", attempt=10.0)
        finally:
            terminal.close()
        assert_continues(last_tool_turn(server, "Qwen Code"), result, "PICKED: go on")


def test_qwen_code_reads_the_other_agents_memory_after_a_sync(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    """The bundle reaches the model through the `@./smig_memory.md` import smig adds to `QWEN.md`."""
    qwen_binary()
    project = tmp_path / "osprey-app"
    project.mkdir()
    home = isolated_homes["home"]
    _lived_in(home, project)  # Qwen Code is set up here
    (home / ".qwen" / "QWEN.md").write_text("# Mine\n- QWEN-OWN-NOTE: tabs, not spaces.\n", encoding="utf-8")
    codex_memory = isolated_homes["codex"] / "memories"
    codex_memory.mkdir(parents=True)
    (codex_memory / "memory_summary.md").write_text("# Profile\n- CODEX-MEMORY-7: deploys on Fridays.\n")
    smig_json("memory", "sync", "--to-qwen")
    with FakeModelServer() as server:
        run_qwen(home, project, server, "MEMORY: what do you know?")
        sent = json.dumps(last_tool_turn(server, "Qwen Code"), ensure_ascii=False)
    assert "CODEX-MEMORY-7: deploys on Fridays." in sent and "QWEN-OWN-NOTE" in sent
    assert "@./smig_memory.md" not in sent  # inlined, not passed on as text
