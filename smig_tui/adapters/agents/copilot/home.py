"""Provides where GitHub Copilot CLI keeps its files: `$COPILOT_HOME` (default `~/.copilot`).

Copilot CLI 1.0.102 keeps everything under that one folder (docs/formats/copilot.md): one folder
per session in `session-state/<uuid>/` (`events.jsonl`, `workspace.yaml`), its global instructions
(`copilot-instructions.md`, `instructions/**/*.instructions.md`), its config and its logs.
`COPILOT_HOME` moves all of it; sessions are not grouped by project (the project is inside).
"""

from __future__ import annotations

from pathlib import Path

from smig_tui.adapters.agents.profile import Env, environment, user_home

HOME_VARIABLE = "COPILOT_HOME"
EVENTS = "events.jsonl"
WORKSPACE = "workspace.yaml"


def resolve_home(env: Env = None) -> Path:
    """Copilot CLI's folder as the environment sets it (a leading `~` is the user's home)."""
    value = environment(env).get(HOME_VARIABLE)
    if not value:
        return user_home(env) / ".copilot"
    if value == "~" or value.startswith("~/"):
        return user_home(env) / value[2:]
    return Path(value)


def sessions_folder(env: Env = None) -> Path:
    """The folder holding one folder per session."""
    return resolve_home(env) / "session-state"
