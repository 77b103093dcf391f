"""Provides the MCP stdio transport: JSON-RPC 2.0, one message per line, requests answered concurrently.

smig speaks the protocol itself rather than through the `mcp` SDK: measured once on this 2-core
machine, spawn → initialize → tools/list took 0.79 s (median of 7) with the SDK's low-level server
serving the same tools, 0.58 s of it importing the SDK (`python -X importtime`), against 0.10 s for
this module; Codex sends its first model request 0.6-1.2 s after starting a server, so a slow start
left smig's tools out of that request. This module needs only the standard library; the handlers'
own imports happen on their first use.

One thread reads: it answers the cheap requests (`initialize`, `server/discover`, `ping`, the
static lists) at once and hands the rest to a small pool of workers, so a ping or a cancellation is
never stuck behind a long tool call. Every line written to stdout goes through one lock. A
cancelled request stops at its next progress report and is never answered. Both protocol eras are
served: a request carrying `io.modelcontextprotocol/protocolVersion` in `_meta` is served
statelessly (2026-07-28), anything else as the `initialize` handshake negotiated.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from queue import SimpleQueue
from typing import IO, Any

from smig_tui.core.encoding import utf8

MODERN_VERSIONS = ("2026-07-28",)
"""Revisions served per request (`_meta` carries the version; no handshake)."""
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""Handshake revisions served, newest first; a client asking for another gets the newest."""
BATCH_VERSIONS = ("2025-03-26",)
"""The one revision whose clients may send JSON-RPC batches (added then, removed in 2025-06-18)."""
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_KEY = "io.modelcontextprotocol/serverInfo"
MAX_LINE_BYTES = 64_000_000
"""Largest request line read at all; the 20 MB cap on `messages_json` is checked on the decoded value,
since escaping a JSON document inside a JSON string can nearly double its size on the wire."""
WORKERS = 4
"""Requests run at once; more wait in line. Each may hold a big session in memory, so few."""
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)
UNSUPPORTED_VERSION = -32022


class RpcError(Exception):
    """A JSON-RPC error answer: the request itself is wrong (unknown tool, bad cursor, ...)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class RequestCancelled(Exception):
    """The client cancelled the request: its work stops here and nothing is answered."""


Sink = Callable[[dict[str, Any] | None], None]
"""Where one request's answer goes (None: nothing to answer); called exactly once per message."""


class Call:
    """One request being served: its parameters, the client's era and name, progress and cancellation."""

    def __init__(
        self, server: StdioServer, request_id: Any, method: str, params: dict[str, Any], sink: Sink, modern: bool
    ) -> None:
        self.server, self.id, self.method, self.params, self.sink, self.modern = (
            server,
            request_id,
            method,
            params,
            sink,
            modern,
        )
        meta = params.get("_meta")
        self.meta: dict[str, Any] = meta if isinstance(meta, dict) else {}
        token = self.meta.get("progressToken")
        self.progress_token = token if isinstance(token, (str, int)) and not isinstance(token, bool) else None
        self.cancelled = threading.Event()
        self.finished = False
        self._sent = 0.0

    @property
    def client(self) -> dict[str, Any]:
        """The client's `clientInfo` (name, version) as this request or the handshake gave it."""
        given = self.meta.get(CLIENT_KEY) if self.modern else self.server.client
        return given if isinstance(given, dict) else {}

    def check(self) -> None:
        """Stop here if the client has cancelled this request."""
        if self.cancelled.is_set():
            raise RequestCancelled(self.method)

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress when the client asked for it (always increasing), and stop if cancelled."""
        self.check()
        if self.progress_token is None or done <= self._sent:
            return
        self._sent = done
        params: dict[str, Any] = {"progressToken": self.progress_token, "progress": done}
        if total is not None:
            params["total"] = total
        if message:
            params["message"] = message
        self.server.notify_progress(self, params)


Handler = Callable[[Call], dict[str, Any]]


@dataclass(frozen=True)
class Method:
    """How one MCP method is served."""

    handler: Handler
    inline: bool = False
    """Answered on the reading thread (cheap and never blocking); otherwise by a worker."""
    cache: tuple[int, str] | None = None
    """(ttlMs, cacheScope) a 2026-07-28 result carries; None for results that are not cacheable."""


class StdioServer:
    """An MCP server over a pair of byte streams: handshake, discovery, pings and cancellation here,
    the methods' own work in `methods`."""

    def __init__(
        self,
        name: str,
        version: str,
        instructions: str,
        methods: dict[str, Method],
        capabilities: dict[str, Any],
        workers: int = WORKERS,
    ) -> None:
        self.info = {"name": name, "version": version}
        self.instructions = instructions
        self.methods = methods
        self.capabilities = capabilities
        self.negotiated: str | None = None
        """The handshake's revision, once `initialize` was answered."""
        self.client: dict[str, Any] = {}
        self._workers = workers
        self._threads: list[threading.Thread] = []
        self._jobs: SimpleQueue[Callable[[], None] | None] = SimpleQueue()
        self._state = threading.Lock()
        self._out = threading.Lock()
        self._inflight: dict[tuple[str, Any], Call] = {}
        self._writer: IO[bytes] = sys.stdout.buffer
        self._gone = False

    def serve(self, reader: IO[bytes] | None = None, writer: IO[bytes] | None = None) -> None:
        """Answer requests until the input closes, then finish the requests still running."""
        reader = reader or sys.stdin.buffer
        self._writer = writer or sys.stdout.buffer
        try:
            while not self._gone:
                line = reader.readline(MAX_LINE_BYTES + 1)
                if not line:
                    return
                if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                    _skip_rest_of_line(reader)
                    too_big = (
                        "The request is larger than 64 MB; migrate_session accepts at most 20 MB of messages_json."
                    )
                    self.write(_error(None, INVALID_REQUEST, too_big))
                elif line.strip():
                    self.handle_line(line, self.write)
        finally:
            for _ in self._threads:
                self._jobs.put(None)
            for thread in self._threads:
                thread.join()

    def handle_line(self, line: bytes, sink: Sink) -> None:
        """Serve one line: a message or, in a 2025-03-26 session, a batch of them."""
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            sink(_error(None, PARSE_ERROR, "The request is not valid JSON."))
            return
        if not isinstance(message, list):
            self.handle(message, sink)
        elif self.negotiated not in BATCH_VERSIONS:
            revision = f"revision {self.negotiated}" if self.negotiated else "a session without a handshake"
            sink(
                _error(None, INVALID_REQUEST, f"JSON-RPC batches are not part of {revision}; send one message a line.")
            )
        elif not message:
            sink(_error(None, INVALID_REQUEST, "An empty batch is not a request."))
        else:
            batch = _Batch(len(message), sink)
            for item in message:
                self.handle(item, batch.add)

    def handle(self, message: Any, sink: Sink) -> None:
        """Serve one decoded message; `sink` gets its answer (or None) exactly once."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            sink(_error(_id_of(message), INVALID_REQUEST, "Not a JSON-RPC 2.0 message."))
            return
        if "method" not in message:
            sink(
                None
                if "result" in message or "error" in message
                else _error(_id_of(message), INVALID_REQUEST, "A request needs a method.")
            )
            return  # a reply to a request smig never sends is ignored
        method, params = message["method"], message.get("params", {})
        if "id" not in message:
            if method == "notifications/cancelled" and isinstance(params, dict):
                self._cancel(params.get("requestId"))
            sink(None)  # notifications (initialized, cancelled, ...) are never answered
            return
        request_id = message["id"]
        if _id_of(message) is None:
            sink(_error(None, INVALID_REQUEST, "A request id must be a string or an integer (null is not allowed)."))
        elif not isinstance(method, str):
            sink(_error(request_id, INVALID_REQUEST, "The method must be a string."))
        elif not isinstance(params, dict):
            sink(_error(request_id, INVALID_PARAMS, "params must be an object."))
        else:
            self._dispatch(request_id, method, params, sink)

    def _dispatch(self, request_id: Any, method: str, params: dict[str, Any], sink: Sink) -> None:
        """Answer the built-in methods here; hand the others to their handler, inline or on a worker."""
        meta = params.get("_meta")
        modern = isinstance(meta, dict) and VERSION_KEY in meta
        call = Call(self, request_id, method, params, sink, modern)
        problem = self._era_problem(call)
        if problem is not None:
            sink(problem)
        elif method == "initialize":
            sink(_result(request_id, self._initialize(params)))
        elif method == "server/discover":
            sink(self._complete(call, self._discover(), (3_600_000, "public")))
        elif method == "ping":
            sink(self._complete(call, {}, None))
        elif method not in self.methods:
            sink(_error(request_id, METHOD_NOT_FOUND, f"smig does not serve {method!r}."))
        elif self.methods[method].inline:
            sink(self._run(call))
        else:
            key = (type(request_id).__name__, request_id)
            with self._state:
                duplicate = key in self._inflight
                if not duplicate:
                    self._inflight[key] = call
            if duplicate:
                sink(_error(request_id, INVALID_REQUEST, f"Request id {request_id!r} is already in use."))
            else:
                self._submit(lambda: self._finish(call, key))

    def _era_problem(self, call: Call) -> dict[str, Any] | None:
        """Why a 2026-07-28 request cannot be served (version, missing metadata), or None."""
        if not call.modern:
            if call.method == "server/discover":
                return _error(call.id, INVALID_PARAMS, f"server/discover needs _meta {VERSION_KEY}.")
            return None
        asked = call.meta[VERSION_KEY]
        if asked not in MODERN_VERSIONS:
            supported = [*MODERN_VERSIONS, *PROTOCOL_VERSIONS]
            data = {"supported": supported, "requested": asked}
            return _error(call.id, UNSUPPORTED_VERSION, "Unsupported protocol version", data)
        if not isinstance(call.meta.get(CAPABILITIES_KEY), dict):
            return _error(call.id, INVALID_PARAMS, f"A {asked} request needs _meta {CAPABILITIES_KEY}.")
        return None

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        """The handshake: the client's protocol revision when smig serves it, else smig's newest."""
        asked = params.get("protocolVersion")
        self.negotiated = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        client = params.get("clientInfo")
        self.client = client if isinstance(client, dict) else {}
        return {
            "protocolVersion": self.negotiated,
            "capabilities": self.capabilities,
            "serverInfo": self.info,
            "instructions": self.instructions,
        }

    def _discover(self) -> dict[str, Any]:
        """What a 2026-07-28 client learns before its first request."""
        return {
            "supportedVersions": list(MODERN_VERSIONS),
            "capabilities": self.capabilities,
            "instructions": self.instructions,
        }

    def _run(self, call: Call) -> dict[str, Any] | None:
        """The answer to a request from its handler: a result, an error, or None when cancelled."""
        spec = self.methods[call.method]
        try:
            call.check()
            return self._complete(call, spec.handler(call), spec.cache)
        except RequestCancelled:
            return None
        except RpcError as error:
            return _error(call.id, error.code, error.message, error.data)
        except Exception as error:  # last resort: a sentence to the client, and serve on
            return _error(call.id, INTERNAL_ERROR, f"smig failed on this request ({type(error).__name__}).")

    def _finish(self, call: Call, key: tuple[str, Any]) -> None:
        """Run a request on a worker and answer it, unless it was cancelled meanwhile."""
        answer = self._run(call)
        with self._state:
            self._inflight.pop(key, None)
            call.finished = True
            if call.cancelled.is_set():
                answer = None
        call.sink(answer)

    def _complete(self, call: Call, result: dict[str, Any], cache: tuple[int, str] | None) -> dict[str, Any]:
        """A result as the request's era wants it: 2026-07-28 adds its type, smig's identity and cache hints."""
        if call.modern:
            meta = {**result.get("_meta", {}), SERVER_KEY: self.info}
            result = {**result, "resultType": "complete", "_meta": meta}
            if cache is not None:
                result.update(ttlMs=cache[0], cacheScope=cache[1])
        return _result(call.id, result)

    def _cancel(self, request_id: Any) -> None:
        """Mark a running request cancelled; unknown or finished ones are ignored, as the spec allows."""
        with self._state:
            call = self._inflight.get((type(request_id).__name__, request_id))
            if call is not None and not call.finished:
                call.cancelled.set()

    def notify_progress(self, call: Call, params: dict[str, Any]) -> None:
        """Send a progress notification for a request still running (never after its answer)."""
        line = _encode({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
        with self._state:
            if not call.finished and not call.cancelled.is_set():
                self._write_line(line)

    def write(self, message: dict[str, Any] | list[dict[str, Any]] | None) -> None:
        """Write one message (or a batch's answers) as one line."""
        if message is not None:
            self._write_line(_encode(message))

    def _write_line(self, line: bytes) -> None:
        with self._out:
            if self._gone:
                return
            try:
                self._writer.write(line)
                self._writer.flush()
            except (BrokenPipeError, ConnectionResetError, ValueError):
                self._gone = True  # the client has gone: nothing left to answer

    def _submit(self, job: Callable[[], None]) -> None:
        """Queue a job; start another worker while there are fewer than `workers`."""
        if len(self._threads) < self._workers:
            thread = threading.Thread(target=self._work, name=f"smig-mcp-{len(self._threads)}", daemon=True)
            self._threads.append(thread)
            thread.start()
        self._jobs.put(job)

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            job()


class _Batch:
    """Collects the answers of a batch's messages and writes them as one array once all are in."""

    def __init__(self, size: int, sink: Sink) -> None:
        self._left, self._sink = size, sink
        self._answers: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def add(self, answer: dict[str, Any] | None) -> None:
        with self._lock:
            if answer is not None:
                self._answers.append(answer)
            self._left -= 1
            done = self._left == 0
        if done and self._answers:
            self._sink(self._answers)  # type: ignore[arg-type]  # a batch's answer is an array


def _id_of(message: Any) -> Any:
    """The message's id when it is a valid one (a string or an integer), else None."""
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def _encode(message: Any) -> bytes:
    """One message as one line (JSON escapes every newline inside it)."""
    return utf8(json.dumps(message, ensure_ascii=False, separators=(",", ":"))) + b"\n"


def _result(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _skip_rest_of_line(reader: IO[bytes]) -> None:
    """Drop the rest of an oversized line without holding it in memory."""
    while True:
        chunk = reader.readline(1 << 20)
        if not chunk or chunk.endswith(b"\n"):
            return
