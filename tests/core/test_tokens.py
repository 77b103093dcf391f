from __future__ import annotations

from plan_helpers import WordCounter

from smig_tui.core.models import Agent, Kind, Message, Role, Usage
from smig_tui.core.tokens import (
    MESSAGE_OVERHEAD,
    calibrate,
    count_messages,
    measured_ratio,
    render_for_count,
    usage_context,
)


def _m(kind: Kind, text: str, **fields: object) -> Message:
    return Message(index=0, id="x", role=Role.ASSISTANT, kind=kind, body=text, **fields)  # type: ignore[arg-type]


def test_render_tool_call_is_name_then_arguments() -> None:
    assert render_for_count(_m(Kind.TOOL_CALL, '{"cmd": "ls"}', tool_name="shell")) == 'shell\n{"cmd": "ls"}'


def test_render_result_is_output_and_opaque_reasoning_is_nothing() -> None:
    assert render_for_count(_m(Kind.TOOL_RESULT, "out put")) == "out put"
    assert render_for_count(_m(Kind.REASONING, "[encrypted]", opaque=True)) == ""
    assert render_for_count(_m(Kind.REASONING, "thinking aloud")) == "thinking aloud"


def test_count_messages_adds_framing_except_for_unsent() -> None:
    counter = WordCounter()
    messages = [
        _m(Kind.TEXT, "a b c"),
        _m(Kind.REASONING, "secret", opaque=True),
        _m(Kind.TOOL_CALL, "x", tool_name="t"),
    ]
    assert count_messages(messages, counter) == [3 + MESSAGE_OVERHEAD, 0, 2 + MESSAGE_OVERHEAD]
    assert counter.calls == [3]  # one batch


def test_calibrate_rounds_up_and_identity_is_free() -> None:
    assert calibrate([10, 11, 0], 1.2) == [12, 14, 0]
    counts = [1, 2]
    assert calibrate(counts, 1.0) == [1, 2]


def test_usage_context_by_agent() -> None:
    claude = Usage(input_tokens=10, cached_input_tokens=5000, cache_creation_tokens=300)
    codex = Usage(input_tokens=9000, cached_input_tokens=8000)
    assert usage_context(claude, Agent("claude")) == 5310
    assert usage_context(codex, Agent("codex")) == 9000
    assert usage_context(Usage(context_tokens=77, input_tokens=5), Agent("codex")) == 77


def test_measured_ratio() -> None:
    assert measured_ratio(None, 10) is None
    assert measured_ratio(150, 100) == 1.5
