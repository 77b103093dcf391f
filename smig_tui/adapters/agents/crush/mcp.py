"""Provides how Crush keeps its MCP servers: the `mcp` table of `crush.json`, and its allow list.

Read from Crush's source (`internal/config`, the version docs/formats/crush.md names; its client cannot
be installed offline here, so this recipe is not yet proven inside the real client): the user's file is
`$CRUSH_GLOBAL_CONFIG/crush.json`, else `$XDG_CONFIG_HOME/crush/crush.json`, else
`~/.config/crush/crush.json`; a project's `crush.json` is read from the folder up to the git root. A
server is `{"type": "stdio", "command": ..., "args": [...]}` and is started with Crush's own environment
plus the entry's `env`. Its tools are named `mcp_<server>_<tool>`, and each asks before it runs unless
`permissions.allowed_tools` names it (or `<name>:execute`): smig's read-only tools go there, the user's
own entries kept, and the writers ask. Crush hands a tool's text to the model whole (no cut of its own).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.profile import Env, environment, user_home
from smig_tui.core.mcp_config import McpConfig, McpLaunch, command_and_args

CONFIG_VARIABLE = "CRUSH_GLOBAL_CONFIG"
SCHEMA = "https://charm.land/crush.json"


def user_file(env: Env = None) -> Path:
    """The user's `crush.json`, where the environment puts Crush's config folder."""
    values = environment(env)
    if values.get(CONFIG_VARIABLE):
        return Path(values[CONFIG_VARIABLE]).expanduser() / "crush.json"
    config = Path(values["XDG_CONFIG_HOME"]) if values.get("XDG_CONFIG_HOME") else user_home(env) / ".config"
    return config / "crush" / "crush.json"


def _entry(launch: McpLaunch) -> dict[str, Any]:
    return {"type": "stdio", **command_and_args(launch)}


MCP = McpConfig(
    user_file=user_file,
    project_file=lambda cwd: cwd / "crush.json",
    servers=("mcp",),
    entry=_entry,
    new_file=(("$schema", SCHEMA),),
    allow=("permissions", "allowed_tools"),
    allow_rule=lambda tool: f"mcp_smig_{tool}",
)
