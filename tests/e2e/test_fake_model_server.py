"""Tests the fake model server's Chat Completions side, text steps, usage and request log with real clients.

The `openai` package parses the server's replies as it would a provider's, so a chunk the real
clients (Copilot CLI, Pi, Qwen Code, Kilo Code CLI, and Aider through LiteLLM) could not read fails
here first. No real agent runs here (not marked e2e).
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import openai
import pytest
from fake_model_server import REPLY, FakeModelServer

TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {"name": "shell", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}},
    }
]


def _client(server: FakeModelServer) -> openai.OpenAI:
    """The real client at the fake; use it in a `with` so its connections close within the test."""
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="test", max_retries=0)


def test_chat_completions_stream_a_scripted_tool_call_then_the_reply() -> None:
    steps = [{"name": "shell", "args": {"command": "ls -1 ✓"}}]
    with FakeModelServer(steps) as server, _client(server) as client:
        stream = client.chat.completions.create(
            model="fake-model",
            messages=[{"role": "user", "content": "list"}],
            tools=TOOLS,
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = list(stream)
        [call] = [call for chunk in chunks if chunk.choices for call in chunk.choices[0].delta.tool_calls or []]
        finishes = [chunk.choices[0].finish_reason for chunk in chunks if chunk.choices]
        usage = [chunk.usage for chunk in chunks if chunk.usage]
        second = client.chat.completions.create(
            model="fake-model", messages=[{"role": "user", "content": "again"}], tools=TOOLS
        )
    assert call.function is not None and call.function.name == "shell"
    assert call.function.arguments == '{"command": "ls -1 ✓"}'  # as a provider sends it, not \u-escaped
    assert call.id and call.id.startswith("call_")
    assert finishes[-1] == "tool_calls"
    assert [(item.prompt_tokens, item.completion_tokens) for item in usage] == [(10, 1)]
    assert second.choices[0].message.content == REPLY
    assert second.choices[0].finish_reason == "stop"
    assert [path for _, path, _ in server.requests] == ["/v1/chat/completions"] * 2


def test_chat_completions_without_stream_options_report_no_usage_chunk() -> None:
    with FakeModelServer() as server, _client(server) as client:
        chunks = list(
            client.chat.completions.create(
                model="fake-model", messages=[{"role": "user", "content": "hi"}], stream=True
            )
        )
    assert "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices) == REPLY
    assert not [chunk for chunk in chunks if chunk.usage]


def test_text_steps_and_input_tokens_shape_every_api(tmp_path: Path) -> None:
    """A text step answers one agent turn in each API; `input_tokens` is what the usage reports."""
    log = tmp_path / "requests.jsonl"
    steps = [{"text": "first answer"}, {"text": "second answer"}, {"text": "third answer"}]
    with FakeModelServer(steps, log_path=log) as server:
        server.input_tokens = 150_000
        with _client(server) as client:
            chat = client.chat.completions.create(
                model="fake-model", messages=[{"role": "user", "content": "one"}], tools=TOOLS
            )
        messages = _post(server, "/v1/messages", {"model": "m", "messages": [], "tools": [{"name": "x"}]})
        responses = _post(
            server, "/v1/responses", {"model": "m", "input": [], "tools": [{"name": "x"}], "stream": False}
        )
        side = _post(server, "/v1/messages", {"model": "m", "messages": []})
    assert chat.choices[0].message.content == "first answer"
    assert chat.usage is not None and chat.usage.prompt_tokens == 150_000
    assert messages["content"] == [{"type": "text", "text": "second answer"}]
    assert messages["usage"]["input_tokens"] == 150_000
    assert "third answer" in responses  # the Responses API always streams here
    assert side["content"][0]["text"] == REPLY  # a request without tools takes no step
    logged = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [entry["path"] for entry in logged] == [
        "/v1/chat/completions",
        "/v1/messages",
        "/v1/responses",
        "/v1/messages",
    ]
    assert logged[0]["body"]["messages"] == [{"role": "user", "content": "one"}]


def _post(server: FakeModelServer, path: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        server.url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        raw = reply.read().decode()
    return json.loads(raw) if reply.headers.get("Content-Type") == "application/json" else raw


def test_a_steps_own_input_tokens_is_reported_for_that_reply_only() -> None:
    """A client that compacts on reported usage sees one full reply, then small ones again."""
    steps = [{"name": "shell", "args": {"command": "true"}, "input_tokens": 900_000}, {"text": "done"}]
    with FakeModelServer(steps) as server, _client(server) as client:
        replies = [
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}], tools=TOOLS)
            for _ in range(3)
        ]
    assert [reply.usage.prompt_tokens for reply in replies if reply.usage] == [900_000, 10, 10]
    assert replies[0].choices[0].finish_reason == "tool_calls"
    assert [reply.choices[0].message.content for reply in replies[1:]] == ["done", REPLY]


def test_the_servers_reply_answers_what_no_step_does() -> None:
    """A side request (a title, a compaction summary) without tools leaves the step to the next turn."""
    with FakeModelServer([{"text": "the turn"}], reply="SUMMARY: teal") as server, _client(server) as client:
        side = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "summarize"}])
        turn = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}], tools=TOOLS)
    assert side.choices[0].message.content == "SUMMARY: teal"
    assert turn.choices[0].message.content == "the turn"


def test_every_request_takes_a_step_when_asked_and_a_step_sets_the_reported_usage() -> None:
    """Aider offers no tools: with `takes_step` every request, a streamed one included, takes the next step."""
    steps = [{"text": "big", "input_tokens": 150_000}, {"text": "small"}]
    with FakeModelServer(steps, takes_step=lambda _body: True) as server, _client(server) as client:
        server.input_tokens = 42
        stream = client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "a"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        big = list(stream)
        small = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "b"}])
    [usage] = [chunk.usage for chunk in big if chunk.usage]
    assert usage.prompt_tokens == 150_000 and usage.total_tokens == 150_001
    assert "".join(c.choices[0].delta.content or "" for c in big if c.choices) == "big"
    assert small.choices[0].message.content == "small"
    assert small.usage is not None and small.usage.prompt_tokens == 42


def test_listed_models_and_the_request_log(tmp_path: Path) -> None:
    """`GET /models` lists the given ids (as a client checking its model reads them); both requests are logged."""
    log = tmp_path / "requests.jsonl"
    with FakeModelServer(log_path=log, models=("gpt-4.1",)) as server, _client(server) as client:
        listed = [model.id for model in client.models.list()]
        client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "héllo"}])
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert listed == ["gpt-4.1"]
    assert [(line["method"], line["path"]) for line in lines] == [
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
    ]
    assert lines[1]["body"]["messages"] == [{"role": "user", "content": "héllo"}]


def test_an_api_the_fake_does_not_serve_is_a_404_the_client_reports() -> None:
    with FakeModelServer() as server, _client(server) as client, pytest.raises(openai.NotFoundError):
        client.embeddings.create(model="m", input="hi")
