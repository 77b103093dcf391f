"""Provides how Claude Code keeps its MCP servers: `mcpServers` in `~/.claude.json` or a project's `.mcp.json`."""

from __future__ import annotations

from pathlib import Path

from smig_tui.adapters.agents.claude.home import HOME_VARIABLE
from smig_tui.adapters.agents.profile import user_home
from smig_tui.core.mcp_config import Env, McpConfig


def _user_file(env: Env) -> Path:
    folder = Path(env[HOME_VARIABLE]) if env.get(HOME_VARIABLE) else user_home(env)
    return folder / ".claude.json"


MCP = McpConfig(user_file=_user_file, project_file=lambda cwd: cwd / ".mcp.json")
"""Claude Code 2.1.332 starts the server with its own environment, so every home reaches smig as it is."""
