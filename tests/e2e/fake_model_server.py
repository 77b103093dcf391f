"""Provides a local fake of the Anthropic Messages and OpenAI Responses APIs that records requests.

Given `steps`, it plays a scripted model: each request that offers tools (a turn of the agent, not
one of Claude Code's side requests) takes the next step, a tool call, until the steps run out and
it answers `REPLY`. A step is `{"name": ..., "args": {...}}` (with `"namespace"` for a Responses
function in a namespace, as Codex groups an MCP server's tools) or `{"tool_search": {...}}` (Codex's
client-side tool search, which loads deferred MCP tools).
"""

from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = "smig-e2e-ok"
HOLD_LIMIT = 600
"""Seconds a held turn waits at most, so a test that fails before releasing it cannot hang the server."""


class FakeModelServer:
    """A stdlib HTTP server on 127.0.0.1 in a thread; every request body is kept for assertions."""

    def __init__(self, steps: list[dict[str, Any]] | None = None) -> None:
        self.requests: list[tuple[str, str, dict[str, Any]]] = []
        self.steps = list(steps or [])
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.answered = threading.Event()
        """Set once a model request has been answered."""
        self.release = threading.Event()
        """Cleared, an agent turn (a request offering tools) waits for it before it is answered."""
        self.release.set()
        self.input_tokens = 10
        """The input tokens a reply reports (a large figure makes a client compact its history)."""
        self.reported: list[int] = []
        """Input tokens the next replies report, in order, before `input_tokens` again."""
        self.held = threading.Event()
        """Set when an agent turn arrived and waits for `release`: the client is mid-turn."""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Base URL without a path."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def next_step(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The scripted step for this request: only agent turns (requests offering tools) take one."""
        with self._lock:
            if not body.get("tools") or not self.steps:
                return None
            return self.steps.pop(0)

    def next_input_tokens(self) -> int:
        """The input tokens the reply being made reports."""
        with self._lock:
            return self.reported.pop(0) if self.reported else self.input_tokens

    def new_id(self, prefix: str) -> str:
        """A unique id for a tool call."""
        return f"{prefix}{next(self._ids):024d}"

    def bodies(self, path_suffix: str) -> list[dict[str, Any]]:
        """Bodies of the POST requests whose path ends with `path_suffix`."""
        return [
            body
            for method, path, body in self.requests
            if method == "POST" and path.split("?")[0].endswith(path_suffix)
        ]


class JsonRequestHandler(BaseHTTPRequestHandler):
    """What every fake model server's handler shares: quiet logs, a JSON body, a sized reply."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *_: Any) -> None:  # keep test output clean
        return

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            data = json.loads(raw) if raw else {}
        except ValueError:
            data = {"_raw": raw.decode("utf-8", "replace")}
        return data if isinstance(data, dict) else {"_value": data}

    def _send(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def _handler(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonRequestHandler):
        def do_GET(self) -> None:
            server.requests.append(("GET", self.path, {}))
            path = self.path.split("?")[0]
            if path.endswith("/models"):
                self._send(200, json.dumps({"data": [], "models": []}).encode(), "application/json")
            else:
                self._send(404, b'{"error":{"type":"not_found","message":"fake"}}', "application/json")

        def do_HEAD(self) -> None:
            self._send(200, b"", "text/plain")

        def do_POST(self) -> None:
            body = self._body()
            server.requests.append(("POST", self.path, body))
            path = self.path.split("?")[0]
            if body.get("tools") and not server.release.is_set():
                server.held.set()
                server.release.wait(HOLD_LIMIT)
            if path.endswith("/messages/count_tokens"):
                self._send(200, b'{"input_tokens": 100}', "application/json")
            elif path.endswith("/messages"):
                self._anthropic(body)
            elif path.endswith("/responses"):
                self._responses(body)
            else:
                self._send(404, b'{"error":{"type":"not_found","message":"fake"}}', "application/json")

        def _anthropic(self, body: dict[str, Any]) -> None:
            model = body.get("model", "claude-sonnet-4-5")
            message = {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": server.next_input_tokens(), "output_tokens": 1},
            }
            step = server.next_step(body)
            if step is not None:
                self._anthropic_tool_use(body, message, step)
                return
            if not body.get("stream"):
                message.update(content=[{"type": "text", "text": REPLY}], stop_reason="end_turn")
                self._send(200, json.dumps(message).encode(), "application/json")
                server.answered.set()
                return
            events = [
                ("message_start", {"type": "message_start", "message": message}),
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                ),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": REPLY}},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                        "usage": {"output_tokens": 1},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
            self._sse(events)

        def _anthropic_tool_use(self, body: dict[str, Any], message: dict[str, Any], step: dict[str, Any]) -> None:
            block = {"type": "tool_use", "id": server.new_id("toolu_"), "name": step["name"], "input": step["args"]}
            if not body.get("stream"):
                message.update(content=[block], stop_reason="tool_use")
                self._send(200, json.dumps(message).encode(), "application/json")
                return
            events: list[tuple[str, dict[str, Any]]] = [
                ("message_start", {"type": "message_start", "message": message}),
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": 0, "content_block": {**block, "input": {}}},
                ),
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(step["args"])},
                    },
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                        "usage": {"output_tokens": 1},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
            self._sse(events)

        def _responses_item(self, step: dict[str, Any]) -> dict[str, Any]:
            """A Responses output item calling a tool, or running Codex's tool search."""
            if "tool_search" in step:
                return {
                    "type": "tool_search_call",
                    "id": server.new_id("ts_"),
                    "call_id": server.new_id("call_"),
                    "status": "completed",
                    "execution": "client",
                    "arguments": step["tool_search"],
                }
            item = {
                "type": "function_call",
                "id": server.new_id("fc_"),
                "call_id": server.new_id("call_"),
                "name": step["name"],
                "arguments": json.dumps(step["args"]),
                "status": "completed",
            }
            if step.get("namespace"):
                item["namespace"] = step["namespace"]
            return item

        def _responses(self, body: dict[str, Any]) -> None:
            step = server.next_step(body)
            text = {
                "type": "message",
                "role": "assistant",
                "id": "msg_fake",
                "status": "completed",
                "content": [{"type": "output_text", "text": REPLY, "annotations": []}],
            }
            item = text if step is None else self._responses_item(step)
            usage = {
                "input_tokens": server.next_input_tokens(),
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 1,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 11,
            }
            response = {
                "id": "resp_fake",
                "object": "response",
                "status": "completed",
                "model": body.get("model", "fake"),
                "output": [item],
                "usage": usage,
            }
            streamed: list[tuple[str, dict[str, Any]]] = (
                [
                    (
                        "response.output_item.added",
                        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
                    ),
                    (
                        "response.output_text.delta",
                        {
                            "type": "response.output_text.delta",
                            "item_id": "msg_fake",
                            "output_index": 0,
                            "content_index": 0,
                            "delta": REPLY,
                        },
                    ),
                ]
                if step is None
                else [
                    (
                        "response.output_item.added",
                        {"type": "response.output_item.added", "output_index": 0, "item": item},
                    ),
                ]
            )
            events: list[tuple[str, dict[str, Any]]] = [
                (
                    "response.created",
                    {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
                ),
                *streamed,
                ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
                ("response.completed", {"type": "response.completed", "response": response}),
            ]
            self._sse(events)

        def _sse(self, events: list[tuple[str, dict[str, Any]]]) -> None:
            payload = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
            self._send(200, payload.encode(), "text/event-stream")
            server.answered.set()

    return Handler
