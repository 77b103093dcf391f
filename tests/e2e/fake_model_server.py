"""Provides a local fake of the Anthropic Messages, OpenAI Responses and OpenAI Chat Completions APIs.

Given `steps`, it plays a scripted model: each request that takes a step (by default one that offers
tools: a turn of the agent, not one of Claude Code's side requests; Aider offers no tools, so its
helper passes a `takes_step` that gives every request one) takes the next step until the steps run
out, then it answers `reply` (`REPLY` unless given). A step is `{"name": ..., "args": {...}}` (with
`"namespace"` for a Responses function in a namespace, as Codex groups an MCP server's tools),
`{"tool_search": {...}}` (Codex's client-side tool search, which loads deferred MCP tools) or
`{"text": ...}` (a plain reply, so each turn of a recorded chat can say something of its own).

`GET /models` lists `models` (for a client that checks its model exists). Every request is kept
in `requests`; with `log_path` it is also appended to that file as one JSON
line (`method`, `path`, `body`), the record a fixture keeps of what the client sent the model.
Replies report as their input tokens a step's own `"input_tokens"`, else the next of `reported`,
else `input_tokens` (10 unless set), so a test can make a client believe its context is full.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPLY = "smig-e2e-ok"
HOLD_LIMIT = 600
"""Seconds a held turn waits at most, so a test that fails before releasing it cannot hang the server."""


def offers_tools(body: dict[str, Any]) -> bool:
    """The default `takes_step`: only an agent's turn (a request offering tools) takes a scripted step."""
    return bool(body.get("tools"))


class FakeModelServer:
    """A stdlib HTTP server on 127.0.0.1 in a thread; every request body is kept for assertions."""

    def __init__(
        self,
        steps: list[dict[str, Any]] | None = None,
        log_path: Path | None = None,
        reply: str = REPLY,
        takes_step: Callable[[dict[str, Any]], bool] = offers_tools,
        models: tuple[str, ...] = (),
    ) -> None:
        self.requests: list[tuple[str, str, dict[str, Any]]] = []
        self.steps = list(steps or [])
        self.reply = reply
        """The text of every reply no step answers (side requests, and turns once the steps run out)."""
        self.log_path = log_path
        self.takes_step = takes_step
        """Which request bodies take the next step (the others are answered `reply`)."""
        self.models = models
        """Model ids `GET /models` lists in the OpenAI shape."""
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

    def record(self, method: str, path: str, body: dict[str, Any]) -> None:
        """Keep one request, and log it when a log file was given."""
        with self._lock:
            self.requests.append((method, path, body))
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps({"method": method, "path": path, "body": body}, ensure_ascii=False) + "\n")

    def next_step(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The scripted step for this request, or None when it takes none (`takes_step`) or none is left."""
        with self._lock:
            if not self.steps or not self.takes_step(body):
                return None
            return self.steps.pop(0)

    def next_input_tokens(self) -> int:
        """The input tokens the reply being made reports."""
        with self._lock:
            return self.reported.pop(0) if self.reported else self.input_tokens

    def reported_input(self, step: dict[str, Any] | None) -> int:
        """The input tokens a reply reports: the step's own `input_tokens`, else `next_input_tokens`."""
        return int(step["input_tokens"]) if step is not None and "input_tokens" in step else self.next_input_tokens()

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


def _reply_text(server: FakeModelServer, step: dict[str, Any] | None) -> str:
    """The text of a reply: a text step's own, else the server's `reply`."""
    return str(step["text"]) if step is not None and "text" in step else server.reply


def _handler(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonRequestHandler):
        def do_GET(self) -> None:
            server.record("GET", self.path, {})
            path = self.path.split("?")[0]
            if path.endswith("/models"):
                listed = [{"id": model, "object": "model", "owned_by": "fake"} for model in server.models]
                # OpenAI's list (`data`); Codex reads `models` and finds none, so it keeps its own catalog
                models = {"object": "list", "data": listed, "models": []}
                self._send(200, json.dumps(models).encode(), "application/json")
            else:
                self._send(404, b'{"error":{"type":"not_found","message":"fake"}}', "application/json")

        def do_HEAD(self) -> None:
            self._send(200, b"", "text/plain")

        def do_POST(self) -> None:
            body = self._body()
            server.record("POST", self.path, body)
            path = self.path.split("?")[0]
            if body.get("tools") and not server.release.is_set():
                server.held.set()
                server.release.wait(HOLD_LIMIT)
            if path.endswith("/chat/completions"):
                self._chat_completions(body)
            elif path.endswith("/messages/count_tokens"):
                self._send(200, b'{"input_tokens": 100}', "application/json")
            elif path.endswith("/messages"):
                self._anthropic(body)
            elif path.endswith("/responses"):
                self._responses(body)
            else:
                self._send(404, b'{"error":{"type":"not_found","message":"fake"}}', "application/json")

        def _anthropic(self, body: dict[str, Any]) -> None:
            model = body.get("model", "claude-sonnet-4-5")
            step = server.next_step(body)
            message = {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": server.reported_input(step), "output_tokens": 1},
            }
            if step is not None and "name" in step:
                self._anthropic_tool_use(body, message, step)
                return
            text = _reply_text(server, step)
            if not body.get("stream"):
                message.update(content=[{"type": "text", "text": text}], stop_reason="end_turn")
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
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
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
            calls = step is not None and "text" not in step
            reply = _reply_text(server, step)
            text = {
                "type": "message",
                "role": "assistant",
                "id": "msg_fake",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply, "annotations": []}],
            }
            item = self._responses_item(step) if step is not None and calls else text
            prompt = server.reported_input(step)
            usage = {
                "input_tokens": prompt,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 1,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": prompt + 1,
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
                            "delta": reply,
                        },
                    ),
                ]
                if not calls
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

        def _chat_completions(self, body: dict[str, Any]) -> None:
            """OpenAI Chat Completions: a text reply or a tool call, as one JSON or as SSE chunks."""
            step = server.next_step(body)
            message: dict[str, Any] = {"role": "assistant", "content": _reply_text(server, step)}
            finish = "stop"
            if step is not None and "name" in step:
                call = {
                    "id": server.new_id("call_"),
                    "type": "function",
                    "function": {"name": step["name"], "arguments": json.dumps(step["args"], ensure_ascii=False)},
                }
                message = {"role": "assistant", "content": None, "tool_calls": [call]}
                finish = "tool_calls"
            prompt = server.reported_input(step)
            usage = {"prompt_tokens": prompt, "completion_tokens": 1, "total_tokens": prompt + 1}
            head = {"id": "chatcmpl-fake", "created": 0, "model": body.get("model", "fake")}
            if not body.get("stream"):
                reply = {
                    **head,
                    "object": "chat.completion",
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                }
                self._send(200, json.dumps(reply).encode(), "application/json")
                server.answered.set()
                return
            delta = dict(message)
            if "tool_calls" in delta:
                delta["tool_calls"] = [{"index": index, **call} for index, call in enumerate(delta["tool_calls"])]
            chunk = {**head, "object": "chat.completion.chunk"}
            chunks = [
                {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            ]
            if (body.get("stream_options") or {}).get("include_usage"):
                chunks.append({**chunk, "choices": [], "usage": usage})
            payload = "".join(f"data: {json.dumps(data)}\n\n" for data in chunks) + "data: [DONE]\n\n"
            self._send(200, payload.encode(), "text/event-stream")
            server.answered.set()

        def _sse(self, events: list[tuple[str, dict[str, Any]]]) -> None:
            payload = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
            self._send(200, payload.encode(), "text/event-stream")
            server.answered.set()

    return Handler


if __name__ == "__main__":  # serve until interrupted: LOG_FILE [STEPS_JSON] [--every-request]; prints the base URL
    args = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    log = Path(args[0]) if args else None
    script = json.loads(Path(args[1]).read_text(encoding="utf-8")) if len(args) > 1 else []
    takes = (lambda _body: True) if "--every-request" in sys.argv else offers_tools
    with FakeModelServer(script, log_path=log, takes_step=takes) as fake:
        print(fake.url, flush=True)
        threading.Event().wait()
