"""Provides how Gemini CLI keeps its MCP servers: `mcpServers` in `settings.json`, and a policy file.

Gemini CLI 0.61.0 withholds from `gemini -p` every MCP tool that would need approval (`readOnlyHint`
alone counts only in plan mode), so the policy `~/.gemini/policies/smig.toml` allows the tools smig
marks read-only; the two writers still ask in an interactive session.
"""

from __future__ import annotations

from pathlib import Path

from smig_tui.adapters.agents.gemini.home import resolve_home
from smig_tui.core.mcp_config import Env, McpConfig, McpLaunch

POLICY = """\
# Written by `smig mcp --install gemini`: let Gemini CLI run smig's read-only tools without asking,
# `gemini -p` included (it offers no MCP tool that needs approval). commit_migration and memory_sync
# write files and are not read-only, so they still ask (and are not offered to `gemini -p`).
[[rule]]
toolName = "*"
mcpName = "smig"
toolAnnotations = { readOnlyHint = true }
decision = "allow"
priority = 100
"""


def _policy(env: Env, _launch: McpLaunch) -> tuple[tuple[Path, str], ...]:
    return ((resolve_home(env) / "policies" / "smig.toml", POLICY),)


MCP = McpConfig(
    user_file=lambda env: resolve_home(env) / "settings.json",
    project_file=lambda cwd: cwd / ".gemini" / "settings.json",
    extra_files=_policy,
)
