"""Provides how Codex keeps its MCP servers: `[mcp_servers.smig]` tables in `config.toml`.

Codex 0.171.0 starts a server with a cleared environment (`CODEX_KEPT`) plus the variables its entry
names in `env_vars`: those carry the agents' and smig's homes. `required = true` makes it wait for
smig's tools before the first request; `commit_migration`'s `approval_mode = "approve"` states that
the one tool writing sessions runs without asking (`codex exec` refuses a tool set to "prompt").
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.codex.home import HOME_VARIABLE
from smig_tui.adapters.agents.profile import user_home
from smig_tui.core.mcp_config import Env, McpConfig, McpLaunch, Started, started_with_env

CODEX_KEPT = ("HOME", "LOGNAME", "PATH", "SHELL", "USER", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ")
"""The variables Codex keeps when it starts a server; `env_vars` adds more."""


def _user_file(env: Env) -> Path:
    return Path(env.get(HOME_VARIABLE) or user_home(env) / ".codex") / "config.toml"


def _entry(launch: McpLaunch) -> dict[str, Any]:
    return {
        "command": launch.command[0],
        "args": list(launch.command[1:]),
        "required": True,
        "env_vars": list(launch.variables),
        "tools": {"commit_migration": {"approval_mode": "approve"}},
    }


def _started(server: Mapping[str, Any], env: Env) -> Started:
    command, _ = started_with_env(server, {})
    kept = {key: env[key] for key in (*CODEX_KEPT, *server.get("env_vars", ())) if key in env}
    extra = server.get("env") or {}
    return command, {**kept, **{key: str(value) for key, value in dict(extra).items()}}


MCP = McpConfig(
    user_file=_user_file,
    project_file=lambda cwd: cwd / ".codex" / "config.toml",
    servers=("mcp_servers",),
    toml=True,
    entry=_entry,
    started=_started,
)
