"""Provides how Qwen Code keeps its MCP servers: `mcpServers` in `settings.json`, and its allow list.

Qwen Code 0.24.4 (a Gemini CLI fork) reads `$QWEN_HOME/settings.json` (`~/.qwen`) and a project's
`.qwen/settings.json`, starts the server with its own environment, and names the tools
`mcp__smig__<tool>`, loaded through its ToolSearch. Every MCP tool asks before it runs unless the
server is trusted (`"trust": true`, in a trusted folder: all tools, the writers included) or a rule of
`permissions.allow` names it; a call that would ask is refused by the one-shot `qwen PROMPT`. So
smig's read-only tools go into `permissions.allow` (the user's own rules kept) and the writers ask.
"""

from __future__ import annotations

from smig_tui.adapters.agents.qwen.home import resolve_home
from smig_tui.core.mcp_config import McpConfig

MCP = McpConfig(
    user_file=lambda env: resolve_home(env) / "settings.json",
    project_file=lambda cwd: cwd / ".qwen" / "settings.json",
    allow=("permissions", "allow"),
    allow_rule=lambda tool: f"mcp__smig__{tool}",
)
