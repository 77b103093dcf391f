from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from migration_builders import make_plan, make_session

from smig_tui.core.export import ExportFormat, streamed_openai_messages, to_markdown, to_openai, to_record
from smig_tui.core.export import markdown_chunks as export_markdown_chunks
from smig_tui.core.handoff import migration_note, native_title, to_turns
from smig_tui.core.json_text import LazyList, indented_json
from smig_tui.core.memory_markdown import files_and_commands, to_memory_markdown
from smig_tui.core.models import Kind, Message, Role
from smig_tui.core.native import Lineage
from smig_tui.core.plans import result_messages
from smig_tui.core.timeline import format_iso, monotonic_times


def test_markdown_handoff_document(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    plan = make_plan(session, target="claude-sonnet-4-5", keep_last=4)
    text = to_markdown(session, result_messages(plan), plan)
    assert text.startswith("# Handoff: Fix the flaky parser\n")
    for fact in (
        "| Source session | `019b7f94-51b4-7593-922e-ba12b5b73b52` |",
        "| Agent | codex |",
        "| Model | gpt-5-codex |",
        "| Working directory | `/work/proj` |",
        "| Decision | must compress (over by 60 tokens) |",
        "| Strategy | truncate |",
        "| Messages kept | 4 of 11 |",
        "| Tokens | 110 before → 52 after |",
    ):
        assert fact in text
    assert "## Goal\n\n> Fix the flaky parser test ZEBRA-41 in src/parser.py" in text  # injected skipped
    assert "## What was left out\n\n[smig: 7 earlier messages omitted" in text
    conversation = text.split("## Conversation", 1)[1]
    order = [
        conversation.index(s)
        for s in ("The file src/parser.py has been updated.", "PELICAN-77", "OSPREY-93", "test_osprey")
    ]
    assert order == sorted(order)
    assert "### 1. Tool · tool result · 2026-01-02T10:00:07.000Z" in conversation
    assert "ZEBRA-41" not in conversation  # dropped by the plan


def test_markdown_fences_survive_backticks(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    call = Message(index=0, id="x", role=Role.ASSISTANT, kind=Kind.TOOL_CALL, body="echo ```` done", tool_name="shell")
    text = to_markdown(session, (call,))
    assert "`````\necho ```` done\n`````" in text
    assert "| Target |" not in text  # no plan: no decision facts


def test_openai_export_alternates_and_flattens_tools(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    chat = to_openai(result_messages(make_plan(session)))
    roles = [m["role"] for m in chat]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert set(chat[0]) == {"role", "content"}
    assert chat[0]["content"] == "Fix the flaky parser test ZEBRA-41 in src/parser.py"  # injected dropped
    assert "[tool call: shell]\n" in chat[1]["content"] and "[tool result]\n1 failed" in chat[1]["content"]
    assert "thinking about it" not in json.dumps(chat)  # reasoning never migrates


def test_record_export(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    plan = make_plan(session, keep_last=2)
    record = to_record(session, result_messages(plan), plan)
    assert record["source"]["id"] == session.id and record["goal"].startswith("Fix the flaky")
    assert [m["id"] for m in record["messages"]] == ["smig-placeholder", "m9", "m10"]
    assert record["plan"]["kept"] == 2 and record["plan"]["dropped"] == 9
    assert ExportFormat("openai") is ExportFormat.OPENAI


def test_turns_merge_same_role_and_note_leads(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    note = migration_note(Lineage("codex", "s1", "/p", "f" * 32, 0, "as-is"))
    turns = to_turns(session.messages, note=note)
    assert [t.role for t in turns] == [Role.USER, Role.ASSISTANT, Role.USER, Role.ASSISTANT]
    assert turns[0].text.startswith(note + "\n\nFix the flaky")
    assert turns[1].source_ids == ("m3", "m4", "m5", "m6", "m7", "m8")
    starts_with_assistant = to_turns(session.messages[8:], note=note)
    assert starts_with_assistant[0].role is Role.USER and starts_with_assistant[0].text == note
    assert native_title("codex", None, "x" * 200).startswith("↪ from codex: xxx")
    assert len(native_title("codex", None, "x" * 200)) < 100


def test_monotonic_times_repair_missing_and_out_of_order() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    stamps = ["2026-01-02T10:00:00.000Z", None, "2026-01-02T09:00:00Z", "2026-01-02T11:00:00+00:00"]
    times = [format_iso(t) for t in monotonic_times(stamps, now)]
    assert times == [
        "2026-01-02T10:00:00.000Z",
        "2026-01-02T10:00:00.001Z",
        "2026-01-02T10:00:00.002Z",
        "2026-01-02T11:00:00.000Z",
    ]
    assert format_iso(monotonic_times([None], now)[0]) == "2026-01-01T00:00:00.000Z"


def test_memory_markdown(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    note = to_memory_markdown(session)
    head, body = note.split("---\n", 2)[1:]
    assert 'name: "Fix the flaky parser"' in head and "type: project" in head
    assert f"originSessionId: {session.id}" in head and "modified: 2026-01-02T10:00:10.000Z" in head
    assert "## Goal\n\nFix the flaky parser test ZEBRA-41 in src/parser.py" in body
    assert "## Files touched\n\n- `src/parser.py`" in body
    assert "## Commands run\n\n- `pytest -q tests/test_parser.py`" in body
    assert body.rstrip().endswith("Added tests/test_parser.py::test_osprey, all green.")
    truncated = to_memory_markdown(session, make_plan(session, keep_last=2))
    assert "(none recorded)" in truncated  # only the kept messages are described


def test_a_memory_note_reads_the_goal_the_calls_and_the_last_reply_only(tmp_path: Path) -> None:
    """What the note reads goes through `prepare` (an export redacts there) and nothing else is read: the
    note is the one made from a session whose every message went through it first."""
    session = make_session(tmp_path)
    handed: list[Message] = []

    def loud(messages: Sequence[Message]) -> Iterator[Message]:
        handed.extend(messages)
        return (replace(message, body=message.text.upper()) for message in messages)

    note = to_memory_markdown(session, prepare=loud)
    assert note == to_memory_markdown(replace(session, messages=tuple(loud(session.messages))))
    assert "## Goal\n\nFIX THE FLAKY PARSER TEST ZEBRA-41" in note
    handed.clear()
    to_memory_markdown(session, prepare=loud)
    assert all(message.kind is not Kind.TOOL_RESULT for message in handed)
    assert {message.kind for message in handed} == {Kind.TEXT, Kind.TOOL_CALL}
    calls = [message for message in session.messages if message.kind is Kind.TOOL_CALL]
    assert len(handed) == len(calls) + 2  # the goal and the last reply besides
    plan = make_plan(session, keep_last=2)
    kept = {item.message.id for item in plan.kept}
    handed.clear()
    to_memory_markdown(session, plan, prepare=loud)
    assert {message.id for message in handed} - kept == {handed[0].id}  # the goal, from the whole session


def test_files_and_commands_from_patches_and_argv() -> None:
    patch = Message(
        index=0,
        id="a",
        role=Role.ASSISTANT,
        kind=Kind.TOOL_CALL,
        tool_name="apply_patch",
        body="*** Begin Patch\n*** Add File: docs/new.md\n+hi\n*** Update File: src/a.py\n",
    )
    exec_cmd = Message(
        index=1,
        id="b",
        role=Role.ASSISTANT,
        kind=Kind.TOOL_CALL,
        tool_name="exec_command",
        body='{"cmd": "rg parser", "workdir": "/w"}',
    )
    argv = Message(
        index=2,
        id="c",
        role=Role.ASSISTANT,
        kind=Kind.TOOL_CALL,
        tool_name="shell",
        body='{"command": ["git", "status"]}',
    )
    files, commands = files_and_commands([patch, exec_cmd, argv, exec_cmd])
    assert files == ["docs/new.md", "src/a.py"]
    assert commands == ["rg parser", "git status"]


def _one_long_run(outputs: int, size: int) -> list[Message]:
    """A prompt, then an agent's run of calls and results (one assistant turn), odd texts among them."""
    messages = [Message(0, "u", Role.USER, Kind.TEXT, 'Run it all, "quoted" \\ and café ✓ \x01')]
    for number in range(outputs):
        at = len(messages)
        messages.append(Message(at, f"c{number}", Role.ASSISTANT, Kind.TOOL_CALL, '{"cmd": "ls"}', tool_name="shell"))
        output = f"line {number} \u2028 日本語 \ud800 tab\t\n" * (size // 30)
        messages.append(Message(at + 1, f"r{number}", Role.TOOL, Kind.TOOL_RESULT, output, tool_name="shell"))
    messages.append(Message(len(messages), "r", Role.ASSISTANT, Kind.REASONING, "never exported"))
    messages.append(Message(len(messages), "u2", Role.USER, Kind.TEXT, "thanks"))
    return messages


def test_the_streamed_openai_export_writes_what_the_whole_one_would(tmp_path: Path) -> None:
    """Each turn's content is written from its messages' texts as they come (`JoinedText`): byte for byte
    `json.dumps` of `to_openai`, on the fixture conversation and on one long run of odd texts."""
    for messages in (result_messages(make_plan(make_session(tmp_path))), _one_long_run(40, 3_000), []):
        whole = json.dumps(to_openai(messages), indent=2, ensure_ascii=False)
        assert "".join(indented_json(LazyList(streamed_openai_messages(iter(messages))))) == whole


def test_the_streamed_json_export_writes_what_the_whole_one_would(tmp_path: Path) -> None:
    """The JSON export's messages are encoded a batch at a time by orjson (`FlatRows`): byte for byte
    `json.dumps` of the record made whole, on the fixture conversation with its plan, on a long run of
    odd texts (a lone surrogate, which orjson refuses, sends its batch the standard way) and on none."""
    session = make_session(tmp_path)
    plan = make_plan(session)
    for messages, planned in ((result_messages(plan), plan), (_one_long_run(150, 300), None), ([], None)):
        whole = json.dumps(to_record(session, messages, planned), indent=2, ensure_ascii=False, default=str)
        assert "".join(indented_json(to_record(session, iter(messages), planned, lazy=True))) == whole


def test_the_streamed_openai_export_holds_no_turn_whole() -> None:
    """Traced allocations (no clock, no RSS) while writing one 8 MB assistant turn of 80 results: the turn
    joined and encoded whole peaked at 12.8 times its characters; written a text at a time, at 0.08."""
    messages = _one_long_run(80, 150_000)
    turn = sum(len(message.text) for message in messages)
    tracemalloc.start()
    try:
        for _ in indented_json(LazyList(streamed_openai_messages(iter(messages)))):
            pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert turn > 8_000_000 and peak < 0.25 * turn, (peak, turn)  # whole: 12.8 times the turn


def _huge_messages(size: int) -> list[Message]:
    """A prompt, a huge tool result and a huge answer with blank lines around it, odd characters in both."""
    output = "line \u2028 日本語 \ud800 ``` tab\t\n" * (size // 30)
    return [
        Message(0, "u", Role.USER, Kind.TEXT, "Run it"),
        Message(1, "c", Role.ASSISTANT, Kind.TOOL_CALL, '{"cmd": "cat big"}', tool_name="shell"),
        Message(2, "r", Role.TOOL, Kind.TOOL_RESULT, output, tool_name="shell", full_output_path="/tmp/out.txt"),
        Message(3, "a", Role.ASSISTANT, Kind.TEXT, "\n \u3000" + output + "\n\n"),
    ]


def test_a_huge_text_is_exported_in_pieces_as_it_would_be_whole(tmp_path: Path, monkeypatch: Any) -> None:
    """A text of `LONG_TEXT_CHARS` or more is rendered in slices (Markdown) and encoded in pieces (OpenAI
    chat): the same document as rendered whole, its fence and its stripped ends included."""
    from smig_tui.core import export, json_text

    session = make_session(tmp_path)
    messages = _huge_messages(3_000)
    markdown = to_markdown(session, messages)
    chat = json.dumps(to_openai(messages), indent=2, ensure_ascii=False)
    monkeypatch.setattr(export, "LONG_TEXT_CHARS", 500)
    monkeypatch.setattr(export, "STRING_PIECE", 97)
    monkeypatch.setattr(json_text, "LONG_TEXT_CHARS", 500)
    monkeypatch.setattr(json_text, "STRING_PIECE", 97)
    pieces = list(export.markdown_chunks(session, messages))
    assert "".join(pieces) == markdown and max(map(len, pieces[1:])) < 200
    assert "".join(export._long_body(messages[3], " \n\u3000 ")) == "_(empty)_"
    assert "".join(indented_json(LazyList(streamed_openai_messages(iter(messages))))) == chat


def test_a_huge_text_is_exported_without_a_whole_copy(tmp_path: Path) -> None:
    """Traced allocations while writing a session of two 8 MB texts as Markdown and as OpenAI chat: framed,
    fenced or stripped, then joined into their batch or turn and encoded, each text was held whole again
    (a 100 MB message's exports peaked at 440 and 548 MB)."""
    session = make_session(tmp_path)
    messages = _huge_messages(10_000_000)
    size = len(messages[2].text)
    for write in (
        lambda: export_markdown_chunks(session, messages),
        lambda: indented_json(LazyList(streamed_openai_messages(iter(messages)))),
    ):
        tracemalloc.start()
        try:
            for _ in write():
                pass
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert size > 7_000_000 and peak < 0.25 * size, (peak, size)


def test_a_huge_text_is_stripped_as_str_strip_strips() -> None:
    """`_long_body` finds a text's ends with `re`'s `\\S` and `str.isspace`; `str.strip` uses the same test."""
    from smig_tui.core.export import _NOT_SPACE

    assert all((_NOT_SPACE.match(char) is None) == char.isspace() for char in map(chr, range(0x10000)))
