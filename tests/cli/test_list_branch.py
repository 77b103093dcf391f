"""`smig list --branch`: the folder's sessions last on a git branch, as the TUI's `b` lists them (issue 29)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import smig

PROJ = "/home/user/proj"


def ids(*argv: str) -> set[str]:
    code, stdout, stderr = smig("list", "--json", *argv)
    assert code == 0, stderr
    return {row["id"] for row in json.loads(stdout)}


def test_a_named_branch_lists_the_folders_sessions_on_it(fake_home: dict[str, Path]) -> None:
    on_main = ids("--cwd", PROJ, "--branch", "main")
    assert on_main == {"01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9", "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"}
    assert ids("--cwd", PROJ, "--branch", "ci-fix") == {"7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}
    assert ids("--cwd", "/home/user/my_app", "--branch", "main") == {"9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f"}
    assert ids("--cwd", PROJ, "--branch", "main", "--limit", "1") < on_main  # the limit counts what matched


def test_without_a_name_the_branch_of_the_folder_is_read(
    fake_home: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    monkeypatch.chdir(repo)
    code, stdout, stderr = smig("list", "--branch")
    assert code == 0 and stdout == "" and "no sessions found" in stderr  # none of the fixtures ran in it
    (repo / ".git" / "HEAD").write_text("0" * 40 + "\n", encoding="utf-8")
    code, stdout, stderr = smig("list", "--branch")
    assert code == 2 and stdout == ""
    assert f"{repo} is not on a git branch (no repository, or a detached HEAD); name one: --branch NAME." in stderr
