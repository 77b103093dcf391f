"""The commit journal: a commit killed with SIGKILL part-way is finished or cleaned up by the next run,
which says so; a journal that cannot be written stops the commit before any native session is."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.native import Destination
from smig_tui.mcp.tools import SmigTools
from smig_tui.services import build_services
from smig_tui.tui.screens.commit_result import result_lines

SESSION = "01a20305-2ac0-7f6a-87b8-c9d0e1f2a3b4"
REPO = Path(__file__).resolve().parents[2]
MIGRATE = ["migrate", SESSION, "--target", "gpt-4o", "--to", "claude", "--to", "codex"]

KILLER = """
import os, signal, sys
from smig_tui.adapters import migration_commit
mode, when = sys.argv[1], int(sys.argv[2])
calls = {"n": 0}
real_write, real_link = migration_commit.atomic_write, os.link

def write_then_die(*args, **kwargs):
    real_write(*args, **kwargs)
    calls["n"] += 1
    if calls["n"] == when:
        os.kill(os.getpid(), signal.SIGKILL)

def die_before_link(*args, **kwargs):
    calls["n"] += 1
    if calls["n"] == when:
        os.kill(os.getpid(), signal.SIGKILL)
    return real_link(*args, **kwargs)

if mode == "after-write":
    migration_commit.atomic_write = write_then_die
else:
    os.link = die_before_link
from smig_tui.cli.main import main
main(sys.argv[3:])
"""


def _run(*argv: str) -> tuple[int, str, str]:
    ctx = Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO()))
    code = main(list(argv), ctx)
    return code, ctx.out.stdout.getvalue(), ctx.out.stderr.getvalue()  # type: ignore[attr-defined]


def _killed_commit(mode: str, when: int) -> None:
    done = subprocess.run(
        [sys.executable, "-c", KILLER, mode, str(when), *MIGRATE],
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only: a busy machine is slow, never this slow
        check=False,
        env=None,
    )
    assert done.returncode == -9, done.stderr


def _natives(home: dict[str, Path]) -> list[Path]:
    """Files smig wrote into the agents' homes (the fixtures' own sessions excluded)."""
    return [
        path
        for path in (*home["claude"].rglob("*"), *home["codex"].rglob("*"))
        if path.is_file()
        and not path.name.startswith(".")
        and "smig" in path.read_text(encoding="utf-8", errors="replace")[:4000]
        and path.stat().st_mode & 0o777 == 0o600
    ]


def _temp_files(home: dict[str, Path]) -> list[Path]:
    return [path for path in home["home"].rglob(".*.tmp")]


def test_history_says_it_finished_an_interrupted_commit(fake_home: dict[str, Path]) -> None:
    _killed_commit("after-write", 2)
    code, stdout, stderr = _run("history")
    assert code == 0
    [note] = stderr.splitlines()
    assert note.startswith("smig: finished migration ") and "interrupted after writing its 2 files" in note
    migration_id = note.split()[3].rstrip(",")
    assert stdout.splitlines()[1].split()[0] in migration_id  # the table shows its shortest unique prefix
    records = json.loads(_run("history", "--json")[1])
    assert [record["id"] for record in records] == [migration_id]
    assert len(records[0]["outputs"]) == 2
    assert list((fake_home["smig"] / "data" / "journal").glob("*")) == []
    assert _run("history")[2] == ""  # said once


@pytest.mark.parametrize("mode", ["after-write", "before-link"])
def test_a_commit_killed_between_its_files_is_cleaned_up_by_the_next_commit(
    fake_home: dict[str, Path], mode: str
) -> None:
    _killed_commit(mode, 1 if mode == "after-write" else 3)  # links: the journal entry, then each session
    assert len(_natives(fake_home)) == 1
    if mode == "before-link":
        assert len(_temp_files(fake_home)) == 1  # the second session's temp file, never linked
    code, stdout, stderr = _run(*MIGRATE)
    assert code == 0, stderr
    notes = [line for line in stderr.splitlines() if line.startswith("smig: cleaned up migration ")]
    assert len(notes) == 1 and "after writing 1 of its 2 files: removed 1 it had created" in notes[0]
    assert len(_natives(fake_home)) == 2 and _temp_files(fake_home) == []  # only the new commit's two
    assert len(json.loads(_run("history", "--json")[1])) == 1


def test_the_mcp_commit_and_the_tui_result_report_what_was_recovered(fake_home: dict[str, Path]) -> None:
    """The three front ends read the same `MigrationResult.recovered`: none recovers silently."""
    _killed_commit("after-write", 1)
    services = build_services()
    done = SmigTools(services).commit_migration(SESSION, "gpt-4o", to=["claude", "codex"])
    [note] = done["recovered"]
    assert note.startswith("smig cleaned up migration ") and "removed 1 it had created" in note
    assert done["migration_id"] not in note
    _killed_commit("after-write", 2)
    session = services.load_session(services.find_session(SESSION))
    plan = services.plan(session, "gpt-4o")
    result = services.migrate(session, plan, {Destination.STORE})
    [line] = [line for line in result_lines(result) if line.startswith("Before this commit")]
    assert line.startswith("Before this commit, smig finished migration ") and "`smig history show " in line


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temp folder other users can reach (pytest's own is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="smig-nonroot-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_as_a_non_root_user_an_unwritable_journal_stops_the_commit_before_any_file(
    fake_home: dict[str, Path], shared_tmp: Path
) -> None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to run a command as nobody")
    home, smig_home = shared_tmp / "home", shared_tmp / "smig"
    shutil.copytree(fake_home["home"], home, symlinks=True)
    (smig_home / "data" / "migrations").mkdir(parents=True)
    subprocess.run(["chown", "-R", "nobody", str(home), str(smig_home)], check=True)
    journal = smig_home / "data" / "journal"
    journal.mkdir(mode=0o755)  # root's: nobody cannot write its intent record there
    env = {
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "SMIG_TUI_HOME": str(smig_home),
        "PATH": "/usr/bin:/bin",
        **{key: os.environ[key] for key in ("TIKTOKEN_CACHE_DIR",) if key in os.environ},
        "PYTHONPATH": str(REPO),
    }
    before = sorted(str(path) for path in home.rglob("*"))
    done = subprocess.run(
        ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable, "-m", "smig_tui", *MIGRATE],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only: a busy machine is slow, never this slow
        check=False,
    )
    assert done.returncode == 1
    [error] = [line for line in done.stderr.splitlines() if line.startswith("smig: error: ")]
    assert error.startswith(f"smig: error: Cannot write {journal}/") and error.endswith(": permission denied.")
    assert sorted(str(path) for path in home.rglob("*")) == before
