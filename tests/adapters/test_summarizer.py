"""Tests the summarizer through the real `openai` client against a local OpenAI-compatible server."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest
from fake_llm_server import FakeLLM, Reply, default_reply, llm_server_fixture  # noqa: F401 - fixture

from smig_tui.adapters.storage.summary_cache import SummaryCache
from smig_tui.adapters.summarizer import OpenAIChatBackend, Summarizer
from smig_tui.adapters.summarizer_config import SummarizerConfig, resolve_config
from smig_tui.core.errors import (
    AuthError,
    ConfigError,
    NoApiKeyError,
    ProviderUnavailableError,
    RateLimitError,
    SummaryCancelledError,
    SummaryConsentError,
    SummaryError,
    SummaryModelNotFoundError,
)
from smig_tui.core.models import Kind, Message, Role
from smig_tui.core.summary import SummaryResult

API_KEY = "sk-test-" + "k" * 32
PLANTED = "sk-proj-" + "Plant3dFakeKeyThatMustNeverLeave0001"


def conversation(count: int = 6, words: int = 40) -> list[Message]:
    messages = [
        Message(
            i,
            f"m{i}",
            Role.USER if i % 2 == 0 else Role.ASSISTANT,
            Kind.TEXT,
            " ".join(f"w{i}_{n}" for n in range(words)),
        )
        for i in range(count)
    ]
    messages.append(Message(count, "secret", Role.USER, Kind.TEXT, f"my key is {PLANTED}, password=hunter2hunter2"))
    messages.append(Message(count + 1, "call", Role.ASSISTANT, Kind.TOOL_CALL, '{"cmd":"env"}', tool_name="shell"))
    messages.append(
        Message(
            count + 2,
            "out",
            Role.TOOL,
            Kind.TOOL_RESULT,
            f"OPENAI_API_KEY={PLANTED}\n" * 3,
            tool_name="shell",
        )
    )
    return messages


def make_config(server: FakeLLM, **changes: object) -> SummarizerConfig:
    values: dict[str, object] = {
        "provider": "test",
        "model": "test-model",
        "base_url": server.url,
        "api_key_env": "TEST_SUMMARY_KEY",
        "api_key": API_KEY,
        "timeout": 5.0,
        "max_retries": 0,
        "context_window": 32_000,
    }
    values.update(changes)
    return SummarizerConfig(**values)  # type: ignore[arg-type]


def make_summarizer(
    server: FakeLLM, tmp_path: Path | None = None, stream: bool = True, **changes: object
) -> Summarizer:
    cache = SummaryCache(tmp_path / "summaries") if tmp_path else None
    return Summarizer(
        make_config(server, **changes),
        cache,
        backend_factory=lambda c: OpenAIChatBackend(c, stream=stream),
    )


def test_streaming_assembles_the_summary_from_deltas(llm_server: FakeLLM) -> None:
    deltas: list[str] = []
    result = make_summarizer(llm_server).summarize(conversation(), on_delta=deltas.append, allow_network=True)
    assert len(deltas) > 5
    assert result.text == "".join(deltas).strip() == default_reply({"messages": [{"content": ""}]}, 1).text.strip()
    assert (result.model, result.provider, result.chunks, result.requests, result.cached) == (
        "test-model",
        "test",
        1,
        1,
        False,
    )
    [body] = llm_server.requests
    assert body["stream"] is True and body["model"] == "test-model" and body["max_tokens"] > 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "## Key files and commands" in body["messages"][0]["content"]
    assert "w0_0" in body["messages"][1]["content"]
    assert llm_server.headers[0]["authorization"] == f"Bearer {API_KEY}"


def test_non_streaming_returns_the_whole_reply(llm_server: FakeLLM) -> None:
    llm_server.respond = lambda body, n: Reply("## Goal\nOne piece.")
    deltas: list[str] = []
    result = make_summarizer(llm_server, stream=False).summarize(
        conversation(), on_delta=deltas.append, allow_network=True
    )
    assert result.text == "## Goal\nOne piece." and deltas == ["## Goal\nOne piece."]
    assert "stream" not in llm_server.requests[0] or llm_server.requests[0]["stream"] is False


def test_planted_secrets_never_reach_the_server(llm_server: FakeLLM) -> None:
    result = make_summarizer(llm_server).summarize(conversation(), allow_network=True)
    assert PLANTED not in llm_server.bodies and "hunter2hunter2" not in llm_server.bodies
    assert "[REDACTED:openai-key]" in llm_server.bodies
    assert result.redactions == {"openai-key": 4, "secret-assignment": 1}


def test_long_session_sends_map_requests_then_a_reduce(llm_server: FakeLLM) -> None:
    messages = conversation(count=240, words=60)
    summarizer = make_summarizer(llm_server, context_window=8_192)
    job = summarizer.plan(messages, target_chars=2000)
    progress: list[str] = []
    deltas: list[str] = []
    result = summarizer.summarize(
        messages,
        target_chars=2000,
        on_delta=deltas.append,
        on_progress=progress.append,
        allow_network=True,
    )
    parts = len(job.chunks)
    assert parts >= 3 and result.chunks == parts and result.requests == parts + 1
    prompts = [body["messages"][-1]["content"] for body in llm_server.requests]
    assert [f"Here is part {n} of {parts}" in prompt for n, prompt in enumerate(prompts[:-1], 1)] == [True] * parts
    assert "Merge them into a single handoff note" in prompts[-1]
    assert all(f"(map {n}, request {n})" in prompts[-1] for n in range(1, parts + 1))
    assert result.text.startswith(f"## Goal\nFinish the work (reduce, request {parts + 1})")
    assert "".join(deltas).strip() == result.text
    assert PLANTED not in llm_server.bodies
    assert all(len(json.dumps(body)) / 3 < 8_192 for body in llm_server.requests)


@pytest.mark.parametrize(
    ("status", "error", "words"),
    [
        (401, AuthError, ["rejected the API key", "TEST_SUMMARY_KEY", "HTTP 401"]),
        (403, AuthError, ["HTTP 403"]),
        (404, SummaryModelNotFoundError, ["'test-model' was not found", "HTTP 404"]),
        (429, RateLimitError, ["HTTP 429", "rate-limiting"]),
        (500, ProviderUnavailableError, ["HTTP 500"]),
        (400, SummaryError, ["HTTP 400", "context too long"]),
    ],
)
def test_http_errors_map_to_one_sentence_summary_errors(
    llm_server: FakeLLM, status: int, error: type[SummaryError], words: list[str]
) -> None:
    llm_server.respond = lambda body, n: Reply(status=status, error_message="context too long")
    with pytest.raises(error) as caught:
        make_summarizer(llm_server).summarize(conversation(), allow_network=True)
    message = str(caught.value)
    assert type(caught.value) is error
    assert all(word in message for word in words), message
    assert API_KEY not in message and "\n" not in message and message.endswith((".", ")", "'"))


def test_server_errors_are_retried_with_backoff(llm_server: FakeLLM) -> None:
    def flaky(body: dict[str, object], number: int) -> Reply:
        if number == 1:
            return Reply(status=503, headers={"x-should-retry": "true", "retry-after-ms": "1"})
        return Reply("## Goal\nAfter a retry.")

    llm_server.respond = flaky
    result = make_summarizer(llm_server, max_retries=2).summarize(conversation(), allow_network=True)
    assert result.text == "## Goal\nAfter a retry." and len(llm_server.requests) == 2


def test_slow_server_times_out_as_provider_unavailable(llm_server: FakeLLM) -> None:
    llm_server.respond = lambda body, n: Reply("late", hold_before=True)
    with pytest.raises(ProviderUnavailableError, match=r"did not answer within 0.3 s"):
        make_summarizer(llm_server, timeout=0.3).summarize(conversation(), allow_network=True)


def test_cancel_mid_stream_closes_it_and_caches_nothing(llm_server: FakeLLM, tmp_path: Path) -> None:
    llm_server.respond = lambda body, n: Reply("one two three four five six", hold_after_pieces=3)
    cancel = threading.Event()
    seen: list[str] = []

    def on_delta(piece: str) -> None:
        seen.append(piece)
        if len(seen) == 2:
            cancel.set()

    summarizer = make_summarizer(llm_server, tmp_path)
    with pytest.raises(SummaryCancelledError):
        summarizer.summarize(conversation(), on_delta=on_delta, cancel=cancel, allow_network=True)
    assert seen == ["one ", "two "]
    assert not (tmp_path / "summaries").exists() or not list((tmp_path / "summaries").iterdir())


def test_cache_hit_makes_no_request_and_needs_no_consent(llm_server: FakeLLM, tmp_path: Path) -> None:
    first = make_summarizer(llm_server, tmp_path).summarize(conversation(), allow_network=True)
    assert len(llm_server.requests) == 1
    again = make_summarizer(llm_server, tmp_path)
    deltas: list[str] = []
    second = again.summarize(conversation(), on_delta=deltas.append)
    assert len(llm_server.requests) == 1
    assert second.cached and second.requests == 0 and second.text == first.text and deltas == [first.text]
    assert second.redactions == first.redactions
    assert again.preview(conversation()).cached
    other_target = again.preview(conversation(), target_chars=1234)
    assert not other_target.cached
    [stored] = (tmp_path / "summaries").iterdir()
    assert stored.stat().st_mode & 0o777 == 0o600 and PLANTED not in stored.read_text()


def test_nothing_is_sent_without_consent(llm_server: FakeLLM) -> None:
    with pytest.raises(
        SummaryConsentError,
        match=r"Would send ~\d+ tokens of 9 messages in 1 request to test/test-model.*Confirm with --yes-send",
    ):
        make_summarizer(llm_server).summarize(conversation())
    assert llm_server.requests == []


def test_preview_counts_requests_and_redactions_without_sending(llm_server: FakeLLM) -> None:
    preview = make_summarizer(llm_server, context_window=8_192).preview(conversation(240, 60), target_chars=2000)
    assert preview.requests > 3 and preview.tokens > 10_000
    assert preview.redactions == {"openai-key": 4, "secret-assignment": 1}
    assert "5 secrets redacted" in preview.describe()
    assert llm_server.requests == []


def test_local_server_needs_no_key(llm_server: FakeLLM) -> None:
    config = resolve_config({"provider": "local", "model": "llama3.2", "base_url": llm_server.url}, {})
    assert config.api_key is None and config.is_local
    result = Summarizer(config).summarize(conversation(), allow_network=True)
    assert result.provider == "local" and llm_server.requests[0]["model"] == "llama3.2"


def test_connection_refused_is_provider_unavailable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = SummarizerConfig("test", "m", f"http://127.0.0.1:{port}/v1", None, timeout=2, max_retries=0)
    with pytest.raises(ProviderUnavailableError, match="Cannot reach the summarizer at http://127.0.0.1"):
        Summarizer(config).summarize(conversation(), allow_network=True)


@pytest.mark.parametrize(
    ("table", "env_name"),
    [
        ({}, "OPENAI_API_KEY"),
        ({"provider": "deepseek"}, "DEEPSEEK_API_KEY"),
        (
            {
                "provider": "groq",
                "base_url": "https://api.groq.com/openai/v1",
                "model": "x",
                "api_key_env": "GROQ_API_KEY",
            },
            "GROQ_API_KEY",
        ),
    ],
)
def test_missing_key_names_the_env_var_to_set(table: dict[str, str], env_name: str) -> None:
    config = resolve_config(table, {})
    with pytest.raises(NoApiKeyError, match=f"set {env_name}"):
        Summarizer(config).summarize(conversation(), allow_network=True)


def test_config_precedence_defaults_file_env_arguments() -> None:
    table = {"provider": "deepseek", "model": "deepseek-reasoner", "timeout": 30, "max_retries": 4}
    env = {"DEEPSEEK_API_KEY": "sk-" + "d" * 32}
    config = resolve_config(table, env)
    assert (config.provider, config.model, config.base_url) == (
        "deepseek",
        "deepseek-reasoner",
        "https://api.deepseek.com",
    )
    assert (config.timeout, config.max_retries, config.context_window) == (30.0, 4, 128_000)
    assert config.api_key == env["DEEPSEEK_API_KEY"] and env["DEEPSEEK_API_KEY"] not in repr(config)
    env["SMIG_SUMMARY_MODEL"] = "deepseek-chat"
    assert resolve_config(table, env).model == "deepseek-chat"
    assert resolve_config(table, env, model="cli-model").model == "cli-model"
    only_openai_url = resolve_config({}, {"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1/"})
    assert only_openai_url.base_url == "http://127.0.0.1:8000/v1" and only_openai_url.is_local
    assert resolve_config({}, {"DEEPSEEK_API_KEY": "x"}).provider == "deepseek"
    assert resolve_config({}, {"OPENAI_API_KEY": "x", "DEEPSEEK_API_KEY": "y"}).provider == "openai"


@pytest.mark.parametrize(
    ("table", "match"),
    [
        ({"timeout": "fast"}, r"summarizer.timeout must be a number of seconds above 0, not 'fast'"),
        ({"modle": "x"}, r"summarizer.modle is not a setting \(known: api_key_env, base_url"),
        ({"provider": "local"}, r"needs \[summarizer\] model"),
        ({"provider": "custom", "model": "x"}, r"needs \[summarizer\] base_url"),
        ({"max_retries": -1}, "summarizer.max_retries must be a whole number"),
        ({"context_window": 0}, "summarizer.context_window must be a positive whole number of tokens, not 0"),
    ],
)
def test_bad_config_names_the_key(table: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        resolve_config(table, {}, where="/x/config.toml")


def test_openai_provider_uses_max_completion_tokens(llm_server: FakeLLM) -> None:
    make_summarizer(llm_server, provider="openai").summarize(conversation(), allow_network=True)
    body = llm_server.requests[0]
    assert "max_completion_tokens" in body and "max_tokens" not in body


def test_reply_cut_at_the_output_cap_is_flagged(llm_server: FakeLLM) -> None:
    llm_server.respond = lambda body, n: Reply("## Goal\nHalf", finish_reason="length")
    assert make_summarizer(llm_server).summarize(conversation(), allow_network=True).truncated


def test_empty_reply_is_an_error(llm_server: FakeLLM) -> None:
    llm_server.respond = lambda body, n: Reply("   ")
    with pytest.raises(SummaryError, match="empty reply"):
        make_summarizer(llm_server).summarize(conversation(), allow_network=True)


def test_unreadable_or_stale_cache_entries_are_misses(tmp_path: Path) -> None:
    cache = SummaryCache(tmp_path / "summaries")
    key = "a" * 64
    (tmp_path / "summaries").mkdir()
    (tmp_path / "summaries" / f"{key}.json").write_text("{not json")
    assert cache.get(key) is None
    (tmp_path / "summaries" / f"{key}.json").write_text(json.dumps({"prompt_version": "old", "text": "x"}))
    assert cache.get(key) is None
    assert cache.get("../../etc/passwd") is None
    with pytest.raises(ValueError):
        cache.put("../escape", SummaryResult("x", "m", "p"))
    assert not (tmp_path / "escape.json").exists()


def test_preview_carries_the_missing_key_sentence_for_an_opt_in_screen() -> None:
    preview = Summarizer(resolve_config({"provider": "deepseek"}, {})).preview(conversation())
    assert preview.problem is not None and "set DEEPSEEK_API_KEY" in preview.problem
    ready = Summarizer(resolve_config({"provider": "deepseek"}, {"DEEPSEEK_API_KEY": "sk-x"})).preview(conversation())
    assert ready.problem is None


def test_stream_that_hangs_up_early_is_flagged_incomplete(llm_server: FakeLLM) -> None:
    llm_server.respond = lambda body, n: Reply("## Goal\nFinish the parser today.", drop_after_pieces=3)
    result = make_summarizer(llm_server).summarize(conversation(), allow_network=True)
    assert result.text == "## Goal\nFinish" and result.truncated


def test_stream_that_stalls_midway_times_out(llm_server: FakeLLM) -> None:
    llm_server.respond = lambda body, n: Reply("## Goal\nFinish the parser today.", hold_after_pieces=2)
    deltas: list[str] = []
    # The read timeout is what is tested, so it is long enough that no busy machine delays the first
    # two pieces past it (they are sent at once); the stall after them is endless.
    with pytest.raises(ProviderUnavailableError, match="did not answer within 3 s"):
        make_summarizer(llm_server, timeout=3).summarize(conversation(), on_delta=deltas.append, allow_network=True)
    assert deltas == ["## ", "Goal\n"]


def test_cancel_while_the_server_is_silent_returns_at_once(llm_server: FakeLLM, tmp_path: Path) -> None:
    llm_server.respond = lambda body, n: Reply("never sent", hold_before=True)
    cancel = threading.Event()

    def cancel_once_sent() -> None:
        llm_server.received.wait(600)
        cancel.set()

    threading.Thread(target=cancel_once_sent, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(SummaryCancelledError, match="cancelled"):
        make_summarizer(llm_server, tmp_path, timeout=900).summarize(conversation(), cancel=cancel, allow_network=True)
    assert time.monotonic() - started < 600  # it returned on the cancel, not after the 900 s read timeout
    assert len(llm_server.requests) == 1 and not (tmp_path / "summaries").exists()
