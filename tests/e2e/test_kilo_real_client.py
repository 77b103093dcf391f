"""Proves smig's Kilo Code package against the real Kilo Code CLI (`@kilocode/cli` 7.7.7), offline.

- Sessions migrated into Kilo (smig's writer, through the real `kilo import`) in a folder where the
  user already ran Kilo: the real `kilo run -s ID` resumes the first with the migrated history in its
  request, and `kilo run -c` continues the newest migration, not the user's own session, as the
  commit's continue-latest fact says.
- Every other agent's recorded session going into Kilo, and Kilo's recorded session (tests/fixtures/real/kilo,
  the `tools` scenario: three tool calls) going to every other agent, as it is and truncated, is the
  real-client matrix's (tests/e2e/test_matrix_real_clients.py, drivers/kilo.py).

A Kilo run costs about 8 s of CPU (its start-up) and an import 3 s, so this test makes as few as it
needs in one home: the user's own run, two migrations, one resume by id, one continue.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_model_server import REPLY, FakeModelServer
from kilo_client import QUIET, configure, kilo_binary, run_kilo
from migration_builders import make_plan, make_session

from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent
from smig_tui.core.native import Destination
from smig_tui.services import build_services

pytestmark = pytest.mark.e2e
KILO = Destination("kilo")
SOURCES = ("codex", "opencode")
"""Two migrations: `-c` must pick the newer."""


@pytest.fixture
def kilo(monkeypatch: pytest.MonkeyPatch) -> str:
    """The real client, also named to smig's writer (which runs `kilo import`), with its quiet switches."""
    binary = kilo_binary()
    monkeypatch.setenv("SMIG_KILO_BIN", binary)
    for key, value in QUIET.items():
        monkeypatch.setenv(key, value)
    return binary


def test_kilo_resumes_and_continues_migrations_in_a_lived_in_folder(
    isolated_homes: dict[str, Path], tmp_path: Path, kilo: str
) -> None:
    home, project = isolated_homes["home"], tmp_path / "project"
    project.mkdir()
    with FakeModelServer([{"text": "OWN-REPLY"}]) as server:
        run_kilo(home, project, server, "run", "OWN: the user's own session")  # the folder is lived in
    services = build_services()
    [own] = services.list_sessions(agent=Agent("kilo"))
    migrated: dict[str, tuple[str, str]] = {}
    for number, source in enumerate(SOURCES):
        session = make_session(tmp_path / source, agent=Agent(source), cwd=str(project), session_id=f"src-{number}")
        result = build_services().migrate(session, make_plan(session, "gpt-5.5"), {KILO})
        [output] = result.outputs
        [latest] = [fact for fact in result.continue_latest if fact.agent == "kilo"]
        migrated[source] = (output.session_id, result.migration_id)
        assert output.resume_command.endswith(f"kilo -s {output.session_id}")
        assert latest.migration and latest.command == "kilo -c"  # `kilo -c` here continues the migration
    listed = {info.id: info for info in build_services().list_sessions(agent=Agent("kilo"))}
    assert set(listed) == {own.id, *(sid for sid, _ in migrated.values())}
    assert {listed[sid].cwd for sid, _ in migrated.values()} == {str(project)}
    with FakeModelServer() as server:  # before any resume: a run updates the session it continues
        run_kilo(home, project, server, "run", "-c", "NEXT: continue the latest")
        [body] = server.bodies("/chat/completions")
    sent = json.dumps(body, ensure_ascii=False)
    assert migrated["opencode"][1] in sent and migrated["codex"][1] not in sent  # the newest migration
    assert "OWN: the user's own session" not in sent
    assert "PELICAN-77" in sent and sent.index("OSPREY-93") < sent.index("NEXT: continue the latest")
    assert sent.index("pytest -q tests/test_parser.py") < sent.index("1 failed: test_unicode")  # call, result
    session_id, migration_id = migrated["codex"]
    with FakeModelServer() as server:
        run = run_kilo(home, project, server, "run", "-s", session_id, "BY-ID: the first migration")
        [body] = server.bodies("/chat/completions")
    sent = json.dumps(body, ensure_ascii=False)
    assert REPLY in run.stdout
    assert NOTE_PREFIX in sent and migration_id in sent and "PELICAN-77" in sent and "OSPREY-93" in sent
    assert sent.index("OSPREY-93") < sent.index("BY-ID: the first migration")  # the history, then the new prompt
    assert "OWN: the user's own session" not in sent and "NEXT: continue the latest" not in sent


def test_configure_is_the_kilo_config_smig_reads_the_model_from(isolated_homes: dict[str, Path]) -> None:
    """The writer names Kilo's configured model on migrated messages (else `kilo run` would not resume)."""
    from smig_tui.adapters.agents.kilo import KILO as VARIANT
    from smig_tui.adapters.agents.opencode.writer import configured_model

    with FakeModelServer() as server:
        configure(isolated_homes["home"], server)
    assert configured_model(variant=VARIANT) == ("fake", "gpt-4.1")
