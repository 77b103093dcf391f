"""Quieter gaps: entries named like sessions that are no regular file get one notice each and never
block a listing; a folder filter with a NUL is one sentence, and `~` in it means the home folder."""

from __future__ import annotations

import io
import os
import socket
from pathlib import Path

import pytest

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.errors import SmigError
from smig_tui.services import build_services


def _run(*argv: str) -> tuple[int, str, str]:
    ctx = Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO()))
    code = main(list(argv), ctx)
    return code, ctx.out.stdout.getvalue(), ctx.out.stderr.getvalue()  # type: ignore[attr-defined]


def _plant_special_entries(folder: Path, prefix: str) -> dict[str, str]:
    """A FIFO, a socket, a folder, a dangling link and a link loop, each named like a session."""
    os.mkfifo(folder / f"{prefix}fifo.jsonl")
    here = os.getcwd()
    os.chdir(folder)  # a socket's address is capped at 108 bytes: bind by relative name
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(f"{prefix}sock.jsonl")
    finally:
        os.chdir(here)
    (folder / f"{prefix}dir.jsonl").mkdir()
    (folder / f"{prefix}dangling.jsonl").symlink_to(folder / "nowhere")
    (folder / f"{prefix}loop.jsonl").symlink_to(folder / f"{prefix}loop.jsonl")
    return {
        "fifo": "a FIFO (named pipe); skipped",
        "sock": "a socket; skipped",
        "dangling": "a symbolic link to nothing; skipped",
        "loop": "a symbolic link loop; skipped",
        "dir": "a folder; ",
    }


def test_each_special_entry_named_like_a_session_is_one_notice(fake_home: dict[str, Path]) -> None:
    before = _run("list", "--all")[1]
    claude = fake_home["claude"] / "projects" / "-home-user-proj"
    codex = next(fake_home["codex"].rglob("rollout-*.jsonl")).parent
    expected = []
    for folder, prefix in ((claude, ""), (codex, "rollout-")):
        for name, why in _plant_special_entries(folder, prefix).items():
            expected.append(f"smig: warning: {folder / (prefix + name)}.jsonl: named like a session but it is {why}")
    code, stdout, stderr = _run("list", "--all")
    assert code == 0 and stdout == before
    *lines, once = stderr.splitlines()
    assert once.startswith("smig: a skipped file is reported once until it changes")
    assert len(lines) == len(expected)
    for want in expected:
        assert sum(line.startswith(want) for line in lines) == 1, want


def test_a_nul_in_the_folder_filter_is_one_sentence_and_tilde_is_home(fake_home: dict[str, Path]) -> None:
    services = build_services()
    with pytest.raises(SmigError, match="contains a NUL character"):
        list(services.iter_sessions(cwd="\x00"))
    code, _, stderr = _run("list", "--cwd", "/tmp/\x00x")
    assert code == 1 and stderr.startswith("smig: error: The folder to list sessions under contains a NUL")
    project = fake_home["home"] / "proj"
    project.mkdir()
    assert list(services.iter_sessions(cwd="~/proj")) == list(services.iter_sessions(cwd=str(project)))


def test_mcp_list_sessions_with_a_nul_is_an_error_with_text(fake_home: dict[str, Path]) -> None:
    from smig_tui.mcp.server import SmigToolRunner

    result = SmigToolRunner()("list_sessions", {"cwd": "\x00"})
    assert result["isError"] is True
    assert "contains a NUL character, which no path can hold" in result["content"][0]["text"]
