"""Provides smig's MCP server front end (`smig mcp`, `python -m smig_tui.mcp`): a stdio server needing only the standard library to start."""

from __future__ import annotations
