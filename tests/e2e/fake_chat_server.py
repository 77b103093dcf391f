"""Provides a local fake of the OpenAI Chat Completions API (`/v1/chat/completions`) that records requests.

Aider (through LiteLLM) and the OpenCode-style clients' `@ai-sdk/openai-compatible` provider speak
Chat Completions, which `fake_model_server.py` (Responses and Messages) does not. It plays a script
the same way: a request that takes a step (by default one offering tools, an agent's turn) gets the
next one until they run out, then `REPLY`. A step is `{"name": ..., "args": {...}}` (a tool call),
`{"text": ...}` (a reply of its own) and may carry `"input_tokens"` (the prompt usage its reply
reports, to make a client believe its window is full). Aider offers no tools, so its helper passes
`takes_step` to give every request a step.

Every request is kept in `requests` and, with `log_path`, appended to that file as one JSON line
(`method`, `path`, `body`): the record a fixture keeps of what the client sent the model.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from fake_model_server import REPLY, JsonRequestHandler

Step = dict[str, Any]


def offers_tools(body: dict[str, Any]) -> bool:
    """The default: only an agent's turn (a request offering tools) takes a scripted step."""
    return bool(body.get("tools"))


class FakeChatServer:
    """A stdlib HTTP server on 127.0.0.1 in a thread answering Chat Completions from a script."""

    def __init__(
        self,
        steps: list[Step] | None = None,
        log_path: Path | None = None,
        takes_step: Callable[[dict[str, Any]], bool] = offers_tools,
        models: tuple[str, ...] = (),
    ) -> None:
        self.requests: list[tuple[str, str, dict[str, Any]]] = []
        self.steps = list(steps or [])
        self.log_path = log_path
        self.takes_step = takes_step
        self.models = models
        """Model ids `GET /models` lists (a client that checks its model exists finds it)."""
        self.input_tokens = 10
        """The prompt tokens a reply reports unless its step says otherwise."""
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Base URL without a path (clients are given `url + "/v1"`)."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeChatServer:
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

    def next_step(self, body: dict[str, Any]) -> Step | None:
        """The scripted step for this request, or None (answer `REPLY`)."""
        with self._lock:
            if not self.steps or not self.takes_step(body):
                return None
            return self.steps.pop(0)

    def new_id(self) -> str:
        """A unique tool-call id."""
        return f"call_{next(self._ids):024d}"

    def chats(self) -> list[dict[str, Any]]:
        """Bodies of the Chat Completions requests, in order."""
        return [
            body
            for method, path, body in self.requests
            if method == "POST" and path.split("?")[0].endswith("/chat/completions")
        ]


def reply_message(server: FakeChatServer, step: Step | None) -> tuple[dict[str, Any], str]:
    """The assistant message for a step and its finish reason."""
    if step is not None and "name" in step:
        call = {
            "id": server.new_id(),
            "type": "function",
            "function": {"name": step["name"], "arguments": json.dumps(step["args"], ensure_ascii=False)},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
    text = str(step["text"]) if step is not None and "text" in step else REPLY
    return {"role": "assistant", "content": text}, "stop"


def chunks(
    head: dict[str, Any], message: dict[str, Any], finish: str, usage: dict[str, int] | None
) -> list[dict[str, Any]]:
    """The streamed form of one reply: the delta, the finish, and the usage when it was asked for."""
    delta = dict(message)
    if "tool_calls" in delta:
        delta["tool_calls"] = [{"index": index, **call} for index, call in enumerate(delta["tool_calls"])]
    chunk = {**head, "object": "chat.completion.chunk"}
    out = [
        {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
    ]
    if usage is not None:
        out.append({**chunk, "choices": [], "usage": usage})
    return out


def _handler(server: FakeChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonRequestHandler):
        def do_GET(self) -> None:
            server.record("GET", self.path, {})
            if self.path.split("?")[0].endswith("/models"):
                listed = [{"id": model, "object": "model", "owned_by": "fake"} for model in server.models]
                self._send(200, json.dumps({"object": "list", "data": listed}).encode(), "application/json")
            else:
                self._send(404, b'{"error":{"type":"not_found","message":"fake"}}', "application/json")

        def do_POST(self) -> None:
            body = self._body()
            server.record("POST", self.path, body)
            if not self.path.split("?")[0].endswith("/chat/completions"):
                self._send(404, b'{"error":{"type":"not_found","message":"fake"}}', "application/json")
                return
            step = server.next_step(body)
            message, finish = reply_message(server, step)
            prompt = int(step["input_tokens"]) if step is not None and "input_tokens" in step else server.input_tokens
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
                return
            wants_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            events = chunks(head, message, finish, usage if wants_usage else None)
            payload = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
            self._send(200, payload.encode(), "text/event-stream")

    return Handler


if __name__ == "__main__":  # serve for a manual recording: LOG_FILE URL_FILE [STEPS_JSON] [--every-request]
    import sys

    args = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    script = json.loads(Path(args[2]).read_text(encoding="utf-8")) if len(args) > 2 else []
    every = "--every-request" in sys.argv
    with FakeChatServer(script, log_path=Path(args[0]), takes_step=(lambda _: True) if every else offers_tools) as fake:
        Path(args[1]).write_text(fake.url, encoding="utf-8")
        threading.Event().wait()
