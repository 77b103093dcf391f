"""Provides where Pi keeps its files: `$PI_CODING_AGENT_DIR` (default `~/.pi/agent`), sessions under it.

Pi 0.73.1 (`config.js`, `session-manager.js`): `PI_CODING_AGENT_DIR` moves the whole folder
(`models.json`, `settings.json`, `AGENTS.md`, `sessions/`); `PI_CODING_AGENT_SESSION_DIR` puts every
session in one flat folder of its own. A session file lives at
`sessions/--<cwd, leading / dropped, / \\ : as ->--/<start time>_<id>.jsonl`.
"""

from __future__ import annotations

from pathlib import Path

from smig_tui.adapters.agents.profile import Env, environment, user_home

HOME_VARIABLE = "PI_CODING_AGENT_DIR"
SESSIONS_VARIABLE = "PI_CODING_AGENT_SESSION_DIR"


def _expanded(value: str, env: Env) -> Path:
    """A folder the environment names, a leading `~` as the user's home (as Pi expands it)."""
    if value == "~" or value.startswith("~/"):
        return user_home(env) / value[2:]
    return Path(value)


def agent_folder(env: Env = None) -> Path:
    """Pi's own folder as the environment sets it."""
    value = environment(env).get(HOME_VARIABLE)
    return _expanded(value, env) if value else user_home(env) / ".pi" / "agent"


def flat_sessions(env: Env = None) -> Path | None:
    """The one folder holding every session when `PI_CODING_AGENT_SESSION_DIR` says so, else None."""
    value = environment(env).get(SESSIONS_VARIABLE)
    return _expanded(value, env) if value else None


def sessions_folder(env: Env = None) -> Path:
    """Where smig looks for sessions: the flat folder when set, else `sessions/` with one folder per project."""
    return flat_sessions(env) or agent_folder(env) / "sessions"


def project_folder_name(cwd: str) -> str:
    """The folder Pi files a project's sessions in (`getDefaultSessionDir`)."""
    trimmed = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    return "--" + trimmed.replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def project_sessions(env: Env, cwd: str) -> Path:
    """The folder Pi reads `cwd`'s sessions from (what `pi -c` and its picker look at)."""
    return flat_sessions(env) or agent_folder(env) / "sessions" / project_folder_name(cwd)
