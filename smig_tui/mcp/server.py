"""Provides `smig mcp`: the migration core served over MCP (stdio) with the official `mcp` package.

`mcp` is an optional extra, imported only in `build_server`; `McpMissingError` says how to install
it. Each tool is a thin typed wrapper over `SmigTools`, so pydantic derives its JSON schema from the
signature, and a `SmigError` becomes a tool error carrying its one-sentence message. Calls are
serialised by a lock: the services' memos are not meant for concurrent use.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, cast

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one for schemas before Python 3.12

from smig_tui import __version__
from smig_tui.adapters.crash_log import one_line
from smig_tui.core.errors import SmigError
from smig_tui.mcp.tools import SmigTools
from smig_tui.services import Services, build_services

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

INSTRUCTIONS = (
    "smig moves a Codex CLI or Claude Code conversation to another agent or model. Check a window "
    "with model_context_window, find sessions with list_sessions, see what would be kept with "
    "preview_migration, write it with commit_migration, read it in the new agent with get_handoff, "
    "and fetch omitted details with recall_omitted. migrate_session plans an OpenAI-style message "
    "array in memory. Nothing is written except by commit_migration."
)

StrategyName = Literal["truncate", "tools-first", "as-is", "summary", "summary-tail"]
DestinationName = Literal["store", "claude", "codex", "markdown", "json"]
T = TypeVar("T")
ModelName = Annotated[str, Field(description="model name or alias, e.g. gpt-5.1 or claude-sonnet-4-5")]
SessionId = Annotated[str, Field(description="session id or unique prefix, from list_sessions")]
MigrationId = Annotated[str, Field(description="32-hex-digit id returned by commit_migration or get_handoff")]


class ModelInfo(TypedDict):
    """One row of the capacity table, as the tools return it (gives clients an output schema)."""

    name: str
    provider: str
    context_window: int
    max_output: int
    max_input: int | None
    harness_window: int | None
    encoding: str
    calibration: float
    source: str
    aliases: list[str]


class ModelList(TypedDict):
    """The models matching a query."""

    count: int
    models: list[ModelInfo]


class McpMissingError(SmigError):
    """The optional `mcp` package is not installed."""

    def __init__(self) -> None:
        super().__init__("The MCP server needs the mcp package: install smig-tui[mcp] (pip install 'smig-tui[mcp]').")


def _server_class() -> type[MCPServer[Any]]:
    """The SDK's high-level server (`MCPServer` in mcp 2, `FastMCP` in mcp 1)."""
    try:
        from mcp.server.mcpserver import MCPServer

        return MCPServer
    except ImportError:
        pass
    try:
        from mcp.server.fastmcp import FastMCP  # type: ignore[attr-defined]  # mcp 1.x
    except ImportError:
        raise McpMissingError() from None
    return FastMCP  # type: ignore[return-value]


def _tool_error() -> type[Exception]:
    """The exception the SDK turns into an `isError` tool result."""
    try:
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError:
        from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]
    return ToolError


def build_server(services: Services | None = None) -> MCPServer[Any]:
    """Create the MCP server with every smig tool registered."""
    cls = _server_class()
    try:
        server = cls(name="smig", instructions=INSTRUCTIONS, version=__version__)
    except TypeError:  # mcp 1.x's FastMCP takes no version
        server = cls(name="smig", instructions=INSTRUCTIONS)
    tools = SmigTools(services or build_services())
    tool_error = _tool_error()
    lock = threading.Lock()

    def call(fn: Callable[[], T]) -> T:
        """Run one tool body under the lock, turning smig's errors into tool errors."""
        with lock:
            try:
                return fn()
            except SmigError as error:
                raise tool_error(str(error)) from None
            except RecursionError:
                raise tool_error("The input is nested too deeply.") from None
            except Exception as error:  # the last resort: one line naming a crash log, never a traceback
                raise tool_error(one_line(error, where="smig mcp")) from None

    _register_model_tools(server, tools, call)
    _register_session_tools(server, tools, call)
    return server


def _register_model_tools(server: Any, tools: SmigTools, call: Callable[[Callable[[], Any]], Any]) -> None:
    """The read-only model table tools and the pure in-memory migration."""

    @server.tool()
    def model_context_window(model: ModelName) -> ModelInfo:
        """Return a model's context window, max output, agent-harness usable window, provider, tokenizer encoding and the source of the figures. An unknown name is an error that lists close matches."""
        return cast(ModelInfo, call(lambda: tools.model_context_window(model)))

    @server.tool()
    def list_known_models(query: str = "") -> ModelList:
        """List the models smig knows (name, provider, windows), filtered by a name, alias or provider substring."""
        return cast(ModelList, call(lambda: tools.list_known_models(query)))

    @server.tool()
    def migrate_session(messages_json: str | list[dict[str, Any]], source_model: ModelName, target_model: ModelName,
                        strategy: StrategyName = "truncate", reserve: int | None = None,
                        harness: bool = False) -> dict[str, Any]:
        """Fit an OpenAI-chat message array ([{"role","content"}], content a string or parts, with tool_calls and tool messages) to target_model: counts tokens, decides fit vs compress, and returns the decision, kept/dropped ids, tokens before/after and the migrated messages. Pure: reads and writes nothing. System messages are always kept; reserve is tokens left for the reply; harness applies the agent harness's usable share."""
        return call(lambda: tools.migrate_session(messages_json, source_model, target_model, strategy,
                                                  reserve, harness))


def _register_session_tools(server: Any, tools: SmigTools, call: Callable[[Callable[[], Any]], Any]) -> None:
    """The tools over sessions on this machine and smig's stored migrations."""

    @server.tool()
    def list_sessions(agent: Literal["codex", "claude"] | None = None, cwd: str | None = None,
                      limit: int = 20) -> dict[str, Any]:
        """List Codex and Claude Code sessions on this machine, newest first, optionally only one agent's or those under a folder."""
        return call(lambda: tools.list_sessions(agent, cwd, limit))

    @server.tool()
    def preview_migration(session_id: SessionId, target_model: ModelName, strategy: StrategyName = "truncate",
                          pins: list[str] | None = None, reserve: int | None = None) -> dict[str, Any]:
        """Show what migrating a session to target_model would keep and drop (message ids, tokens, reasons) and the placeholder note; writes nothing. pins are message ids always kept."""
        return call(lambda: tools.preview_migration(session_id, target_model, strategy, pins, reserve))

    @server.tool()
    def commit_migration(session_id: SessionId, target_model: ModelName, strategy: StrategyName = "truncate",
                         to: list[DestinationName] | None = None, dry_run: bool = False,
                         reserve: int | None = None, yes_send: bool = False) -> dict[str, Any]:
        """Commit a migration: always recorded in smig's storage; to=["claude"] and/or ["codex"] also writes a native session that agent can resume. Returns the migration id, every path written and the resume commands. dry_run writes nothing. Summary strategies send the redacted conversation to the configured summarizer only with yes_send."""
        return call(lambda: tools.commit_migration(session_id, target_model, strategy, list(to or []) or None,
                                                   dry_run, reserve, yes_send))

    @server.tool()
    def get_handoff(workspace: str, format: Literal["markdown", "openai", "json"] = "markdown",
                    offset: int = 0, max_chars: int | None = None) -> dict[str, Any]:
        """Return the latest migration stored for a workspace (the project folder) for the agent taking over: its messages as a Markdown handoff (paged by offset/max_chars), OpenAI chat messages or stored JSON."""
        return call(lambda: tools.get_handoff(workspace, format, offset, max_chars))

    @server.tool()
    def recall_omitted(migration_id: MigrationId, query: str, limit: int = 10) -> dict[str, Any]:
        """Return messages a stored migration left out whose text contains the query (case-insensitive phrase, else all its words), read back from the source session after checking its hash. An empty query returns them all, up to limit."""
        return call(lambda: tools.recall_omitted(migration_id, query, limit))


def run_stdio() -> None:
    """Serve over stdin/stdout until the client closes the stream."""
    build_server().run("stdio")
