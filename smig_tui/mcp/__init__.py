"""Provides smig's MCP server front end (`smig mcp`, `python -m smig_tui.mcp`); `mcp` loads only when served."""

from __future__ import annotations
