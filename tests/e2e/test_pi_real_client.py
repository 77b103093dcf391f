"""Pi coding agent 0.73.1, the real client, resumes what smig writes for it; its sessions migrate to the others.

Into Pi: a Codex and a Gemini CLI recorded session (every other agent's is the matrix's) go through
`smig migrate --to pi` in a lived-in home (Pi ran in the project before, and the user's own session
there is newer than the conversation migrated). Then `pi -c` (continue the latest) must continue the
migration, and `pi --session ID` too, each request carrying the handoff note, the first and last kept
text and the new prompt last; Pi's picker (`pi -r`) lists the migration first, by the name smig gave it,
and opening it sends the same turns.

Out of Pi: the real-client matrix (test_matrix_real_clients.py) migrates the recorded Pi session (a shell
call, a file read, a failed call) to every other agent, whose real client resumes it carrying its text.

Memory: after `smig memory sync`, Pi's request carries the line naming the bundle, and the bundle's
text reaches the model when it reads the file with its own `read` tool.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from drivers import PROMPT, Servers
from drivers import pi as pi_driver
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer
from pi_client import pi_binary, pi_env, run_pi
from real_clients import assert_continues, escaped, last_tool_turn, migrate_into_lived_in, smig_json, tool_turns
from recording import system_text
from terminal import Terminal

pytestmark = pytest.mark.e2e

SOURCES = ["codex", "gemini"]
"""Two sources in lived-in homes; every other agent's recorded session into this client is the matrix's
(test_matrix_real_clients.py), so the lived-in run, continue, resume by id and listing need not repeat per source."""


@pytest.fixture(scope="module")
def gemini_server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as server:
        yield server


def _lived_in(home: Path, project: Path) -> None:
    """Pi has run in the project: the user's own session is there."""
    with FakeModelServer() as server:
        run_pi(home, project, server, "-p", "USER-OWN: hello")


def _migrate(source: str, homes: dict[str, Path], project: Path, tmp_path: Path) -> dict[str, Any]:
    """`source`'s recorded session into Pi, in a project Pi ran in just before."""
    return migrate_into_lived_in("pi", "claude-sonnet-4-5", source, homes, project, tmp_path, _lived_in)


@pytest.mark.parametrize("source", SOURCES)
def test_pi_continues_and_resumes_a_migration_in_a_lived_in_home(
    source: str, isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    pi_binary()  # skips when Pi is not installed
    project = tmp_path / "osprey-app"
    project.mkdir()
    home = isolated_homes["home"]
    result = _migrate(source, isolated_homes, project, tmp_path)
    [written] = [entry for entry in result["files"] if entry["destination"] == "pi" and entry.get("session_id")]
    [latest] = result["continue_latest"]
    assert latest["migration"] and latest["command"] == "pi -c", latest  # smig says `pi -c` picks it

    with FakeModelServer() as server:
        run_pi(home, project, server, "-c", "-p", "AFTER-MIGRATION: go on")
        assert_continues(last_tool_turn(server, "Pi"), result, "AFTER-MIGRATION: go on")
    with FakeModelServer() as server:
        run_pi(home, project, server, "--session", written["session_id"], "-p", "BY-ID: once more")
        body = last_tool_turn(server, "Pi")
    assert_continues(body, result, "BY-ID: once more")
    assert "AFTER-MIGRATION: go on" in json.dumps(body, ensure_ascii=False)
    assert "USER-OWN" not in json.dumps(body, ensure_ascii=False)
    # smig lists the session the client went on with first, and reads what the client appended
    rows = smig_json("list", "--agent", "pi")
    assert rows[0]["id"] == written["session_id"] and rows[0]["title"].startswith("↪ from ")
    shown = smig_json("show", written["session_id"])["messages"]
    assert [m["text"] for m in shown if m["role"] == "user"][-1] == "BY-ID: once more"


def test_pis_picker_lists_the_migration_first_and_opens_it(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    pi_binary()
    project = tmp_path / "osprey-app"
    project.mkdir()
    home = isolated_homes["home"]
    result = _migrate("gemini", isolated_homes, project, tmp_path)
    with FakeModelServer() as server:
        env = pi_env(home, server)
        env.pop("CI", None)
        terminal = Terminal([pi_binary(), "-r"], project, env)
        try:
            terminal.wait_for(lambda: "from gemini" in terminal.text() and "USER-OWN" in terminal.text(), "the picker")
            screen = terminal.text()
            assert screen.index("from gemini") < screen.index("USER-OWN"), screen
            terminal.type("\r")
            terminal.wait_for(terminal.shows("fake-coder"), "the client's prompt")
            terminal.type_until("PICKED: go on", terminal.shows("PICKED: go on"), "the prompt to be typed")
            terminal.type_until("\r", server.answered.is_set, "the client's request", attempt=10.0)
        finally:
            terminal.close()
        assert_continues(last_tool_turn(server, "Pi"), result, "PICKED: go on")


def test_the_driver_resumes_what_smig_wrote_for_pi(
    isolated_homes: dict[str, Path], tmp_path: Path, gemini_server: FakeGeminiServer
) -> None:
    """The matrix's use of Pi as source and receiver at once: its own session, migrated to Pi again."""
    pi_binary()
    project = tmp_path / "osprey-app"
    project.mkdir()
    session_id = pi_driver.install_source(isolated_homes, project, tmp_path)
    with FakeModelServer() as server:
        servers = Servers(server, gemini_server)
        pi_driver.prepare_receiver(isolated_homes, servers)
        result = smig_json("migrate", session_id, "--target", pi_driver.TARGET, "--to", "pi", "--cwd", str(project))
        [written] = [e for e in result["files"] if e["destination"] == "pi" and e.get("session_id")]
        sent = json.dumps(pi_driver.resume(written["session_id"], isolated_homes, project, servers), ensure_ascii=False)
    assert escaped(result["migration_id"]) in sent and escaped("codename: OSPREY") in sent
    assert sent.rfind(escaped(PROMPT)) > sent.find(escaped("TOOLS-2: which?"))


def test_pi_reads_the_other_agents_memory_after_a_sync(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    """The line smig adds to Pi's AGENTS.md reaches the system prompt; the bundle reaches the model when read."""
    pi_binary()
    project = tmp_path / "osprey-app"
    project.mkdir()
    home = isolated_homes["home"]
    _lived_in(home, project)  # Pi is set up here
    agent = home / ".pi" / "agent"
    (agent / "AGENTS.md").write_text("# Mine\n- PI-OWN-NOTE: tabs, not spaces.\n", encoding="utf-8")
    codex_memory = isolated_homes["codex"] / "memories"
    codex_memory.mkdir(parents=True)
    (codex_memory / "memory_summary.md").write_text("# Profile\n- CODEX-MEMORY-7: deploys on Fridays.\n")
    smig_json("memory", "sync", "--to-pi")
    bundle = agent / "smig_memory.md"
    with FakeModelServer([{"name": "read", "args": {"path": str(bundle)}}]) as server:
        run_pi(home, project, server, "-p", "MEMORY: what do you know?")
        first, second = tool_turns(server)[:2]
    system = system_text(first)
    assert "PI-OWN-NOTE" in system and str(bundle) in system  # the user's file, with smig's line naming the bundle
    assert "CODEX-MEMORY-7: deploys on Fridays." in json.dumps(second["messages"][-1], ensure_ascii=False)


@pytest.mark.parametrize("where", ["global", "project"])
def test_pi_resumes_a_migration_written_in_the_folder_its_settings_name(
    where: str, isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """`sessionDir` in Pi's global `settings.json` (`~/…`) or the project's `.pi/settings.json` (relative: the
    project's own folder) moves every session there: smig writes the migration where Pi looks, `pi -c`
    continues it, and smig lists it."""
    pi_binary()
    project = tmp_path / "osprey-app"
    project.mkdir()
    home = isolated_homes["home"]
    if where == "global":
        settings, folder, expected = home / ".pi" / "agent" / "settings.json", "~/pi-sessions", home / "pi-sessions"
    else:
        settings, folder, expected = project / ".pi" / "settings.json", ".pi/sessions", project / ".pi" / "sessions"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"sessionDir": folder}), encoding="utf-8")
    result = _migrate("codex", isolated_homes, project, tmp_path)  # Pi ran there first: its own session too
    [written] = [entry for entry in result["files"] if entry["destination"] == "pi" and entry.get("session_id")]
    assert Path(written["path"]).parent == expected
    assert {path.name for path in expected.glob("*.jsonl")} >= {Path(written["path"]).name}
    assert not (home / ".pi" / "agent" / "sessions").exists()  # Pi itself wrote nothing in the default folder
    with FakeModelServer() as server:
        run_pi(home, project, server, "-c", "-p", "AFTER-MIGRATION: go on")
        assert_continues(last_tool_turn(server, "Pi"), result, "AFTER-MIGRATION: go on")
    if where == "global":  # a folder for every project: smig lists it wherever it runs
        assert smig_json("list", "--agent", "pi")[0]["id"] == written["session_id"]
    else:  # the project's own folder: found through the project folders smig knows (its settings read there)
        written_by_pi = {path.stem.split("_", 1)[1] for path in expected.glob("*.jsonl")}
        assert len(written_by_pi) >= 2  # the user's own session the real Pi wrote there, and the migration
        assert written_by_pi <= {row["id"] for row in smig_json("list", "--agent", "pi")}
