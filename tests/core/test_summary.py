"""Tests the pure summary planning: rendering, redaction, chunking, prompts and the map-reduce driver."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

import pytest

from smig_tui.core.errors import ConfigError, SummaryCancelledError
from smig_tui.core.models import Kind, Message, Role
from smig_tui.core.ports import ChatReply
from smig_tui.core.summary import (
    Block,
    RenderLimits,
    chars_for_tokens,
    chunk_capacity,
    condense,
    describe_redactions,
    estimate_tokens,
    plan_chunks,
    plan_summary_job,
    render_message,
    run_summary,
)
from smig_tui.core.summary_prompt import PROMPT_VERSION, SECTIONS, map_prompt, reduce_prompt

FAKE_KEY = "sk-proj-" + "Q7wErTy8uIoP4aSdFgHjKlZxCvBnM1234567"


def msg(index: int, text: str, role: Role = Role.USER, kind: Kind = Kind.TEXT, **extra: object) -> Message:
    return Message(index=index, id=f"m{index}", role=role, kind=kind, body=text, **extra)  # type: ignore[arg-type]


def conversation(count: int, words: int = 60) -> list[Message]:
    """Alternate user and assistant messages, each `words` distinct words long."""
    return [
        msg(
            i,
            " ".join(f"w{i}_{n}" for n in range(words)),
            Role.USER if i % 2 == 0 else Role.ASSISTANT,
        )
        for i in range(count)
    ]


class FakeBackend:
    """Answers every request with a short note naming its position; records what it was sent."""

    def __init__(self, reply: Callable[[int, str], str] | None = None) -> None:
        self.prompts: list[str] = []
        self.reply = reply or (lambda n, prompt: f"note {n}")

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        max_output_tokens: int,
        on_delta: Callable[[str], None] | None,
        cancel: threading.Event | None,
    ) -> ChatReply:
        self.prompts.append(messages[-1]["content"])
        text = self.reply(len(self.prompts), messages[-1]["content"])
        if on_delta:
            for piece in text.split(" "):
                on_delta(piece + " ")
        return ChatReply(text)


def test_tool_traffic_is_condensed_and_prose_kept() -> None:
    output = "line\n" * 2000
    call = render_message(msg(3, '{"cmd": "pytest -q"}', Role.ASSISTANT, Kind.TOOL_CALL, tool_name="shell"))
    result = render_message(msg(4, output, Role.TOOL, Kind.TOOL_RESULT, tool_name="shell", is_error=True))
    prose = render_message(msg(5, "Please keep the public API stable."))
    assert call == '[3] assistant → tool call shell:\n{"cmd": "pytest -q"}'
    assert result is not None and result.startswith("[4] tool result shell (failed):")
    assert "chars omitted" in result and len(result) < RenderLimits().tool_result_chars + 120
    assert prose == "[5] user:\nPlease keep the public API stable."


def test_opaque_and_empty_messages_are_not_sent() -> None:
    assert render_message(msg(0, "gAAAAB...", Role.ASSISTANT, Kind.REASONING, opaque=True)) is None
    assert render_message(msg(1, "   ")) is None
    assert render_message(msg(2, "", Role.USER, Kind.IMAGE)) == "[2] user image:\n[image not included]"


def test_long_prose_is_condensed_by_default() -> None:
    job = plan_summary_job([msg(0, "y" * 200_000)], context_window=8_192, target_chars=2000)
    assert len(job.chunks) == 1 and "chars omitted" in job.chunks[0].text


def test_condense_keeps_head_and_tail() -> None:
    text = "HEAD " + "x" * 5000 + " TAIL"
    out = condense(text, 300)
    assert out.startswith("HEAD") and out.endswith("TAIL")
    assert "[4,710 chars omitted]" in out and len(out) < 360
    assert condense("short", 300) == "short"


def test_job_redacts_before_anything_is_planned() -> None:
    messages = [
        msg(0, f"export OPENAI_API_KEY={FAKE_KEY}"),
        msg(1, "password: hunter22", Role.ASSISTANT),
    ]
    job = plan_summary_job(messages, context_window=16_000)
    sent = "".join(chunk.text for chunk in job.chunks)
    assert FAKE_KEY not in sent and "hunter22" not in sent
    assert job.redactions == {"openai-key": 1, "secret-assignment": 1}
    assert job.redaction_total == 2
    assert describe_redactions(job.redactions) == "2 secrets redacted (openai-key 1, secret-assignment 1)"


def test_small_session_is_one_chunk() -> None:
    job = plan_summary_job(conversation(10), context_window=128_000)
    assert len(job.chunks) == 1
    assert job.chunks[0].first_index == 0 and job.chunks[0].last_index == 9


@pytest.mark.parametrize(("count", "window"), [(200, 8_192), (500, 16_000), (60, 6_000)])
def test_chunks_fit_capacity_keep_order_and_cover_everything(count: int, window: int) -> None:
    messages = conversation(count)
    job = plan_summary_job(messages, context_window=window, target_chars=2000)
    assert len(job.chunks) > 1
    assert all(chunk.tokens <= job.capacity_tokens for chunk in job.chunks)
    assert all(estimate_tokens(chunk.text) <= job.capacity_tokens for chunk in job.chunks)
    starts = [chunk.first_index for chunk in job.chunks]
    assert starts == sorted(starts) and starts[0] == 0 and job.chunks[-1].last_index == count - 1
    joined = "\n\n".join(chunk.text for chunk in job.chunks)
    for message in messages:
        assert message.text in joined


def test_one_huge_message_is_split_into_fitting_slices() -> None:
    huge = msg(0, "y" * 200_000)
    job = plan_summary_job([huge], context_window=8_192, target_chars=2000, limits=RenderLimits(text_chars=10**6))
    assert len(job.chunks) >= 10
    assert all(chunk.tokens <= job.capacity_tokens for chunk in job.chunks)
    assert all(chunk.first_index == 0 for chunk in job.chunks)


def test_plan_chunks_packs_greedily() -> None:
    blocks = [Block(i, "z" * 30, 10) for i in range(10)]
    chunks = plan_chunks(blocks, capacity=35, count=lambda text: 1 if text == "\n\n" else len(text) // 3)
    assert [(c.first_index, c.last_index) for c in chunks] == [(0, 2), (3, 5), (6, 8), (9, 9)]


def test_window_too_small_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="context_window"):
        chunk_capacity(2_000, 6_000)


def test_cache_key_depends_on_content_model_target_and_prompt_version() -> None:
    base = plan_summary_job(conversation(4), context_window=32_000, target_chars=3000)
    same = plan_summary_job(conversation(4), context_window=64_000, target_chars=3000)
    other_target = plan_summary_job(conversation(4), context_window=32_000, target_chars=4000)
    other_text = plan_summary_job(conversation(5), context_window=32_000, target_chars=3000)
    key = base.cache_key("openai", "gpt-4.1-mini")
    assert key == same.cache_key("openai", "gpt-4.1-mini")
    assert (
        len(
            {
                key,
                base.cache_key("openai", "gpt-4o"),
                other_target.cache_key("openai", "gpt-4.1-mini"),
                other_text.cache_key("openai", "gpt-4.1-mini"),
            }
        )
        == 4
    )


def test_cache_key_changes_with_the_prompt_version(monkeypatch: pytest.MonkeyPatch) -> None:
    job = plan_summary_job(conversation(4), context_window=32_000)
    before = job.cache_key("openai", "m")
    monkeypatch.setattr("smig_tui.core.summary_prompt.PROMPT_VERSION", PROMPT_VERSION + "-next")
    assert job.cache_key("openai", "m") != before


def test_prompts_name_every_section_and_the_target_length() -> None:
    job = plan_summary_job(conversation(3), context_window=32_000, target_chars=2500)
    system, user = map_prompt(job.chunks[0], 1, 1, 2500, head_only=True)
    for section in SECTIONS:
        assert f"## {section}" in system["content"]
    assert "2,500 characters" in system["content"]
    assert "verbatim after your note" in user["content"]
    assert "<transcript>" in user["content"] and "w0_0" in user["content"]
    merged = reduce_prompt(["first", "second"], 2500, head_only=False)[1]["content"]
    assert merged.index("first") < merged.index("second") and 'part number="2"' in merged


def test_single_chunk_streams_the_answer() -> None:
    job = plan_summary_job(conversation(4), context_window=32_000)
    backend = FakeBackend(lambda n, p: "## Goal\nship it")
    deltas: list[str] = []
    text, stats = run_summary(job, backend, on_delta=deltas.append)
    assert text == "## Goal\nship it" and "".join(deltas).strip() == text
    assert stats.requests == 1


def test_map_then_reduce_streams_only_the_reduce() -> None:
    job = plan_summary_job(conversation(300), context_window=8_192, target_chars=2000)
    parts = len(job.chunks)
    backend = FakeBackend(lambda n, p: "merged" if "Merge them" in p else f"part-note-{n}")
    deltas: list[str] = []
    progress: list[str] = []
    text, stats = run_summary(job, backend, on_delta=deltas.append, on_progress=progress.append)
    assert text == "merged" and "".join(deltas).strip() == "merged"
    assert stats.requests == parts + 1
    assert all(f"Here is part {n} of {parts}" in backend.prompts[n - 1] for n in range(1, parts + 1))
    assert all(f"part-note-{n}" in backend.prompts[-1] for n in range(1, parts + 1))
    assert progress[0] == f"summarising part 1 of {parts}" and progress[-1] == f"merging {parts} parts"


def test_notes_too_big_for_one_reduce_are_merged_in_levels() -> None:
    job = plan_summary_job(conversation(300), context_window=8_192, target_chars=2000)
    big_note = "n " * 3000  # ~2,000 estimated tokens each: a few per reduce at most
    backend = FakeBackend(lambda n, p: big_note if "Here is part" in p else "final")
    text, stats = run_summary(job, backend)
    reduces = [p for p in backend.prompts if "Merge them" in p]
    assert text == "final" and len(reduces) >= 2
    assert stats.requests == len(job.chunks) + len(reduces)


def test_cancel_before_start_sends_nothing() -> None:
    job = plan_summary_job(conversation(4), context_window=32_000)
    cancel = threading.Event()
    cancel.set()
    backend = FakeBackend()
    with pytest.raises(SummaryCancelledError):
        run_summary(job, backend, cancel=cancel)
    assert backend.prompts == []


def test_nothing_to_summarise_is_a_clear_error() -> None:
    job = plan_summary_job([msg(0, "  ")], context_window=32_000)
    with pytest.raises(ConfigError, match="nothing to summarise"):
        run_summary(job, FakeBackend())


def test_token_budget_converts_to_characters() -> None:
    assert chars_for_tokens(2000) == 6000
    assert chars_for_tokens(10) == 400
