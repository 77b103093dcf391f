"""Provides a local OpenAI-compatible chat server for tests: real HTTP on 127.0.0.1, every request recorded."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Reply:
    """How the server answers one request."""

    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error_message: str = "error"
    finish_reason: str = "stop"
    hold_before: bool = False
    """Block before sending anything until `FakeLLM.release` is set (for timeouts)."""
    hold_after_pieces: int | None = None
    """Stream this many pieces, then block until `release` is set (for cancel)."""
    drop_after_pieces: int | None = None
    """Stream this many pieces, then hang up without a finish reason or `[DONE]`."""


def default_reply(body: dict[str, Any], number: int) -> Reply:
    """Answer with a deterministic handoff note naming the request and, for map requests, the part."""
    prompt = body["messages"][-1]["content"]
    if "Merge them into a single handoff note" in prompt:
        kind = "reduce"
    elif "Here is part " in prompt:
        kind = "map " + prompt.split("Here is part ", 1)[1].split(" of ", 1)[0]
    else:
        kind = "single"
    return Reply(f"## Goal\nFinish the work ({kind}, request {number}).\n\n## Next steps\nRun the tests.\n")


@dataclass
class FakeLLM:
    """State shared between the test and the server threads."""

    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    respond: Callable[[dict[str, Any], int], Reply] = default_reply
    release: threading.Event = field(default_factory=threading.Event)
    received: threading.Event = field(default_factory=threading.Event)
    """Set as soon as the first request has been read (so a test can act while the server holds)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def bodies(self) -> str:
        """Every request body, concatenated, for leak checks."""
        return "\n".join(json.dumps(body) for body in self.requests)


def _chunk(model: str, delta: dict[str, Any], finish: str | None) -> bytes:
    """One SSE `data:` event with a chat.completion.chunk."""
    payload = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(payload)}\n\n".encode()


def _pieces(text: str) -> Iterator[str]:
    """Split text into word-sized streaming pieces."""
    word = ""
    for char in text:
        word += char
        if char in " \n":
            yield word
            word = ""
    if word:
        yield word


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_POST(self) -> None:
        """Record the request, then answer it as the test's `respond` says."""
        state = self.server.state
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        with state.lock:
            state.requests.append(body)
            state.headers.append({key.lower(): value for key, value in self.headers.items()})
            number = len(state.requests)
        state.received.set()
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._error(Reply(status=404, error_message=f"no route {self.path}"))
        reply = state.respond(body, number)
        try:
            if reply.hold_before:
                state.release.wait(600)
            if reply.status != 200:
                return self._error(reply)
            if body.get("stream"):
                return self._stream(body, reply)
            self._json(200, self._completion(body, reply), reply.headers)
        except (BrokenPipeError, ConnectionResetError):
            return None

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", ""),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": reply.finish_reason,
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, reply: Reply) -> None:
        headers = {"x-should-retry": "false", **reply.headers}
        try:
            self._json(
                reply.status,
                {"error": {"message": reply.error_message, "type": "test", "code": None}},
                headers,
            )
        except (BrokenPipeError, ConnectionResetError):
            return

    def _stream(self, body: dict[str, Any], reply: Reply) -> None:
        model = body.get("model", "")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(_chunk(model, {"role": "assistant", "content": ""}, None))
        for sent, piece in enumerate(_pieces(reply.text)):
            if reply.drop_after_pieces is not None and sent == reply.drop_after_pieces:
                return
            if reply.hold_after_pieces is not None and sent == reply.hold_after_pieces:
                self.wfile.flush()
                self.server.state.release.wait(600)
            self.wfile.write(_chunk(model, {"content": piece}, None))
            self.wfile.flush()
        self.wfile.write(_chunk(model, {}, reply.finish_reason))
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: FakeLLM

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up mid-stream is expected in cancel tests; say nothing."""


@pytest.fixture(name="llm_server")
def llm_server_fixture() -> Iterator[FakeLLM]:
    """Run the fake server on a free 127.0.0.1 port for one test."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.state = FakeLLM(url=f"http://127.0.0.1:{server.server_address[1]}/v1")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server.state
    finally:
        server.state.release.set()
        server.shutdown()
        server.server_close()
        thread.join(600)
