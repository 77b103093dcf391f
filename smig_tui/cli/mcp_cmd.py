"""Provides `smig mcp`: run the MCP server on stdin/stdout for Claude Code, Codex or any MCP client."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from smig_tui.cli.main import Context


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `mcp` to the CLI."""
    mcp = subparsers.add_parser(
        "mcp",
        help="serve smig's tools over MCP (stdio) to your coding agents or any MCP client",
        description="Serve smig's migration tools to an agent over the Model Context Protocol on stdio.",
    )
    mcp.set_defaults(handler=run_mcp)


def run_mcp(args: argparse.Namespace, ctx: Context) -> int:
    """Serve until the client closes stdin; the tools load their dependencies on their first call."""
    from smig_tui.mcp.server import run_stdio

    try:
        run_stdio()
    except KeyboardInterrupt:
        return 130
    return 0
