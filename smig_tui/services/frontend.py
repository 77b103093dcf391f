"""Provides what the front ends use of the adapters besides `Services`, so they reach adapters only through
`smig_tui.services` (tests/test_layers.py checks it). Each imports its adapter on first use, so `smig list`
loads none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from smig_tui.adapters.paths import resolve_paths
from smig_tui.plugins import agent_profiles


def describe_failure(error: BaseException, where: str) -> str:
    """One sentence for any error; an unforeseen one's traceback goes to a crash log the sentence names."""
    from smig_tui.adapters.crash_log import one_line

    return one_line(error, where=where)


def reading_progress(report: Callable[[int, int], None]) -> AbstractContextManager[None]:
    """Call `report(bytes_read, size)` as sessions are read in this thread (a front end's progress bar)."""
    from smig_tui.adapters.jsonl import reading_progress as watch

    return watch(report)


def write_private(path: Path, text: str) -> None:
    """Write a small file of smig's own (preferences) atomically, readable only by the user."""
    from smig_tui.adapters.fs import atomic_write

    atomic_write(path, text)


def replace_file(path: Path, text: str, mode: int) -> None:
    """Atomically write a file smig merges into (an agent's MCP config) with `mode`; only a regular file is replaced."""
    from smig_tui.adapters.fs import atomic_write

    atomic_write(path, text, mode=mode)


def file_kind(mode: int) -> str:
    """What an `lstat` mode is, in words ("a symbolic link", "a FIFO"), for a refusal's sentence."""
    from smig_tui.adapters.fs import describe_kind

    return describe_kind(mode)


def current_branch(folder: str) -> str | None:
    """The git branch `folder` is on (from the repository's HEAD file), None outside a repository or detached."""
    from smig_tui.adapters.git_head import current_branch as branch_of

    return branch_of(folder)


def no_sessions_sentence(env: dict[str, str] | None = None) -> str:
    """Where smig looked when it found no session at all, and the variables that move each agent's home."""
    from smig_tui.core.words import name_list

    places = [str(where) for entry in agent_profiles() if (where := entry.where_sessions(env)) is not None]
    return f"no sessions found under {name_list(places)}"


def local_summarizer_url() -> str:
    """Where the `local` summarizer is asked unless the config names another address (Ollama's)."""
    from smig_tui.adapters.summarizer_config import PROVIDERS

    return PROVIDERS["local"].base_url


def config_file_path(env: dict[str, str] | None = None) -> Path:
    """Where smig reads its config file from (it may not exist), for help texts and `smig doctor`."""
    return resolve_paths(env).config_file
