"""Provides how Qwen Code keeps its MCP servers: `mcpServers` in `settings.json`, and its allow list.

Qwen Code 0.24.4 (a Gemini CLI fork) reads `$QWEN_HOME/settings.json` (`~/.qwen`) and a project's
`.qwen/settings.json`, starts the server with its own environment, and names the tools
`mcp__smig__<tool>`, loaded through its ToolSearch. Every MCP tool asks before it runs unless the
server is trusted (`"trust": true`, in a trusted folder: all tools, the writers included) or a rule of
`permissions.allow` names it; a call that would ask is refused by the one-shot `qwen PROMPT`. So
smig's read-only tools go into `permissions.allow` (the user's own rules kept) and the writers ask.

It hands the model each result twice (the text, then the structured content as JSON, joined by a line
break) and keeps a result over 28,000 characters (`truncateToolOutputThreshold` 25,000 plus 3,000 of
headroom) in a file, giving the model a 2,000-character preview: so smig's pages for it hold at most
`PAGE_CHARS` bytes, whose two copies fit.
"""

from __future__ import annotations

from smig_tui.adapters.agents.qwen.home import resolve_home
from smig_tui.core.mcp_config import McpConfig

PAGE_CHARS = 13_000
"""The largest page Qwen Code 0.24.4 passes whole: two copies and a line break under 28,000 characters
(UTF-8 bytes are never fewer than its JavaScript string length), with room for a long error or note."""

MCP = McpConfig(
    user_file=lambda env: resolve_home(env) / "settings.json",
    project_file=lambda cwd: cwd / ".qwen" / "settings.json",
    allow=("permissions", "allow"),
    allow_rule=lambda tool: f"mcp__smig__{tool}",
    page_chars=PAGE_CHARS,
)
