"""Provides how GitHub Copilot CLI keeps its MCP servers: `mcpServers` in `$COPILOT_HOME/mcp-config.json`.

Copilot CLI 1.0.102 reads the user's `~/.copilot/mcp-config.json` (`COPILOT_HOME` moves it, and then
`~/.copilot` is not read) and, only in a folder the user trusted, a project's `.mcp.json` (else its
`.github/mcp.json`). It takes the plain `{"command": ..., "args": [...]}` entry as well as its own
`{"type": "local", ..., "tools": ["*"]}` and offers every tool of either; smig writes the plain one,
which is also Claude Code's, so the `.mcp.json` both clients read in a project holds one entry that
suits both. It starts the server with its own environment (less its provider settings and tokens), names
the tools `smig-<tool>` and calls itself `copilot-cli`. Tools marked read-only run without asking,
`copilot -p` included; the two writers ask, and `-p`, which cannot ask, refuses them unless
`--allow-tool 'smig(commit_migration)'` (or `--allow-all-tools`) allows them.

It hands the model a result's text, followed by a blank line and its structured content as compact JSON
unless the text is already exactly that (smig's is, so it goes once), and files away a result over
20,480 UTF-8 bytes, whatever the model's window, leaving the model a note with the file's path and its
first 500 characters: so smig's pages for it hold at most `PAGE_CHARS` bytes.
"""

from __future__ import annotations

from smig_tui.adapters.agents.copilot.home import resolve_home
from smig_tui.core.mcp_config import McpConfig

PAGE_CHARS = 20_000
"""The largest page Copilot CLI 1.0.102 passes whole: under its 20,480 bytes, with room for a long
error or note."""

MCP = McpConfig(
    user_file=lambda env: resolve_home(env) / "mcp-config.json",
    project_file=lambda cwd: cwd / ".mcp.json",
    page_chars=PAGE_CHARS,
)
