"""Provides `smig mcp`: smig's tools served over MCP on stdio, quick to start.

The server answers the handshake and `tools/list` from `schemas` with the standard library alone;
the migration core (`tools`, services, tokenizers) is imported on the first tool call. Every
argument is checked against the tool's schema first, and every failure comes back as a tool error
of one sentence naming the tool, never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from typing import TYPE_CHECKING, Any

from smig_tui import __version__
from smig_tui.core.errors import SmigError
from smig_tui.mcp.protocol import StdioServer
from smig_tui.mcp.schemas import TOOLS, check_arguments

if TYPE_CHECKING:
    from smig_tui.mcp.tools import SmigTools
    from smig_tui.services import Services

INSTRUCTIONS = (
    "smig moves a Codex CLI, Claude Code, Gemini CLI or OpenCode conversation to another agent or model. Check a window "
    "with model_context_window, find sessions with list_sessions, see what would be kept with "
    "preview_migration, write it with commit_migration, read it in the new agent with get_handoff "
    "(every page, until next_offset is null), and fetch omitted details with recall_omitted. "
    "migrate_session plans an OpenAI-style message array in memory; memory_sync shares long-term memory "
    "among the agents. Nothing is written except by commit_migration and memory_sync with apply=true."
)

CLI_WORDING = (
    (re.compile(r"See `smig models` for the table"), "list_known_models lists the table"),
    (re.compile(r"`smig list` shows the ids"), "list_sessions shows the ids"),
    (re.compile(r"`smig history` lists them"), "get_handoff shows a workspace's newest"),
    (re.compile(r" ?\(or run `smig summarize`\)"), ""),
    (re.compile(r"\(`smig summarize`\)"), "(commit_migration with yes_send=true)"),
    (re.compile(r"--yes-send"), "yes_send=true"),
    (re.compile(r"--strategy ([a-z-]+)"), r"strategy=\1"),
    (re.compile(r"--to ([a-z]+)"), r'to=["\1"]'),
)
"""smig's shared error sentences name CLI commands and flags; a model calling tools needs the tools'
names and arguments instead."""


def for_tools(message: str) -> str:
    """An error sentence in the words of the MCP tools rather than the CLI."""
    for pattern, replacement in CLI_WORDING:
        message = pattern.sub(replacement, message)
    return message


class SmigToolRunner:
    """Runs tool calls: checks the arguments, builds the tools on first use, turns failures into tool errors."""

    def __init__(self, services: Services | None = None) -> None:
        self._services = services
        self._tools: SmigTools | None = None
        self._by_name = {tool["name"]: tool for tool in TOOLS}

    def tools(self) -> SmigTools:
        """The tool bodies, imported and wired on the first call (the handshake needs none of it)."""
        if self._tools is None:
            from smig_tui.mcp.tools import SmigTools
            from smig_tui.services import build_services

            self._tools = SmigTools(self._services or build_services())
        return self._tools

    def __call__(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        tool = self._by_name.get(name)
        if tool is None:
            return _error(f"smig has no tool {name!r}; it has {', '.join(self._by_name)}.")
        problem = check_arguments(tool, arguments)
        if problem:
            return _error(problem)
        given = {key: value for key, value in arguments.items() if value is not None}
        try:
            with contextlib.redirect_stdout(sys.stderr):  # stdout carries the protocol: nothing else may print there
                result = getattr(self.tools(), name)(**given)
        except SmigError as error:
            message = for_tools(str(error))
            return _error(message if message.startswith(name) else f"{name}: {message}")
        except RecursionError:
            return _error(f"{name}: the input is nested too deeply.")
        except MemoryError:
            return _error(f"{name}: the input is too large to process.")
        except Exception as error:  # last resort: the model gets a sentence, the server lives on
            from smig_tui.services import describe_failure

            return _error(f"{name}: {describe_failure(error, 'smig mcp')}")
        return _success(result)


def _success(result: dict[str, Any]) -> dict[str, Any]:
    """A tool's result as both JSON text (what the model reads) and structured content."""
    text = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
    return {"content": [{"type": "text", "text": text}], "structuredContent": result, "isError": False}


def _error(message: str) -> dict[str, Any]:
    """A tool error: the model reads the sentence and can correct its call."""
    return {"content": [{"type": "text", "text": message}], "isError": True}


def build_server(services: Services | None = None) -> StdioServer:
    """The MCP server with every smig tool registered (nothing heavy is imported yet)."""
    return StdioServer("smig", __version__, INSTRUCTIONS, TOOLS, SmigToolRunner(services))


def run_stdio(services: Services | None = None) -> None:
    """Serve over stdin/stdout until the client closes the stream."""
    build_server(services).serve()
