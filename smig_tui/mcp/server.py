"""Provides `smig mcp`: smig's tools, prompts and resources served over MCP on stdio, quick to start.

The server answers the handshake and the static lists (`tools/list`, `prompts/list`,
`resources/templates/list`) from `schemas` and `prompts` with the standard library alone; the
migration core (`tools`, `handoffs`, services, tokenizers) is imported by the first request that
needs it, on a worker. Every tool argument is checked against the tool's schema first, and every
failure comes back as a tool error of one sentence naming the tool, never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from smig_tui import __version__
from smig_tui.core.errors import SmigError
from smig_tui.mcp.prompts import PROMPTS, RESOURCE_TEMPLATES
from smig_tui.mcp.protocol import INVALID_PARAMS, Call, Method, RequestCancelled, RpcError, StdioServer
from smig_tui.mcp.schemas import TOOLS, check_arguments
from smig_tui.mcp.words import for_tools
from smig_tui.plugins import agent_names

if TYPE_CHECKING:
    from smig_tui.mcp.handoffs import Handoffs
    from smig_tui.mcp.tools import SmigTools
    from smig_tui.services import Services

INSTRUCTIONS = (
    f"smig moves a {agent_names('or')} conversation to another agent or model. "
    "Check a window with model_context_window, find sessions with list_sessions, see what would be kept "
    "with preview_migration, write it with commit_migration, read it in the new agent with get_handoff "
    "(every page, until next_offset is null), and fetch omitted details with recall_omitted. "
    "migrate_session plans an OpenAI-style message array in memory; memory_sync shares long-term memory "
    "among the agents. Nothing is written except by commit_migration and memory_sync with apply=true. "
    "The continue_from_agent prompt and the smig://session/{id} resources put a session, fitted to your "
    "window, into the conversation."
)
CAPABILITIES = {
    "tools": {"listChanged": False},
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "completions": {},
}
STATIC, PRIVATE = (3_600_000, "public"), (0, "private")
"""Cache hints of 2026-07-28 results: the lists fixed for the process, and the machine's sessions."""


class ReadProgress:
    """Turns smig's per-file reading progress into one rising MCP progress figure for a request.

    A request may read several files (a listing, then one big session): bytes are added up across
    them. A report goes out every 1% (at least every MiB) of what is known to be read, and every
    report is also where a cancelled request stops.
    """

    STEP = 1 << 20

    def __init__(self, call: Call) -> None:
        self.call = call
        self.base = 0
        self.last = (0, 0)
        self.sent = 0

    def __call__(self, done: int, total: int) -> None:
        self.call.check()
        if total != self.last[1] or done < self.last[0]:
            self.base += self.last[1]  # another file: what came before counts as read
        self.last = (done, total)
        progress, whole = self.base + done, self.base + total
        if progress - self.sent >= max(self.STEP, whole // 100):
            self.sent = progress
            self.call.progress(progress, whole, f"read {progress / 1e6:,.1f} of {whole / 1e6:,.1f} MB")


class SmigToolRunner:
    """Runs tool calls: checks the arguments, builds the tools on first use, turns failures into tool errors."""

    def __init__(self, services: Services | None = None) -> None:
        self._services = services
        self._tools: SmigTools | None = None
        self._handoffs: Handoffs | None = None
        self._by_name = {tool["name"]: tool for tool in TOOLS}

    @contextlib.contextmanager
    def _request(self) -> Iterator[None]:
        """One request's span: the cyclic collector paused (`no_cyclic_gc`), as the CLI runs a command on
        one session, and the sessions it read let go at its end.

        The readers and the planner pause the collector while they build, but between those pauses its
        passes walked the whole session again and again: 0.5-0.7 s of a 5.5 s preview of a 500 MB
        session. At the end the memos let go of the sessions read (`Services.forget_released`: a later
        request reads a session anew), so they are freed before the collector is back, not walked once
        more (0.17 s) and kept until the next read. The server lives on, so nothing is frozen
        (`gc.freeze`): cycles that become garbage later are still collected."""
        from smig_tui.services import no_cyclic_gc

        with no_cyclic_gc():
            try:
                yield
            finally:
                if self._services is not None:
                    self._services.forget_released()

    def services(self) -> Services:
        """smig's services, built on the first request that needs them (the handshake needs none)."""
        if self._services is None:
            from smig_tui.services import build_services

            self._services = build_services()
        return self._services

    def tools(self) -> SmigTools:
        """The tool bodies, imported and wired on the first call."""
        if self._tools is None:
            from smig_tui.mcp.tools import SmigTools

            self._tools = SmigTools(self.services())
        return self._tools

    def handoffs(self) -> Handoffs:
        """The prompts' and resources' bodies, imported on first use."""
        if self._handoffs is None:
            from smig_tui.mcp.handoffs import Handoffs

            self._handoffs = Handoffs(self.services())
        return self._handoffs

    def call_tool(self, call: Call) -> dict[str, Any]:
        """`tools/call`: an unknown tool is a protocol error; everything else a tool result."""
        name, arguments = call.params.get("name"), call.params.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "tools/call needs a tool name and an arguments object.")
        if name not in self._by_name:
            raise RpcError(INVALID_PARAMS, f"smig has no tool {name!r}; it has {', '.join(self._by_name)}.")
        return self(name, arguments, call)

    def __call__(self, name: str, arguments: dict[str, Any], call: Call | None = None) -> dict[str, Any]:
        problem = check_arguments(self._by_name[name], arguments)
        if problem:
            return _error(problem)
        given = {key: value for key, value in arguments.items() if value is not None}
        try:
            with self._request():
                result = self._run(name, given, call)
        except RequestCancelled:
            raise
        except SmigError as error:
            message = for_tools(error)
            return _error(message if message.startswith(name) else f"{name}: {message}")
        except RecursionError:
            return _error(f"{name}: the input is nested too deeply.")
        except MemoryError:
            return _error(f"{name}: the input is too large to process.")
        except Exception as error:  # last resort: the model gets a sentence, the server lives on
            from smig_tui.services import describe_failure

            return _error(f"{name}: {describe_failure(error, 'smig mcp')}")
        return _success(result)

    def _run(self, name: str, given: dict[str, Any], call: Call | None) -> dict[str, Any]:
        """Run one tool body, reporting how far its reading has got when the client asked."""
        body = getattr(self.tools(), name)  # `tools.BODIES` holds that every listed tool has one
        if call is None:
            result: dict[str, Any] = body(**given)
            return result
        from smig_tui.mcp.tools import pages_for
        from smig_tui.services import reading_progress

        with reading_progress(ReadProgress(call)), pages_for(page_ceiling(call.client)):
            result = body(**given)
            return result

    def with_progress(self, call: Call, work: str) -> dict[str, Any]:
        """Run a prompt, resource or completion request (named by `work`) with reading progress."""
        from smig_tui.services import reading_progress

        handoffs = self.handoffs()
        with reading_progress(ReadProgress(call)), self._request():
            result: dict[str, Any] = getattr(handoffs, work)(call)
            return result


def page_ceiling(client: dict[str, Any]) -> int | None:
    """The largest page the calling client's agent passes whole, when its profile says (None: the usual)."""
    from smig_tui.plugins import agent_profiles

    name = str(client.get("name") or "")
    found = next((entry for entry in agent_profiles() if entry.mcp is not None and entry.is_client(name)), None)
    return found.mcp.page_chars if found is not None and found.mcp is not None else None


def _success(result: dict[str, Any]) -> dict[str, Any]:
    """A tool's result as both JSON text (what the model reads) and structured content."""
    text = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
    return {"content": [{"type": "text", "text": text}], "structuredContent": result, "isError": False}


def _error(message: str) -> dict[str, Any]:
    """A tool error: the model reads the sentence and can correct its call."""
    return {"content": [{"type": "text", "text": message}], "isError": True}


def _one_page(what: str, key: str, items: list[dict[str, Any]]) -> Method:
    """A list smig serves whole: a cursor can only be one smig never gave."""

    def answer(call: Call) -> dict[str, Any]:
        if call.params.get("cursor") is not None:
            raise RpcError(
                INVALID_PARAMS, f"{what} has a single page; cursor {call.params['cursor']!r} is not one smig gave."
            )
        return {key: items}

    return Method(answer, inline=True, cache=STATIC)


def methods(runner: SmigToolRunner) -> dict[str, Method]:
    """Every MCP method smig serves besides the handshake, discovery and ping."""

    def handoff(work: str) -> Method:
        return Method(
            lambda call: runner.with_progress(call, work), cache=PRIVATE if work.startswith("resource") else None
        )

    return {
        "tools/list": _one_page("tools/list", "tools", TOOLS),
        "tools/call": Method(runner.call_tool),
        "prompts/list": _one_page("prompts/list", "prompts", PROMPTS),
        "prompts/get": handoff("get_prompt"),
        "resources/templates/list": _one_page("resources/templates/list", "resourceTemplates", RESOURCE_TEMPLATES),
        "resources/list": handoff("resources"),
        "resources/read": handoff("resource"),
        "completion/complete": handoff("complete"),
    }


def build_server(services: Services | None = None) -> StdioServer:
    """The MCP server with every smig tool, prompt and resource registered (nothing heavy is imported yet)."""
    return StdioServer("smig", __version__, INSTRUCTIONS, methods(SmigToolRunner(services)), CAPABILITIES)


def run_stdio(services: Services | None = None) -> None:
    """Serve over stdin/stdout until the client closes the stream.

    The protocol keeps the real stdout to itself: file descriptor 1 and `sys.stdout` point at
    stderr while serving, so nothing a tool, a library or a child process prints can corrupt a message.
    """
    stdout = sys.stdout
    stdout.flush()
    protocol_out = os.fdopen(os.dup(stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), stdout.fileno())
    sys.stdout = sys.stderr
    try:
        build_server(services).serve(sys.stdin.buffer, protocol_out)
    finally:
        sys.stdout = stdout
        os.dup2(protocol_out.fileno(), stdout.fileno())
        with contextlib.suppress(OSError):
            protocol_out.close()
