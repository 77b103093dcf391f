"""A commit to OpenCode killed around its import step, against the real OpenCode CLI (opencode-ai 1.18.33).

Issue 33: of 36 commits killed during the import step, 34 were recorded as finished by the next run,
whose `smig history` offered `opencode -s ses_…` for a session never imported. Here smig is killed
before the import, while `opencode import` runs (the import dies with smig), and after it; the next
run must either find the session in OpenCode's database as planned and record it, or roll the
commit back and say so. Never a record of a session OpenCode does not have, never an OpenCode
session with no record.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import smig
from opencode_builders import install_database

sys.path.insert(0, str(Path(__file__).parent))
from client_env import client_binary
from real_clients import OPENCODE_QUIET as QUIET

pytestmark = pytest.mark.e2e

SESSION = "01a20305-2ac0-7f6a-87b8-c9d0e1f2a3b4"
KILLER = """
import os, signal, subprocess, sys
from smig_tui.adapters.agents.opencode import writer
when = sys.argv[1]
real_install, real_run = writer.OpenCodeWriter.install, writer._run

def install(self, planned):
    if when == "before import":
        os.kill(os.getpid(), signal.SIGKILL)
    real_install(self, planned)
    if when == "after import":
        os.kill(os.getpid(), signal.SIGKILL)

def run(command, cwd, extra_env=None):
    if when == "during import" and command[1:2] == ["import"]:
        subprocess.Popen(command, cwd=cwd, preexec_fn=writer._die_with_parent, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=os.environ | extra_env if extra_env else None)
        os.kill(os.getpid(), signal.SIGKILL)
    return real_run(command, cwd, extra_env)

writer.OpenCodeWriter.install = install
writer._run = run
from smig_tui.cli.main import main
main(sys.argv[2:])
"""


def _opencode_sessions(database: Path) -> set[str]:
    with sqlite3.connect(database) as connection:
        return {row[0] for row in connection.execute("SELECT id FROM session")}


@pytest.mark.parametrize("when", ["before import", "during import", "after import"])
def test_a_commit_killed_at_the_import_is_finished_and_verified_or_rolled_back(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    monkeypatch.setenv("SMIG_OPENCODE_BIN", client_binary("opencode"))
    for key, value in QUIET.items():
        monkeypatch.setenv(key, value)
    database = install_database(fake_home["home"] / ".local" / "share" / "opencode")
    before = _opencode_sessions(database)
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, when, "migrate", SESSION, "--target", "gpt-4o", "--to", "opencode"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert killed.returncode == -9, killed.stderr
    code, _, stderr = smig("history")
    assert code == 0, stderr
    notes = [line for line in stderr.splitlines() if line.startswith("smig: ") and "no migrations stored" not in line]
    assert len(notes) == 1, notes
    note = notes[0]
    records = [json.loads(path.read_text()) for path in (fake_home["smig"] / "data" / "migrations").rglob("*.json")]
    added = _opencode_sessions(database) - before
    assert list((fake_home["smig"] / "data" / "journal").glob("*")) == []
    if note.startswith("smig: finished migration "):
        [record] = records
        [output] = record["outputs"]
        assert added == {output["session_id"]}  # the recorded session is in OpenCode, read back as planned
    else:
        assert note.startswith(("smig: cleaned up migration ", "smig: rolled back migration ")), note
        assert records == [], note
        assert added == set()  # no OpenCode session without a record
        assert "opencode -s" not in smig("history")[1]
    if when == "before import":
        assert not note.startswith("smig: finished"), note
    if when == "after import":
        assert note.startswith("smig: finished")
