"""Provides the MCP stdio transport: JSON-RPC 2.0, one message per line, the handshake and tool calls.

smig speaks the protocol itself rather than through the `mcp` SDK: importing the SDK alone took
0.6-0.9 s here, and Codex sends its first model request 0.6-1.2 s after starting a server, so a slow
start left smig's tools out of that request. This module needs only the standard library; the
tools' own imports happen on their first call. Only what a tools-only server needs is implemented:
`initialize`, `ping`, `tools/list`, `tools/call`; everything else is "method not found".
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import IO, Any

from smig_tui.core.encoding import utf8

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""Handshake revisions served, newest first; a client asking for another gets the newest."""
MAX_LINE_BYTES = 64_000_000
"""Largest request line read at all; the 20 MB cap on `messages_json` is checked on the decoded value,
since escaping a JSON document inside a JSON string can nearly double its size on the wire."""
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)

ToolCaller = Callable[[str, dict[str, Any]], dict[str, Any]]
"""Runs a tool by name and returns its `CallToolResult` (content, structuredContent, isError)."""


class StdioServer:
    """A tools-only MCP server over a pair of byte streams."""

    def __init__(
        self, name: str, version: str, instructions: str, tools: list[dict[str, Any]], call_tool: ToolCaller
    ) -> None:
        self.info = {"name": name, "version": version}
        self.instructions = instructions
        self.tools = tools
        self.call_tool = call_tool

    def serve(self, reader: IO[bytes] | None = None, writer: IO[bytes] | None = None) -> None:
        """Answer requests until the input closes."""
        reader = reader or sys.stdin.buffer
        writer = writer or sys.stdout.buffer
        while True:
            line = reader.readline(MAX_LINE_BYTES + 1)
            if not line:
                return
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                _skip_rest_of_line(reader)
                self._send(
                    writer,
                    _error(
                        None,
                        INVALID_REQUEST,
                        "The request is larger than 64 MB; migrate_session accepts at most 20 MB of messages_json.",
                    ),
                )
                continue
            if not line.strip():
                continue
            reply = self.handle_line(line)
            if reply is None:
                continue
            try:
                self._send(writer, reply)
            except (BrokenPipeError, ConnectionResetError):
                return  # the client has gone: nothing left to answer

    def handle_line(self, line: bytes) -> dict[str, Any] | None:
        """The reply to one JSON-RPC message, or None for a notification."""
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return _error(None, PARSE_ERROR, "The request is not valid JSON.")
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or "method" not in message:
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return None  # a reply to a request smig never sends
            return _error(
                message.get("id") if isinstance(message, dict) else None, INVALID_REQUEST, "Not a JSON-RPC 2.0 request."
            )
        if "id" not in message:
            return None  # notifications (initialized, cancelled, ...) need no answer
        try:
            return self._dispatch(message)
        except Exception as error:  # last resort: a sentence to the client, and serve on
            return _error(message["id"], INTERNAL_ERROR, f"smig failed on this request ({type(error).__name__}).")

    def _dispatch(self, message: dict[str, Any]) -> dict[str, Any]:
        """The reply to one request."""
        request_id, method = message["id"], message["method"]
        params = message.get("params") or {}
        if not isinstance(params, dict):
            return _error(request_id, INVALID_PARAMS, "params must be an object.")
        if method == "initialize":
            return _result(request_id, self._initialize(params))
        if method == "ping":
            return _result(request_id, {})
        if method == "tools/list":
            return _result(request_id, {"tools": self.tools})
        if method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments") or {}
            if not isinstance(name, str) or not isinstance(arguments, dict):
                return _error(request_id, INVALID_PARAMS, "tools/call needs a tool name and an arguments object.")
            return _result(request_id, self.call_tool(name, arguments))
        return _error(request_id, METHOD_NOT_FOUND, f"smig does not serve {method!r}.")

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        """The handshake: the client's protocol revision when smig serves it, else smig's newest."""
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": self.info,
            "instructions": self.instructions,
        }

    @staticmethod
    def _send(writer: IO[bytes], message: dict[str, Any]) -> None:
        """Write one message as one line (JSON escapes every newline inside it)."""
        writer.write(utf8(json.dumps(message, ensure_ascii=False, separators=(",", ":"))) + b"\n")
        writer.flush()


def _result(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _skip_rest_of_line(reader: IO[bytes]) -> None:
    """Drop the rest of an oversized line without holding it in memory."""
    while True:
        chunk = reader.readline(1 << 20)
        if not chunk or chunk.endswith(b"\n"):
            return
