"""Tests the fake Chat Completions server with the real `openai` client, as Kilo's and Aider's SDKs read it.

No real agent runs here (not marked e2e): the `openai` package parses the replies as it would a
provider's, so a chunk a client could not read fails here first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest
from fake_chat_server import FakeChatServer
from fake_model_server import REPLY

TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {"name": "bash", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}},
    }
]


def _client(server: FakeChatServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="test", max_retries=0)


def test_a_streamed_tool_call_then_a_text_step_then_the_default_reply() -> None:
    steps = [{"name": "bash", "args": {"command": "ls -1 ✓"}}, {"text": "second"}]
    with FakeChatServer(steps) as server:
        client = _client(server)
        stream = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "go"}], tools=TOOLS, stream=True
        )
        chunks = list(stream)
        second = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "2"}], tools=TOOLS)
        third = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "3"}], tools=TOOLS)
    [call] = [call for chunk in chunks if chunk.choices for call in chunk.choices[0].delta.tool_calls or []]
    assert call.function is not None and call.function.name == "bash"
    assert json.loads(call.function.arguments or "") == {"command": "ls -1 ✓"}
    assert call.id and call.id.startswith("call_")
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert not any(chunk.usage for chunk in chunks)  # usage only when stream_options asks for it
    assert second.choices[0].message.content == "second"
    assert third.choices[0].message.content == REPLY and third.choices[0].finish_reason == "stop"
    assert len(server.chats()) == 3


def test_only_requests_offering_tools_take_steps_by_default() -> None:
    with FakeChatServer([{"text": "scripted"}]) as server:
        client = _client(server)
        side = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "title?"}])
        turn = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}], tools=TOOLS)
    assert side.choices[0].message.content == REPLY
    assert turn.choices[0].message.content == "scripted"


def test_every_request_takes_a_step_when_asked_and_a_step_sets_the_reported_usage() -> None:
    steps = [{"text": "big", "input_tokens": 150_000}, {"text": "small"}]
    with FakeChatServer(steps, takes_step=lambda _body: True) as server:
        server.input_tokens = 42
        client = _client(server)
        stream = client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "a"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        big = [chunk for chunk in stream]
        small = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "b"}])
    [usage] = [chunk.usage for chunk in big if chunk.usage]
    assert usage.prompt_tokens == 150_000 and usage.total_tokens == 150_001
    assert "".join(c.choices[0].delta.content or "" for c in big if c.choices) == "big"
    assert small.choices[0].message.content == "small"
    assert small.usage is not None and small.usage.prompt_tokens == 42


def test_requests_are_logged_and_models_listed(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with FakeChatServer(log_path=log, models=("gpt-4.1",)) as server:
        client = _client(server)
        listed = [model.id for model in client.models.list()]
        client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "héllo"}])
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert listed == ["gpt-4.1"]
    assert [(line["method"], line["path"]) for line in lines] == [
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
    ]
    assert lines[1]["body"]["messages"] == [{"role": "user", "content": "héllo"}]


def test_another_path_is_a_404_the_client_reports() -> None:
    with FakeChatServer() as server, pytest.raises(openai.NotFoundError):
        _client(server).responses.create(model="m", input="hi")
