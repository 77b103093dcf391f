"""The branch a folder is on, read from HEAD files as git writes them: the TUI's `b` scope (issue 29)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from smig_tui.adapters.git_head import current_branch
from smig_tui.core.models import Agent
from smig_tui.services import build_services


def test_a_repository_its_subfolders_a_worktree_detached_and_outside(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n", encoding="utf-8")
    (repo / "src" / "deep").mkdir(parents=True)
    assert current_branch(str(repo)) == current_branch(str(repo / "src" / "deep")) == "feature/x"
    worktree = tmp_path / "wt"
    (repo / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (repo / ".git" / "worktrees" / "wt" / "HEAD").write_text("ref: refs/heads/polish\n", encoding="utf-8")
    worktree.mkdir()
    (worktree / ".git").write_text(
        "gitdir: ../repo/.git/worktrees/wt\n", encoding="utf-8"
    )  # relative, as git can write
    assert current_branch(str(worktree)) == "polish"
    (repo / ".git" / "HEAD").write_text("3f2a9c1d" * 5 + "\n", encoding="utf-8")
    assert current_branch(str(repo)) is None  # detached: no branch
    outside = tmp_path / "plain"
    outside.mkdir()
    assert current_branch(str(outside)) is None


def test_a_fifo_named_head_is_not_opened(tmp_path: Path) -> None:
    """A read would block the scan for ever: HEAD that is not a regular file is no branch."""
    (tmp_path / ".git").mkdir()
    os.mkfifo(tmp_path / ".git" / "HEAD")
    assert current_branch(str(tmp_path)) is None


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git program")
def test_what_git_itself_writes(tmp_path: Path) -> None:
    def git(*argv: str, cwd: Path = tmp_path) -> None:
        subprocess.run(["git", *argv], cwd=cwd, check=True, capture_output=True)

    git("init", "-q", "-b", "trunk")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "one")
    assert current_branch(str(tmp_path)) == "trunk"
    git("worktree", "add", "-q", "-b", "side", str(tmp_path / "linked"))
    assert current_branch(str(tmp_path / "linked")) == "side" and current_branch(str(tmp_path)) == "trunk"
    git("checkout", "-q", "--detach")
    assert current_branch(str(tmp_path)) is None


def test_discovery_records_the_branch_codex_and_claude_code_wrote(fake_home: dict[str, Path]) -> None:
    """Codex's `session_meta.git.branch`; Claude Code's latest `gitBranch`; None where none is recorded."""
    branches = {info.id: info.git_branch for info in build_services().iter_sessions(include_subagents=True)}
    assert branches["01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"] == "main"
    assert branches["01a1fd63-3620-7b2c-83d4-e5f6a7b8c9d0"] is None
    assert branches["5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"] == "main"
    assert branches["7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"] == "ci-fix"
    again = {info.id: info.git_branch for info in build_services().iter_sessions(include_subagents=True)}
    assert again == branches  # through the listing cache too
    assert {info.agent for info in build_services().iter_sessions() if info.git_branch} == {
        Agent("codex"),
        Agent("claude"),
    }
