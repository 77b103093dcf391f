"""Provides the git branch a folder is on, read from the repository's HEAD file: no `git` process,
so the TUI can ask on every scan."""

from __future__ import annotations

import os

HEAD_BYTES = 4096
"""More than any HEAD file holds (`ref: refs/heads/<name>` or a commit hash)."""


def current_branch(folder: str) -> str | None:
    """The branch checked out in the repository `folder` is in (a worktree's own); None outside a
    repository, on a detached HEAD, or when the files cannot be read."""
    here = os.path.realpath(folder)
    while True:
        marker = os.path.join(here, ".git")
        git_dir = _git_dir(marker)
        if git_dir is not None:
            return _branch_of(os.path.join(git_dir, "HEAD"))
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _git_dir(marker: str) -> str | None:
    """The git folder a `.git` entry means: itself, or the one a worktree's `.git` file points to."""
    if os.path.isdir(marker):
        return marker
    if not os.path.isfile(marker):
        return None
    text = _read(marker)
    if text is None or not text.startswith("gitdir:"):
        return None
    pointed = text[len("gitdir:") :].strip()
    return os.path.join(os.path.dirname(marker), pointed)  # a relative gitdir is relative to the file


def _branch_of(head: str) -> str | None:
    text = _read(head)
    if text is None or not text.startswith("ref: refs/heads/"):
        return None  # detached: a commit hash, no branch
    return text[len("ref: refs/heads/") :].strip() or None


def _read(path: str) -> str | None:
    """The start of a small regular file (never a FIFO, which would block), or None."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
