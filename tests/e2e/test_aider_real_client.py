"""Aider 0.86.2, the real client, restores what smig writes for it; its histories migrate to the six others.

Into Aider: a Codex and a Gemini CLI recorded session (every other agent's is the matrix's) go through
`smig migrate --to aider` into a lived-in project (the user already chatted with Aider there, so the
project has its own `.aider.chat.history.md`). The command the migration records (`aider
--restore-chat-history --chat-history-file .aider.smig-ID.chat.history.md`) must send the model the
migration (the handoff note, the first and last kept text, the new prompt after them) and none of the
user's own history; the user's file is never written by smig (Aider appends its own run to it, nothing
else changes); and a plain `aider --restore-chat-history` still restores the user's own history, as the
commit's continue-latest fact says.

Out of Aider: the real-client matrix (test_matrix_real_clients.py) migrates the recorded `chat` history to
every other agent, whose real client resumes it carrying the prompts and replies `drivers/aider.py` lists.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_runner import smig

sys.path.insert(0, str(Path(__file__).parent))
from aider_client import aider_binary, run_aider
from drivers import Servers
from drivers import aider as driver
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer
from real_clients import escaped, install_source, prose

from smig_tui.adapters.agents.aider import folders as places
from smig_tui.core.handoff import NOTE_PREFIX

pytestmark = pytest.mark.e2e

OWN = "OWN: the user's own chat about osprey"
SOURCES = ["codex", "gemini"]
"""Two sources in lived-in homes; every other agent's recorded session into this client is the matrix's
(test_matrix_real_clients.py), so the lived-in run, continue, resume by id and listing need not repeat per source."""


def _smig(*argv: str) -> Any:
    """`smig ARGV --json` in-process; its parsed output (fails the test on a non-zero exit)."""
    code, out, err = smig(*argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def lived_in_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A home and project where the user has chatted with Aider (the real client, once per module and worker).

    Each test copies them (`_lived_in`): the files are the ones that run wrote, in the home (`.aider/`)
    and the project (its history and input history), none naming the project's path (Aider's history
    records its command line, its model and the chat), so the copy is what running Aider there again
    would leave, about 4.5 s of CPU less a test.
    """
    aider_binary()  # skips when Aider is not installed
    root = tmp_path_factory.mktemp("aider-lived-in")
    home, project = root / "home", root / "osprey-app"
    home.mkdir()
    project.mkdir()
    with FakeModelServer(reply="OWN-REPLY") as server:
        run_aider(home, project, server, "--no-git", "--message", OWN)
    return home, project


def _lived_in(template: tuple[Path, Path], home: Path, project: Path) -> bytes:
    """The user has chatted with Aider in the project: its own history is there; its bytes."""
    shutil.copytree(template[0], home, dirs_exist_ok=True)
    shutil.copytree(template[1], project, dirs_exist_ok=True)
    return (project / places.DEFAULT_NAME).read_bytes()


def _recorded_argv(written: dict[str, Any]) -> list[str]:
    """The arguments of the resume command the migration recorded (after `cd DIR && aider`)."""
    words = shlex.split(written["resume_command"].split(" && ", 1)[1])
    assert words[0] == "aider"
    return words[1:]


def _assert_carries(body: dict[str, Any], result: dict[str, Any], prompt: str) -> None:
    """The request carries the migration (note, id, first and last kept text, in order), then the prompt."""
    sent = json.dumps(body, ensure_ascii=False)
    kept = prose(result["record"]["messages"])
    assert kept, "the migration kept no prose to look for"
    places_found = [sent.find(escaped(text)) for text in (NOTE_PREFIX, result["migration_id"], kept[0], kept[-1])]
    assert -1 not in places_found, (places_found, kept[0], kept[-1])
    assert places_found[0] <= places_found[2] <= places_found[3] < sent.find(escaped(prompt)), places_found
    users = [m for m in body["messages"] if m["role"] == "user"]
    assert users[-1]["content"] == prompt  # the new prompt, after the history (Aider's reminder follows it)
    assert OWN not in sent and "OWN-REPLY" not in sent


@pytest.mark.parametrize("source", SOURCES)
def test_aider_restores_and_continues_a_migration_in_a_lived_in_project(
    source: str, isolated_homes: dict[str, Path], tmp_path: Path, lived_in_template: tuple[Path, Path]
) -> None:
    home, project = isolated_homes["home"], tmp_path / "osprey-app"
    project.mkdir()
    own = _lived_in(lived_in_template, home, project)
    session = install_source(source, isolated_homes, project, tmp_path)
    result = _smig("migrate", session, "--target", "gpt-4.1", "--strategy", "as-is", "--to", "aider", "--cwd",
                   str(project))  # fmt: skip
    [written] = [entry for entry in result["files"] if entry["destination"] == "aider" and entry.get("session_id")]
    assert Path(written["path"]).parent == project and (project / places.DEFAULT_NAME).read_bytes() == own
    [latest] = result["continue_latest"]
    assert not latest["migration"] and "--chat-history-file" in latest["sentence"]

    with FakeModelServer() as server:
        run_aider(home, project, server, "--no-git", "--max-chat-history-tokens", driver.HISTORY_LIMIT,
                  *_recorded_argv(written), "--message", "AFTER-MIGRATION: go on")  # fmt: skip
        body = driver.main_turn(server.bodies("/chat/completions"), "AFTER-MIGRATION: go on")
    _assert_carries(body, result, "AFTER-MIGRATION: go on")
    assert (project / places.DEFAULT_NAME).read_bytes() == own  # the resumed run went to smig's file
    # smig lists the history Aider went on with, with the turn it appended
    [row] = [row for row in _smig("list", "--agent", "aider") if row["id"] == written["session_id"]]
    shown = _smig("show", written["session_id"])
    assert shown["messages"][-2]["text"].startswith("AFTER-MIGRATION: go on") and row["title"].startswith("↪ from ")

    if source == "codex":  # once: a plain restore is the user's own history, as the continue-latest fact says
        with FakeModelServer() as server:
            run_aider(home, project, server, "--no-git", "--restore-chat-history", "--message", "PLAIN: which?")
            plain = json.dumps(driver.main_turn(server.bodies("/chat/completions"), "PLAIN: which?"))
        assert OWN in plain and result["migration_id"] not in plain
        assert (project / places.DEFAULT_NAME).read_bytes().startswith(own)  # Aider appended, smig wrote nothing


def test_the_driver_resumes_a_migration_into_aider(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    """The matrix's driver: a Gemini CLI session (recorded) into Aider, resumed through `driver.resume`."""
    aider_binary()
    project = tmp_path / "osprey-app"
    project.mkdir()
    session = install_source("gemini", isolated_homes, project, tmp_path)
    with FakeModelServer() as server, FakeGeminiServer() as gemini:
        servers = Servers(server, gemini)
        driver.prepare_receiver(isolated_homes, servers)
        result = _smig("migrate", session, "--target", driver.TARGET, "--to", "aider", "--cwd", str(project))
        [written] = [e for e in result["files"] if e["destination"] == "aider" and e.get("session_id")]
        body = driver.resume(written["session_id"], isolated_homes, project, servers)
    sent = json.dumps(body, ensure_ascii=False)
    assert escaped(NOTE_PREFIX) in sent and result["migration_id"] in sent
    assert body["messages"][-2] == {"role": "user", "content": "continue"}
