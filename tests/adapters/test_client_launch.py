"""Continue now: each agent's command as data, the line shown derived from it, and the checks and the
exec that start the client (issue 29)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from smig_tui.adapters.agents.claude.writer import resume_argv as claude_argv
from smig_tui.adapters.agents.codex.writer import resume_argv as codex_argv
from smig_tui.adapters.agents.gemini.writer import resume_argv as gemini_argv
from smig_tui.adapters.agents.opencode.writer import BIN_ENV, find_binary
from smig_tui.adapters.agents.opencode.writer import resume_argv as opencode_argv
from smig_tui.adapters.client_launch import ContinueRefused, Launch, bin_env, find_client, prepare
from smig_tui.core.migration import output_from_json, output_to_json
from smig_tui.core.native import NativeOutput

SID = "3a1e98f7-673d-445e-8cab-89521d43dfc3"


@pytest.mark.parametrize(
    ("argv", "agent", "words"),
    [
        (claude_argv, "claude", ("claude", "--resume", SID)),
        (codex_argv, "codex", ("codex", "resume", SID)),
        (gemini_argv, "gemini", ("gemini", "--resume", SID)),
        (opencode_argv, "opencode", ("opencode", "-s", SID)),
    ],
)
def test_each_agent_continues_with_its_own_command_and_the_shown_line_is_that_command(
    argv, agent: str, words: tuple[str, ...]
) -> None:
    assert argv(SID) == words
    output = NativeOutput(agent, "/x", SID, argv(SID), "/home/me/my project's")
    shown = output.resume_command
    assert shown == f"cd '/home/me/my project'\"'\"'s' && {' '.join(words)}"
    cd, folder, joiner, *command = shlex.split(shown)  # the shell reads back exactly what is started
    assert (cd, folder, joiner, tuple(command)) == ("cd", output.cwd, "&&", output.argv)


def test_the_record_keeps_argv_and_folder_and_reads_a_record_from_before_them() -> None:
    output = NativeOutput("codex", "/x/r.jsonl", SID, ("codex", "resume", SID), "/srv/a b")
    stored = output_to_json(output)
    assert stored["argv"] == ["codex", "resume", SID] and stored["cwd"] == "/srv/a b"
    assert stored["resume_command"] == f"cd '/srv/a b' && codex resume {SID}"
    assert output_from_json(stored) == output
    old = {
        "agent": "claude",
        "path": "/x",
        "session_id": SID,
        "resume_command": f"cd '/srv/a b' && claude --resume {SID}",
    }
    assert output_from_json(old) == NativeOutput("claude", "/x", SID, ("claude", "--resume", SID), "/srv/a b")
    plugin = {"agent": "wisp", "path": "/x", "session_id": "w1", "resume_command": "wisp --resume w1"}
    assert output_from_json(plugin).argv == ("wisp", "--resume", "w1") and output_from_json(plugin).cwd is None
    with pytest.raises(TypeError):
        NativeOutput("wisp", "/x", "w1", "wisp --resume w1")  # type: ignore[arg-type]


def _program(folder: Path, name: str, body: str = "exit 0") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    program.chmod(0o755)
    return program


def test_prepare_finds_the_client_on_path_or_by_its_variable(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    on_path = _program(tmp_path / "bin", "claude")
    output = NativeOutput("claude", "/x", SID, claude_argv(SID), str(project))
    launch = prepare(output, "Claude Code", {"PATH": str(on_path.parent)})
    assert launch == Launch(
        "Claude Code", str(on_path), ("claude", "--resume", SID), str(project), output.resume_command
    )
    elsewhere = _program(tmp_path / "opt", "claude-2.1")
    named = prepare(output, "Claude Code", {"PATH": str(on_path.parent), "SMIG_CLAUDE_BIN": str(elsewhere)})
    assert named.program == str(elsewhere) and named.argv[0] == "claude"  # the variable wins; argv as shown
    assert bin_env("opencode") == BIN_ENV  # the variable smig already honoured for `opencode import`
    assert find_binary({"PATH": "", BIN_ENV: str(elsewhere)}) == find_client("opencode", {BIN_ENV: str(elsewhere)})


def test_a_client_not_installed_is_named_with_the_variable_and_the_command(tmp_path: Path) -> None:
    output = NativeOutput("gemini", "/x", SID, gemini_argv(SID), str(tmp_path))
    with pytest.raises(ContinueRefused) as refused:
        prepare(output, "Gemini CLI", {"PATH": str(tmp_path / "empty")})
    assert (
        refused.value.reason
        == "Gemini CLI is not installed here (`gemini` is not on PATH; SMIG_GEMINI_BIN can name it)"
    )
    assert refused.value.command == f"cd {tmp_path} && gemini --resume {SID}"
    not_a_program = tmp_path / "gemini.txt"
    not_a_program.write_text("", encoding="utf-8")
    with pytest.raises(ContinueRefused) as refused:
        prepare(output, "Gemini CLI", {"PATH": "", "SMIG_GEMINI_BIN": str(not_a_program)})
    assert f"SMIG_GEMINI_BIN names {not_a_program}, which is not an executable file" in refused.value.reason


def test_a_folder_that_is_gone_is_named_and_nothing_starts(tmp_path: Path) -> None:
    _program(tmp_path / "bin", "codex")
    gone = tmp_path / "deleted-project"
    output = NativeOutput("codex", "/x", SID, codex_argv(SID), str(gone))
    with pytest.raises(ContinueRefused) as refused:
        prepare(output, "Codex", {"PATH": str(tmp_path / "bin")})
    assert refused.value.reason == f"Codex was not started: the session's folder {gone} does not exist here"
    assert refused.value.command == f"cd {gone} && codex resume {SID}"


def _start_in_a_child(launch: Launch) -> subprocess.CompletedProcess[str]:
    """`start` in a separate Python (it replaces the process it runs in)."""
    code = (
        "import sys\n"
        "from smig_tui.adapters.client_launch import ContinueRefused, Launch, start\n"
        f"launch = Launch(*{(launch.client, launch.program, launch.argv, launch.cwd, launch.command)!r})\n"
        "print('smig output first', flush=False)\n"
        "try:\n"
        "    start(launch)\n"
        "except ContinueRefused as refused:\n"
        "    print('refused:', refused.reason)\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd="/")


def test_start_replaces_smig_with_the_client_in_the_session_folder(tmp_path: Path) -> None:
    project = tmp_path / "my project"
    project.mkdir()
    client = _program(tmp_path / "bin", "opencode", 'echo "pid $$ in $(pwd): $0 $*"')
    launch = Launch("OpenCode", str(client), ("opencode", "-s", "ses_1"), str(project), "shown")
    run = _start_in_a_child(launch)
    assert run.returncode == 0, run.stderr
    first, started = run.stdout.splitlines()
    assert first == "smig output first"  # smig's own output is flushed before the client takes over
    assert started.endswith(f"in {project}: {client} -s ses_1")


def test_a_client_that_cannot_be_executed_is_refused_with_the_reason(tmp_path: Path) -> None:
    broken = tmp_path / "claude"
    broken.write_bytes(b"\x7fELF not really")
    broken.chmod(0o755)
    run = _start_in_a_child(Launch("Claude Code", str(broken), ("claude",), None, "claude"))
    assert run.stdout.splitlines()[-1].startswith("refused: Claude Code could not be started (")


def test_the_shell_line_and_the_started_argv_agree_for_a_folder_with_spaces_quotes_and_dollars(
    tmp_path: Path,
) -> None:
    """Paste the shown line into a shell: it runs the same program with the same words in the same folder."""
    project = tmp_path / "it's $HOME & co"
    project.mkdir()
    _program(tmp_path / "bin", "claude", 'echo "$(pwd)|$*"')
    output = NativeOutput("claude", "/x", SID, claude_argv(SID), str(project))
    env = {"PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}", "HOME": "/nowhere"}
    pasted = subprocess.run(["sh", "-c", output.resume_command], capture_output=True, text=True, env=env, timeout=600)
    assert pasted.stdout.strip() == f"{project}|--resume {SID}"
