"""The MCP transport under load and against the spec: pings and cancellation during a call, progress,
many calls at once, and the JSON-RPC probes (ids, methods, batches, cursors, both protocol eras)."""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from queue import SimpleQueue
from typing import Any

import pytest

from smig_tui.mcp.protocol import Call, Method, RequestCancelled, StdioServer
from smig_tui.mcp.schemas import TOOLS
from smig_tui.mcp.server import build_server

GUARD = 600
"""Seconds before a test gives up waiting for a message: a hang guard, not a speed bound."""
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1"},
}


class Live:
    """A server serving on pipes in a thread, with the test on the client's end."""

    def __init__(self, server: StdioServer) -> None:
        into_r, into_w = os.pipe()
        out_r, out_w = os.pipe()
        self.to_server = os.fdopen(into_w, "wb")
        self._ends = (os.fdopen(into_r, "rb"), os.fdopen(out_w, "wb"))
        self.server = server
        self.thread = threading.Thread(target=server.serve, args=self._ends)
        self.thread.start()
        self.received: SimpleQueue[dict[str, Any]] = SimpleQueue()
        self._reader = threading.Thread(target=self._read, args=(os.fdopen(out_r, "rb"),), daemon=True)
        self._reader.start()

    def _read(self, stream: io.BufferedReader) -> None:
        with stream:
            for line in stream:
                self.received.put(json.loads(line))

    def send(self, message: dict[str, Any]) -> None:
        self.to_server.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.to_server.flush()

    def receive(self) -> dict[str, Any]:
        return self.received.get(timeout=GUARD)

    def close(self) -> None:
        self.to_server.close()
        self.thread.join(GUARD)
        for end in self._ends:
            end.close()
        self._reader.join(GUARD)


@contextmanager
def live(handler: Callable[[Call], dict[str, Any]]) -> Iterator[Live]:
    """A live server whose `tools/call` is `handler`."""
    running = Live(StdioServer("t", "0", "", {"tools/call": Method(handler)}, {"tools": {}}))
    try:
        yield running
    finally:
        running.close()


def test_a_ping_is_answered_while_a_call_is_still_running() -> None:
    started, release = threading.Event(), threading.Event()

    def long_call(call: Call) -> dict[str, Any]:
        started.set()
        release.wait(GUARD)
        return {"content": [], "isError": False}

    with live(long_call) as server:
        server.send({"id": 1, "method": "tools/call", "params": {}})
        assert started.wait(GUARD)
        sent = time.perf_counter()
        server.send({"id": 2, "method": "ping"})
        pong = server.receive()
        latency = time.perf_counter() - sent
        assert pong == {"jsonrpc": "2.0", "id": 2, "result": {}}
        assert not release.is_set()  # the call was still running when the ping came back
        release.set()
        assert server.receive()["id"] == 1
    print(f"ping answered in {latency * 1000:.1f} ms during a call")


def test_a_cancelled_call_stops_and_sends_no_result() -> None:
    started, release, stopped = threading.Event(), threading.Event(), threading.Event()

    def cooperative(call: Call) -> dict[str, Any]:
        started.set()
        release.wait(GUARD)
        try:
            call.check()
        except RequestCancelled:
            stopped.set()
            raise
        return {"content": [], "isError": False}

    with live(cooperative) as server:
        server.send({"id": "a", "method": "tools/call", "params": {}})
        assert started.wait(GUARD)
        server.send({"method": "notifications/cancelled", "params": {"requestId": "a", "reason": "user"}})
        server.send({"id": "b", "method": "ping"})  # answered after the cancellation was read
        assert server.receive()["id"] == "b"
        release.set()
        assert stopped.wait(GUARD)
        server.send({"id": "c", "method": "ping"})
        assert server.receive()["id"] == "c"  # no answer for "a" came before it
    assert server.received.empty()


def test_a_call_that_finishes_after_its_cancellation_is_still_not_answered() -> None:
    started, release = threading.Event(), threading.Event()

    def stubborn(call: Call) -> dict[str, Any]:
        started.set()
        release.wait(GUARD)
        return {"content": [{"type": "text", "text": "done anyway"}], "isError": False}

    with live(stubborn) as server:
        server.send({"id": 5, "method": "tools/call", "params": {}})
        assert started.wait(GUARD)
        server.send({"method": "notifications/cancelled", "params": {"requestId": 5}})
        server.send({"id": "5", "method": "ping"})  # a string id is another request than the number
        assert server.receive()["id"] == "5"
        release.set()
        server.send({"method": "notifications/cancelled", "params": {"requestId": 99}})  # unknown: ignored
        server.send({"id": 6, "method": "ping"})
        assert server.receive()["id"] == 6
    assert server.received.empty()


def test_progress_goes_out_only_when_asked_always_rising_and_before_the_result() -> None:
    def reporting(call: Call) -> dict[str, Any]:
        for done in (1, 1, 4, 3, 10):  # repeats and steps back are not sent
            call.progress(done, 10, f"{done} of 10")
        return {"content": [], "isError": False}

    with live(reporting) as server:
        server.send({"id": 1, "method": "tools/call", "params": {"_meta": {"progressToken": "tok"}}})
        notes = [server.receive() for _ in range(3)]
        assert [n["params"]["progress"] for n in notes] == [1, 4, 10]
        assert {n["method"] for n in notes} == {"notifications/progress"}
        assert all(n["params"]["progressToken"] == "tok" and n["params"]["total"] == 10 for n in notes)
        assert server.receive()["id"] == 1
        server.send({"id": 2, "method": "tools/call", "params": {}})
        assert server.receive()["id"] == 2  # no token: no progress


def test_forty_calls_at_once_all_answer_whole_and_in_one_line_each() -> None:
    inside, most = 0, 0
    lock = threading.Lock()

    def busy(call: Call) -> dict[str, Any]:
        nonlocal inside, most
        with lock:
            inside += 1
            most = max(most, inside)
        text = f"call {call.id} " + "x" * 200_000
        with lock:
            inside -= 1
        return {"content": [{"type": "text", "text": text}], "isError": False}

    with live(busy) as server:
        for n in range(40):
            server.send({"id": n, "method": "tools/call", "params": {}})
        answers = {}
        for _ in range(40):
            answer = server.receive()
            answers[answer["id"]] = answer["result"]["content"][0]["text"]
    assert sorted(answers) == list(range(40))
    assert all(text.startswith(f"call {n} ") and len(text) > 200_000 for n, text in answers.items())
    assert most <= 4  # the pool is bounded


def probe(*lines: Any, server: StdioServer | None = None) -> list[Any]:
    """Send raw lines (objects are JSON-encoded) to a server and return every answer, in order of id."""
    server = server or build_server()
    data = b"".join((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n" for line in lines)
    writer = io.BytesIO()
    server.serve(io.BytesIO(data), writer)
    return [json.loads(line) for line in writer.getvalue().splitlines()]


def initialize(version: str = "2025-06-18") -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
    }


def rpc(request_id: Any, method: Any, params: Any = None) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def error_of(answers: list[Any], request_id: Any) -> dict[str, Any]:
    [answer] = [a for a in answers if isinstance(a, dict) and a.get("id") == request_id]
    error: dict[str, Any] = answer["error"]
    return error


def test_protocol_probes_of_ids_methods_and_params() -> None:
    answers = probe(
        initialize(),
        rpc(None, "ping"),
        rpc(True, "ping"),
        rpc(1.5, "ping"),
        rpc(2, 5),
        rpc(3, "tools/list", ["not", "an", "object"]),
        rpc(4, "tools/list", {"cursor": "bogus"}),
        rpc(5, "tools/call", {"name": "no_such_tool", "arguments": {}}),
        rpc(6, "tools/call", {"name": "model_context_window", "arguments": {"model": 7}}),
        rpc(7, "nothing/here"),
        {"jsonrpc": "2.0", "id": 8, "result": {}},  # a reply to nothing: ignored
        {"jsonrpc": "1.0", "id": 9, "method": "ping"},
        {"jsonrpc": "2.0", "id": 10},
        rpc(11, "tools/list", {"cursor": None}),
        b"[1, 2",
    )
    nulls = [a for a in answers if a.get("id") is None]
    assert [a["error"]["code"] for a in nulls] == [-32600, -32600, -32600, -32700]  # null, true, 1.5; the bad JSON
    assert error_of(answers, 2)["code"] == -32600 and "method must be a string" in error_of(answers, 2)["message"]
    assert error_of(answers, 3)["code"] == -32602
    assert error_of(answers, 4)["code"] == -32602 and "'bogus'" in error_of(answers, 4)["message"]
    assert error_of(answers, 5) == {
        "code": -32602,
        "message": "smig has no tool 'no_such_tool'; it has " + ", ".join(t["name"] for t in TOOLS) + ".",
    }
    [wrong_type] = [a for a in answers if a.get("id") == 6]
    assert wrong_type["result"]["isError"] and "model must be a string" in wrong_type["result"]["content"][0]["text"]
    assert error_of(answers, 7)["code"] == -32601
    assert 8 not in [a.get("id") for a in answers]
    assert error_of(answers, 9)["code"] == -32600 and error_of(answers, 10)["code"] == -32600
    [whole] = [a for a in answers if a.get("id") == 11]
    assert len(whole["result"]["tools"]) == 10


def test_batches_are_served_in_a_2025_03_26_session_only() -> None:
    batch = [
        rpc(1, "ping"),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        rpc(2, "tools/list"),
        rpc(None, "ping"),
    ]
    old = probe(initialize("2025-03-26"), batch, [], [{"jsonrpc": "2.0", "method": "notifications/initialized"}])
    assert old[0]["id"] == 0
    answers = old[1]
    assert isinstance(answers, list) and sorted(str(a["id"]) for a in answers) == ["1", "2", "None"]
    assert old[2]["error"]["code"] == -32600 and len(old) == 3  # the empty batch; notifications only: no answer
    new = probe(initialize("2025-06-18"), batch)
    assert new[1]["id"] is None and new[1]["error"]["code"] == -32600 and "2025-06-18" in new[1]["error"]["message"]


def test_the_2026_07_28_revision_is_served_per_request_without_a_handshake() -> None:
    answers = probe(
        rpc(1, "server/discover", {"_meta": MODERN_META}),
        rpc(2, "tools/list", {"_meta": MODERN_META}),
        rpc(3, "tools/list", {"_meta": {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}),
        rpc(4, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        rpc(5, "server/discover"),
        rpc(6, "ping", {"_meta": MODERN_META}),
        rpc(7, "tools/list"),
    )
    by_id = {a["id"]: a for a in answers}
    discovered = by_id[1]["result"]
    assert discovered["supportedVersions"] == ["2026-07-28"] and discovered["resultType"] == "complete"
    assert set(discovered["capabilities"]) == {"tools", "prompts", "resources", "completions"}
    assert discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "smig"
    assert discovered["ttlMs"] >= 0 and discovered["cacheScope"] == "public" and discovered["instructions"]
    listed = by_id[2]["result"]
    assert listed["resultType"] == "complete" and len(listed["tools"]) == 10 and listed["cacheScope"] == "public"
    assert by_id[3]["error"]["code"] == -32022
    assert by_id[3]["error"]["data"] == {
        "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
        "requested": "2099-01-01",
    }
    assert by_id[4]["error"]["code"] == -32602 and "clientCapabilities" in by_id[4]["error"]["message"]
    assert by_id[5]["error"]["code"] == -32602
    assert by_id[6]["result"]["resultType"] == "complete"
    assert "resultType" not in by_id[7]["result"]  # a handshake-era request is answered as before


def test_a_request_id_in_flight_cannot_be_reused() -> None:
    release = threading.Event()

    def waiting(call: Call) -> dict[str, Any]:
        release.wait(GUARD)
        return {"content": [], "isError": False}

    with live(waiting) as server:
        server.send({"id": 1, "method": "tools/call", "params": {}})
        server.send({"id": 1, "method": "tools/call", "params": {}})
        refused = server.receive()
        release.set()
        done = server.receive()
    assert refused["error"]["code"] == -32600 and "already in use" in refused["error"]["message"]
    assert done["result"] == {"content": [], "isError": False}


@pytest.mark.parametrize("raised", [KeyError("x"), RecursionError()])
def test_a_failing_handler_is_one_sentence(raised: Exception) -> None:
    def failing(call: Call) -> dict[str, Any]:
        raise raised

    [answer] = probe(rpc(1, "tools/call", {}), server=StdioServer("t", "0", "", {"tools/call": Method(failing)}, {}))
    assert answer["error"]["code"] == -32603 and type(raised).__name__ in answer["error"]["message"]
