"""Provides where Qwen Code keeps its files: `$QWEN_HOME` (default `~/.qwen`), sessions under its runtime folder.

Qwen Code 0.24.4 (`Storage`): `QWEN_HOME` moves the whole folder (settings, memory), and
`QWEN_RUNTIME_DIR` moves only what it writes as it runs (`projects/` with the sessions, `tmp/`).
A session file lives at `projects/<project folder, every character but [a-zA-Z0-9] as ->/chats/<id>.jsonl`.
"""

from __future__ import annotations

from pathlib import Path

from smig_tui.adapters.agents.profile import Env, environment, user_home
from smig_tui.adapters.agents.project_files import sanitize_project

HOME_VARIABLE = "QWEN_HOME"
RUNTIME_VARIABLE = "QWEN_RUNTIME_DIR"


def _expanded(value: str, env: Env) -> Path:
    """A folder the environment names, with a leading `~` as the user's home (as the client reads it)."""
    if value == "~" or value.startswith("~/"):
        return user_home(env) / value[2:]
    return Path(value)


def resolve_home(env: Env = None) -> Path:
    """Qwen Code's folder as the environment sets it."""
    value = environment(env).get(HOME_VARIABLE)
    return _expanded(value, env) if value else user_home(env) / ".qwen"


def runtime_folder(env: Env = None) -> Path:
    """Where its sessions are: `$QWEN_RUNTIME_DIR`, else its home."""
    value = environment(env).get(RUNTIME_VARIABLE)
    return _expanded(value, env) if value else resolve_home(env)


def projects_folder(env: Env = None) -> Path:
    """The folder holding one folder per project, each with its `chats/`."""
    return runtime_folder(env) / "projects"


def chats_folder(env: Env, cwd: str) -> Path:
    """The `chats/` folder of a project (every character of its path but a letter or digit becomes `-`)."""
    return projects_folder(env) / sanitize_project(cwd) / "chats"
