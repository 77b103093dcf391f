"""Provides a local fake of the Gemini API (`generateContent`, `streamGenerateContent`, `countTokens`).

Gemini CLI talks to it through `GOOGLE_GEMINI_BASE_URL` with any `GEMINI_API_KEY`. Every request is
kept in memory and, when `log_path` is given, appended to that file as one JSON line, so a test (or a
person recording a fixture) can see exactly what the client sent the model.

Replies are scripted: `steps` is a list played by the requests that offer tools (the agent's turns,
not its side requests such as the model router's); a step is `{"name": ..., "args": {...}}`, a
function call, optionally with `"thought"` and `"text"` parts before it (a step without `name` is a
reply of those parts). When the steps run out it answers `REPLY`. Each reply reports usage whose
`promptTokenCount` is the request's text length / 4, so the client logs figures that grow with the
conversation.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from fake_model_server import JsonRequestHandler

REPLY = "smig-gemini-ok"


class FakeGeminiServer:
    """A stdlib HTTP server on 127.0.0.1 in a thread; every request is kept for assertions."""

    def __init__(self, steps: list[dict[str, Any]] | None = None, log_path: Path | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.steps = list(steps or [])
        self.log_path = log_path
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Base URL without a path, for `GOOGLE_GEMINI_BASE_URL`."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeGeminiServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def record(self, method: str, path: str, body: dict[str, Any]) -> None:
        """Keep one request, and log it when a log file was given."""
        entry = {"method": method, "path": path, "body": body}
        with self._lock:
            self.requests.append(entry)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def next_step(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The scripted step for this request: only agent turns (requests offering tools) take one."""
        with self._lock:
            if not body.get("tools") or not self.steps:
                return None
            return self.steps.pop(0)

    def turns(self) -> list[dict[str, Any]]:
        """Bodies of the model requests that offered tools: the agent's own turns, in order."""
        return [
            entry["body"]
            for entry in self.requests
            if "generatecontent" in entry["path"].lower() and entry["body"].get("tools")
        ]


def request_texts(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of every text part of a request's `contents`, thoughts left out."""
    texts: list[tuple[str, str]] = []
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            if isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append((content.get("role", ""), part["text"]))
    return texts


def _usage(body: dict[str, Any], reply_chars: int) -> dict[str, int]:
    """Usage figures that grow with the request, so the client logs something to check."""
    prompt = len(json.dumps(body.get("contents") or [], ensure_ascii=False)) // 4
    output = max(1, reply_chars // 4)
    return {"promptTokenCount": prompt, "candidatesTokenCount": output, "totalTokenCount": prompt + output}


def _reply(server: FakeGeminiServer, body: dict[str, Any]) -> dict[str, Any]:
    """One complete `GenerateContentResponse`: a function call from the script, or the text reply."""
    step = server.next_step(body)
    parts: list[dict[str, Any]] = []
    if step is not None:
        if step.get("thought"):
            parts.append({"text": step["thought"], "thought": True})
        if step.get("text"):
            parts.append({"text": step["text"]})
        if step.get("name"):
            parts.append({"functionCall": {"name": step["name"], "args": step.get("args", {})}})
    elif _wants_json(body):  # the model router and similar side requests: a simple task, the user speaks next
        parts.append(
            {
                "text": json.dumps(
                    {
                        "complexity_reasoning": "a simple task",
                        "complexity_score": 10,
                        "reasoning": "The model answered.",
                        "next_speaker": "user",
                    }
                )
            }
        )
    else:
        parts.append({"text": REPLY})
    chars = len(json.dumps(parts))
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": _usage(body, chars),
        "modelVersion": "fake-gemini",
    }


def _wants_json(body: dict[str, Any]) -> bool:
    """A side request asking for a JSON answer (the CLI's next-speaker and routing checks)."""
    config = body.get("generationConfig") or {}
    return config.get("responseMimeType") == "application/json"


def _handler(server: FakeGeminiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonRequestHandler):
        def do_GET(self) -> None:
            server.record("GET", self.path, {})
            self._send(200, b'{"models": []}', "application/json")

        def do_POST(self) -> None:
            body = self._body()
            server.record("POST", self.path, body)
            route = self.path.split("?")[0]
            if route.endswith(":countTokens"):
                tokens = len(json.dumps(body.get("contents") or [])) // 4
                self._send(200, json.dumps({"totalTokens": tokens}).encode(), "application/json")
            elif route.endswith(":streamGenerateContent"):
                event = json.dumps(_reply(server, body), ensure_ascii=False)
                self._send(200, f"data: {event}\r\n\r\n".encode(), "text/event-stream")
            elif route.endswith(":generateContent"):
                self._send(200, json.dumps(_reply(server, body)).encode(), "application/json")
            else:
                self._send(404, b'{"error": {"code": 404, "message": "not faked"}}', "application/json")

    return Handler


if __name__ == "__main__":  # serve until interrupted, logging to the file named on the command line
    with FakeGeminiServer(log_path=Path(sys.argv[1]) if len(sys.argv) > 1 else None) as fake:
        print(fake.url, flush=True)
        threading.Event().wait()
