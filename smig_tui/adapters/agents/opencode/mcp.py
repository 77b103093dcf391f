"""Provides how OpenCode and its descendants keep their MCP servers: the `mcp` key of their JSON config.

OpenCode 1.18.33 reads `$XDG_CONFIG_HOME/opencode/opencode.json` (the file its config variable names
instead), or a project's `opencode.json`; an entry is `{"type": "local", "command": [...]}` and its
variables are `environment`. It runs every MCP call without asking. A descendant (Kilo Code) keeps the
same shape under its own names (`Variant`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.opencode.variant import OPENCODE, Variant
from smig_tui.adapters.agents.profile import user_home
from smig_tui.core.mcp_config import Env, McpConfig, McpLaunch, Started


def config_folder(env: Env, variant: Variant) -> Path:
    """The client's config folder: its own variable for it, else `$XDG_CONFIG_HOME/<folder>`."""
    if variant.config_dir_env and env.get(variant.config_dir_env):
        return Path(env[variant.config_dir_env])
    config = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else user_home(env) / ".config"
    return config / variant.folder


def _entry(launch: McpLaunch) -> dict[str, Any]:
    return {"type": "local", "command": list(launch.command), "enabled": True}


def _started(server: Mapping[str, Any], env: Env) -> Started:
    command = [str(part) for part in server.get("command") or []]
    extra = server.get("environment") or {}
    return command, {**env, **{key: str(value) for key, value in dict(extra).items()}}


def mcp_config(variant: Variant, schema: str) -> McpConfig:
    """The MCP configuration of OpenCode or a descendant: its config file, `$schema` for a new one."""

    def user_file(env: Env) -> Path:
        if env.get(variant.config_env):
            return Path(env[variant.config_env])
        return config_folder(env, variant) / variant.config_files[0]

    return McpConfig(
        user_file=user_file,
        project_file=lambda cwd: cwd / variant.config_files[0],
        servers=("mcp",),
        entry=_entry,
        started=_started,
        new_file=(("$schema", schema),),
    )


MCP = mcp_config(OPENCODE, "https://opencode.ai/config.json")
