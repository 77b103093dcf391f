"""Provides where Pi keeps its files: `$PI_CODING_AGENT_DIR` (default `~/.pi/agent`), sessions under it.

Pi 0.73.1 (`config.js`, `session-manager.js`, `settings-manager.js`, `main.js`): `PI_CODING_AGENT_DIR`
moves the whole folder (`models.json`, `settings.json`, `AGENTS.md`, `sessions/`). One flat folder of
its own can hold every session instead, named (first wins) by `--session-dir`, by
`PI_CODING_AGENT_SESSION_DIR`, or by `sessionDir` in the settings (the project's `.pi/settings.json`
over the global `settings.json`); `~` is the home folder, and a relative path is taken from the folder
Pi runs in. Otherwise a session file lives at
`sessions/--<cwd, leading / dropped, / \\ : as ->--/<start time>_<id>.jsonl`.
"""

from __future__ import annotations

from pathlib import Path

from smig_tui.adapters.agents.profile import Env, environment, user_home
from smig_tui.adapters.agents.settings_files import read_json

HOME_VARIABLE = "PI_CODING_AGENT_DIR"
SESSIONS_VARIABLE = "PI_CODING_AGENT_SESSION_DIR"
SESSIONS_SETTING = "sessionDir"
"""The settings key naming the flat session folder (global `settings.json`, or a project's `.pi/settings.json`)."""
PROJECT_SETTINGS = (".pi", "settings.json")


def expanded(value: str, env: Env) -> Path:
    """A folder the environment names, a leading `~` as the user's home (as Pi expands it)."""
    if value == "~" or value.startswith("~/"):
        return user_home(env) / value[2:]
    return Path(value)


def agent_folder(env: Env = None) -> Path:
    """Pi's own folder as the environment sets it."""
    value = environment(env).get(HOME_VARIABLE)
    return expanded(value, env) if value else user_home(env) / ".pi" / "agent"


def flat_sessions(env: Env = None, cwd: str | None = None) -> Path | None:
    """The one folder holding every session of `cwd` as Pi resolves it: `PI_CODING_AGENT_SESSION_DIR`, else
    `sessionDir` in the project's settings, else in the global ones; None when none names one.

    Without `cwd` (a listing, for no project in particular) only a folder that does not depend on the
    project counts: the variable, or an absolute (or `~`) global setting.
    """
    value = environment(env).get(SESSIONS_VARIABLE)
    if value:
        return expanded(value, env)
    for settings in ([Path(cwd, *PROJECT_SETTINGS)] if cwd else []) + [agent_folder(env) / "settings.json"]:
        given = read_json(settings).get(SESSIONS_SETTING)
        if isinstance(given, str) and given:
            folder = expanded(given, env)
            if folder.is_absolute():
                return folder
            return Path(cwd) / folder if cwd else None
    return None


def sessions_folder(env: Env = None) -> Path:
    """Where smig says Pi's sessions are: the flat folder when one is set for every project, else `sessions/`."""
    return flat_sessions(env) or agent_folder(env) / "sessions"


def session_folders(env: Env = None) -> tuple[Path, ...]:
    """Every folder smig lists Pi sessions from: the flat folder set for every project (when one is), and
    `sessions/` (those written before the setting stay there, and Pi's picker of all sessions reads it)."""
    flat = flat_sessions(env)
    default = agent_folder(env) / "sessions"
    return (flat, default) if flat is not None and flat != default else (default,)


def project_folder_name(cwd: str) -> str:
    """The folder Pi files a project's sessions in (`getDefaultSessionDir`)."""
    trimmed = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    return "--" + trimmed.replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def project_sessions(env: Env, cwd: str) -> Path:
    """The folder Pi reads `cwd`'s sessions from (what `pi -c` and its picker look at), its settings too."""
    return flat_sessions(env, cwd) or agent_folder(env) / "sessions" / project_folder_name(cwd)
