"""`smig migrate … --continue` in-process, with a fake in place of the exec (issue 29's continue now)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.services import client_launch

SESSION = "01a20305-2ac0-7f6a-87b8-c9d0e1f2a3b4"


class Launcher:
    """Stands in for the exec: records what smig would start, and when."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.started: list[client_launch.Launch] = []
        self.stderr_then = ""

    def __call__(self, launch: client_launch.Launch) -> None:
        self.started.append(launch)
        self.stderr_then = self.ctx.out.stderr.getvalue()  # type: ignore[attr-defined]


def _run(*argv: str) -> tuple[int, str, str, Launcher]:
    ctx = Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO()))
    launcher = Launcher(ctx)
    ctx.launcher = launcher
    code = main(list(argv), ctx)
    return code, ctx.out.stdout.getvalue(), ctx.out.stderr.getvalue(), launcher  # type: ignore[attr-defined]


@pytest.fixture
def client_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding executables named like the four clients (they never run: the launcher is a fake)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in ("claude", "codex", "gemini", "opencode"):
        (folder / name).write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        (folder / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:/usr/bin:/bin")
    return folder


def _stored(fake_home: dict[str, Path]) -> list[Path]:
    return sorted((fake_home["smig"]).rglob("migrations/*/*.json"))


@pytest.mark.parametrize(("agent", "words"), [("claude", ("claude", "--resume")), ("codex", ("codex", "resume"))])
def test_continue_starts_the_client_in_the_project_after_everything_is_printed(
    fake_home: dict[str, Path], client_bin: Path, tmp_path: Path, agent: str, words: tuple[str, ...]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    code, stdout, stderr, launcher = _run(
        "migrate", SESSION, "--target", "gpt-5.5", "--to", agent, "--cwd", str(project), "--continue"
    )
    assert code == 0, stderr
    [launch] = launcher.started
    [resume] = [line.split("resume: ", 1)[1] for line in stdout.splitlines() if line.startswith("  resume: ")]
    session_id = launch.argv[-1]
    assert launch.argv == (*words, session_id) and launch.cwd == str(project)
    assert launch.program == str(client_bin / agent) and launch.command == resume
    assert resume == f"cd {project} && {' '.join(words)} {session_id}"
    client = {"claude": "Claude Code", "codex": "Codex"}[agent]
    assert launcher.stderr_then.rstrip().endswith(f"smig: starting {client}: {resume}")  # shown, then started
    assert len(_stored(fake_home)) == 1


def test_a_client_not_installed_is_said_and_its_command_printed_and_the_migration_kept(
    fake_home: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-clients-here"))
    project = tmp_path / "project"
    project.mkdir()
    code, stdout, stderr, launcher = _run(
        "migrate", SESSION, "--target", "gpt-5.5", "--to", "gemini", "--cwd", str(project), "--continue"
    )
    assert code == 0 and launcher.started == []  # the migration is written: not an error
    assert (
        "smig: Gemini CLI is not installed here (`gemini` is not on PATH; SMIG_GEMINI_BIN can name it). "
        "Continue later with:" in stderr
    )
    assert stdout.splitlines()[-1].startswith(f"  cd {project} && gemini --resume ")
    assert len(_stored(fake_home)) == 1 and "error" not in stderr


def test_a_folder_that_does_not_exist_here_is_said_and_nothing_starts(
    fake_home: dict[str, Path], client_bin: Path
) -> None:
    code, stdout, stderr, launcher = _run("migrate", SESSION, "--target", "gpt-5.5", "--to", "claude", "--continue")
    assert code == 0 and launcher.started == []
    assert "smig: Claude Code was not started: the session's folder /home/user/proj does not exist here" in stderr
    assert stdout.splitlines()[-1].startswith("  cd /home/user/proj && claude --resume ")


def test_a_dry_run_says_what_it_would_start(fake_home: dict[str, Path], client_bin: Path, tmp_path: Path) -> None:
    code, _, stderr, launcher = _run(
        "migrate", SESSION, "--target", "gpt-5.5", "--to", "codex", "--cwd", str(tmp_path), "--continue", "--dry-run"
    )
    assert code == 0 and launcher.started == [] and _stored(fake_home) == []
    assert f"smig: dry run: would start Codex: cd {tmp_path} && codex resume " in stderr


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        ((), "--continue starts the client of one native session; name exactly one of --to"),
        (("--to", "markdown"), "--continue starts the client of one native session"),
        (("--to", "claude", "--to", "codex"), "--continue starts the client of one native session"),
        (("--to", "claude", "--json"), "--continue hands the terminal to a client; it does not go with --json."),
    ],
)
def test_continue_that_cannot_mean_one_client_is_refused_before_anything_is_written(
    fake_home: dict[str, Path], client_bin: Path, flags: tuple[str, ...], said: str
) -> None:
    code, stdout, stderr, launcher = _run("migrate", SESSION, "--target", "gpt-5.5", *flags, "--continue")
    assert code == 2 and said in stderr and stdout == ""
    assert launcher.started == [] and _stored(fake_home) == []


def test_an_exec_that_fails_is_said_with_the_command_and_exit_0(
    fake_home: dict[str, Path], client_bin: Path, tmp_path: Path
) -> None:
    ctx = Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO()))

    def failing(launch: client_launch.Launch) -> None:
        raise client_launch.ContinueRefused(f"{launch.client} could not be started (Exec format error)", launch.command)

    ctx.launcher = failing
    code = main(
        ["migrate", SESSION, "--target", "gpt-5.5", "--to", "claude", "--cwd", str(tmp_path), "--continue"], ctx
    )
    stderr = ctx.out.stderr.getvalue()  # type: ignore[attr-defined]
    assert code == 0
    assert "smig: Claude Code could not be started (Exec format error). Continue later with:" in stderr


def test_history_show_continue_starts_the_client_of_a_stored_migration(
    fake_home: dict[str, Path], client_bin: Path, tmp_path: Path
) -> None:
    """Continue later: `history show ID --continue` starts what the migration wrote, as migrate would have."""
    code, stdout, stderr, _ = _run(
        "migrate", SESSION, "-t", "gpt-5.5", "--to", "claude", "--to", "codex", "--cwd", str(tmp_path), "--json"
    )
    assert code == 0, stderr
    done = json.loads(stdout)
    migration = done["migration_id"]
    resume = {file["destination"]: file["resume_command"] for file in done["files"]}
    code, _, stderr, launcher = _run("history", "show", migration[:10], "--continue")
    assert code == 2 and launcher.started == []
    assert f"Migration {migration} wrote sessions for claude and codex; add --to claude or --to codex." in stderr
    code, stdout, stderr, launcher = _run("history", "show", migration[:10], "--continue", "--to", "codex")
    assert code == 0, stderr
    [launch] = launcher.started
    assert launch.command == resume["codex"] and launch.cwd == str(tmp_path) and launch.argv[:2] == ("codex", "resume")
    assert f"       resume: {resume['codex']}" in stdout.splitlines()  # the record is shown first
    assert launcher.stderr_then.rstrip().endswith(f"smig: starting Codex: {resume['codex']}")
    assert len(_stored(fake_home)) == 1  # nothing new written


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (("--continue", "--json"), "--continue hands the terminal to a client; it does not go with --json."),
        (("--to", "claude"), "--to picks the session --continue starts; add --continue."),
        (("--continue", "--to", "gemini"), "wrote no gemini session; it wrote claude."),
    ],
)
def test_history_show_continue_refuses_what_cannot_mean_one_client(
    fake_home: dict[str, Path], client_bin: Path, tmp_path: Path, flags: tuple[str, ...], said: str
) -> None:
    code, stdout, _, _ = _run("migrate", SESSION, "-t", "gpt-5.5", "--to", "claude", "--cwd", str(tmp_path), "--json")
    migration = json.loads(stdout)["migration_id"]
    code, stdout, stderr, launcher = _run("history", "show", migration, *flags)
    assert code == 2 and said in stderr and stdout == "" and launcher.started == []


def test_history_show_continue_of_a_store_only_migration_says_how_to_write_a_session(
    fake_home: dict[str, Path], client_bin: Path
) -> None:
    code, stdout, _, _ = _run("migrate", SESSION, "-t", "gpt-5.5", "--json")
    migration = json.loads(stdout)["migration_id"]
    code, _, stderr, launcher = _run("history", "show", migration, "--continue")
    assert code == 2 and launcher.started == []
    assert f"wrote no native session to continue (store only); `smig migrate {SESSION} -t gpt-5.5 --to AGENT" in stderr


def test_history_show_continue_of_a_client_not_installed_prints_the_command(
    fake_home: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, stdout, _, _ = _run("migrate", SESSION, "-t", "gpt-5.5", "--to", "gemini", "--cwd", str(tmp_path), "--json")
    [resume] = json.loads(stdout)["resume_commands"]
    monkeypatch.setenv("PATH", str(tmp_path / "no-clients-here"))
    code, stdout, stderr, launcher = _run("history", "show", json.loads(stdout)["migration_id"], "--continue")
    assert code == 0 and launcher.started == []
    assert "smig: Gemini CLI is not installed here" in stderr and stdout.splitlines()[-1] == f"  {resume}"
