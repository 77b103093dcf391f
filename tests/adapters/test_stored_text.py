"""Long texts of large session files stay on disk (`LineText`) and read back exactly as if held."""

from __future__ import annotations

import json
import shutil
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from text_spill_state import block_the_spill

from smig_tui.adapters import stored_text
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.adapters.stored_text import LineText
from smig_tui.core.errors import SourceChangedError
from smig_tui.core.models import Agent, Kind, Message, Role, Session, SessionInfo
from smig_tui.services import build_services

OWN = Path(__file__).parents[1] / "fixtures"


def _load(agent: Agent, path: Path) -> Session:
    build_services()
    reader = CodexSource(codex_home()) if agent == Agent("codex") else ClaudeSource(claude_home())
    stat = path.stat()
    info = SessionInfo(id=path.stem, agent=agent, path=str(path), size=stat.st_size, mtime=stat.st_mtime)
    return reader.load(info, lambda _warning: None)


def _files(*roots: Path) -> Iterator[tuple[Agent, Path]]:
    for root in roots:
        for path in sorted(root.rglob("*.jsonl")):
            if path.name == "session_index.jsonl":
                continue
            yield (Agent("codex") if "codex" in str(path.relative_to(root.parent)) else Agent("claude")), path


def _store_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every file 'large' and every text 'long', so each text that can be left on disk is."""
    monkeypatch.setattr(stored_text, "FILE_BYTES", 0)
    monkeypatch.setattr(stored_text, "TEXT_CHARS", 0)


def _same_sessions(monkeypatch: pytest.MonkeyPatch, files: list[tuple[Agent, Path]]) -> int:
    """Load each file held and stored; assert the same messages; return how many texts were stored."""
    held = {path: _load(agent, path) for agent, path in files}
    _store_everything(monkeypatch)
    stored_count = 0
    for agent, path in files:
        stored = _load(agent, path)
        before = held[path]
        assert [m.id for m in stored.messages] == [m.id for m in before.messages], path
        for old, new in zip(before.messages, stored.messages, strict=True):
            assert isinstance(old.body, str)
            assert new.text == old.text and new.text_length == len(old.text), (path, new.id)
            assert new.head(50) == old.text[:50]
            assert (new.kind, new.role, new.tool_name, new.usage) == (old.kind, old.role, old.tool_name, old.usage)
            stored_count += isinstance(new.body, LineText)
    return stored_count


def test_own_fixtures_read_back_identically(monkeypatch: pytest.MonkeyPatch) -> None:
    files = list(_files(OWN / "codex_home", OWN / "claude_home"))
    assert {agent for agent, _ in files} == {Agent("codex"), Agent("claude")}
    assert _same_sessions(monkeypatch, files) > 20


def test_real_fixtures_read_back_identically(shared_fixtures: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [(Agent("codex"), p) for p in sorted((shared_fixtures / "codex").glob("*.jsonl"))]
    files += [(Agent("claude"), p) for p in sorted((shared_fixtures / "claude").glob("*.jsonl"))]
    assert _same_sessions(monkeypatch, files) > 100


def _codex_rollout(path: Path, outputs: list[str]) -> None:
    """A small rollout: a prompt, then one shell call and its (long) output per entry."""
    lines = [
        {
            "timestamp": "2026-11-01T10:00:00.000Z",
            "type": "session_meta",
            "payload": {"id": "01a1fe68-2300-7c3d-84e5-f6a7b8c9d0e1", "cwd": "/work/x", "originator": "codex_cli_rs"},
        },
        {
            "timestamp": "2026-11-01T10:00:01.000Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list it"}]},
        },
    ]
    for n, output in enumerate(outputs):
        lines.append(
            {
                "timestamp": "2026-11-01T10:00:02.000Z",
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": f"c{n}",
                    "arguments": json.dumps({"command": ["ls"]}),
                },
            }
        )
        lines.append(
            {
                "timestamp": "2026-11-01T10:00:03.000Z",
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": f"c{n}", "output": output},
            }
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _rollout_path(home: Path) -> Path:
    return home / "sessions/2026/11/01/rollout-2026-11-01T10-00-00-01a1fe68-2300-7c3d-84e5-f6a7b8c9d0e1.jsonl"


def test_small_files_and_short_texts_are_held(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    path = _rollout_path(isolated_homes["codex"])
    _codex_rollout(path, ["x" * 5000, "short"])
    assert not any(isinstance(m.body, LineText) for m in _load(Agent("codex"), path).messages)  # file too small
    monkeypatch.setattr(stored_text, "FILE_BYTES", 0)
    session = _load(Agent("codex"), path)
    stored = [m for m in session.messages if isinstance(m.body, LineText)]
    assert [m.text_length for m in stored] == [5000]  # only the text over TEXT_CHARS
    assert stored[0].kind is Kind.TOOL_RESULT and stored[0].text == "x" * 5000


def test_a_grown_file_still_reads_back(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    path = _rollout_path(isolated_homes["codex"])
    _codex_rollout(path, ["first " * 1000])
    _store_everything(monkeypatch)
    session = _load(Agent("codex"), path)
    key = session.messages[-1].body.fingerprint()  # type: ignore[union-attr]
    with path.open("a") as handle:  # the agent goes on writing
        handle.write(
            json.dumps(
                {
                    "type": "response_item",
                    "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "more"}]},
                }
            )
            + "\n"
        )
    assert session.messages[-1].text == "first " * 1000
    assert session.messages[-1].body.fingerprint() == key  # type: ignore[union-attr]


def test_a_rewritten_file_is_reported_not_misread(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _rollout_path(isolated_homes["codex"])
    _codex_rollout(path, ["a" * 3000, "b" * 3000])
    _store_everything(monkeypatch)
    session = _load(Agent("codex"), path)
    _codex_rollout(path, ["c" * 2000, "b" * 3000])  # same lines, different lengths: offsets move
    with pytest.raises(SourceChangedError, match="rewritten after smig read it"):
        _ = session.messages[-1].text
    assert session.messages[-1].head(20) == "b" * 20  # previews need no read-back
    path.unlink()
    with pytest.raises(SourceChangedError, match="Cannot read .* again"):
        _ = session.messages[2].text


@pytest.mark.usefixtures("exact_tokens")
@pytest.mark.source_only  # counts the reads of a compiled class's texts
def test_planning_a_stored_session_reads_back_only_what_it_keeps(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _rollout_path(isolated_homes["codex"])
    _codex_rollout(path, [f"output {n} " * 800 for n in range(40)])
    monkeypatch.setattr(stored_text, "FILE_BYTES", 0)
    session = _load(Agent("codex"), path)
    reads: list[int] = []
    real_read = LineText.read
    monkeypatch.setattr(LineText, "read", lambda self: reads.append(self.offset) or real_read(self))
    plan = build_services().plan(session, "gpt-4", "truncate", reserve=8_192 - 6_000)
    assert not plan.decision.fits and 0 < len(plan.kept) < len(session.messages)
    stored_kept = {it.message.offset for it in plan.kept if isinstance(it.message.body, LineText)}
    assert set(reads) <= stored_kept | {m.offset for m in session.messages[-8:]}
    assert 0 < len(set(reads)) < 40  # the dropped outputs were never parsed again


def test_claude_transcript_texts_stay_on_disk(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    source = OWN / "claude_home/projects/-home-user-proj/7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"
    path = isolated_homes["claude"] / "projects/-home-user-proj" / source.name
    path.parent.mkdir(parents=True)
    shutil.copy(source, path)
    _store_everything(monkeypatch)
    session = _load(Agent("claude"), path)
    stored = [m for m in session.messages if isinstance(m.body, LineText)]
    assert stored and all(m.text == m.body.read() for m in stored)  # type: ignore[union-attr]
    assert {m.body.offset for m in stored} <= {m.offset for m in session.messages}  # type: ignore[union-attr]


def test_packed_texts_read_back_across_sealed_blocks(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Where no spill can be made, texts of a huge compressed session packed in blocks read back whole, in
    any order."""
    from smig_tui.adapters import stored_text
    from smig_tui.adapters.stored_text import PackedText, TextPacker

    monkeypatch.setattr(stored_text, "BLOCK_BYTES", BLOCK_BYTES := 1 << 20)
    block_the_spill()
    packer = TextPacker()
    texts = [f"{n} tool output ✓ 日本語 " * (300 + n * 37) for n in range(120)]
    packed = []
    for number, text in enumerate(texts):
        packed.append(PackedText.of(text, packer))
        if number % 7 == 0:  # read from the block while it fills, then more added to it
            assert packed[-1].read() == text and packed[number // 2].read() == texts[number // 2]
    assert sum(len(t.encode()) for t in texts) > 3 * BLOCK_BYTES
    assert packed[0].block.pieces is None and packed[0].block.packed  # sealed: held compressed
    assert len(packed[0].block.packed) < BLOCK_BYTES // 4
    for index in [*range(len(texts)), 5, 119, 0, 64]:
        assert packed[index].read() == texts[index] and packed[index].length == len(texts[index])
    assert packed[3].fingerprint() != packed[4].fingerprint()
    assert packed[3].fingerprint() == PackedText.of(texts[3], TextPacker()).fingerprint()


def test_a_packed_texts_head_is_unpacked_when_asked_not_held(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A packed text holds no head of its own (they were 30 MB of a dense 500 MB OpenCode session): its
    first `HEAD_CHARS` characters come from its block, whole characters however many bytes each takes,
    from a block still filling and from a sealed one."""
    from smig_tui.adapters import stored_text
    from smig_tui.adapters.stored_text import HEAD_CHARS, PackedText, TextPacker

    monkeypatch.setattr(stored_text, "BLOCK_BYTES", 1 << 20)
    block_the_spill()
    packer = TextPacker()
    alphabet = ["a", "é", "語", "😀", "\ud800", "\n"]
    texts = [
        "".join(alphabet[(n * 7 + i * i) % (1 + n % len(alphabet))] for i in range(length))
        for n, length in enumerate([1, HEAD_CHARS - 1, HEAD_CHARS, HEAD_CHARS + 1, 4 * HEAD_CHARS, 9000] * 60)
    ]
    packed = [PackedText.of(text, packer) for text in texts]
    assert packed[0].block.pieces is None and packed[-1].block.pieces is not None  # sealed ones and a filling one
    stored = getattr(PackedText, "__slots__", None) or PackedText.__mypyc_attrs__  # type: ignore[attr-defined]
    assert "head" not in stored  # the fields it keeps: its slots, or compiled (setup.py) mypyc's attributes
    assert [p.head for p in packed] == [text[:HEAD_CHARS] for text in texts]
    assert packed[-1].head == texts[-1][:HEAD_CHARS] and len(packed[-1].head) == HEAD_CHARS


def test_a_packed_texts_class_is_the_one_it_has_held_whole() -> None:
    """A held text's class of text is decided from its first `core.text_classes.HEAD_CHARS` characters,
    more than a stored head: a packed text unpacks that many for it, so packing never changes a class
    (and so never a count for a target measured per class). A text left on disk gives its head."""
    from smig_tui.adapters.stored_text import HEAD_CHARS, PackedText, TextPacker
    from smig_tui.core.models import Kind, Message, Role
    from smig_tui.core.text_classes import HEAD_CHARS as CLASS_CHARS
    from smig_tui.core.text_classes import message_class

    packer = TextPacker()
    prose, code, han = "the plan reads well ", "x = f(a[i]); ", "日本語のテキスト"
    texts = [prose * 30 + code * 60, prose * 30 + han * 60, han + prose * 200, code * 2 + prose * 400, "é" * 5000]
    packed = [PackedText.of(text, packer) for text in texts]
    assert CLASS_CHARS > HEAD_CHARS
    assert [p.class_head for p in packed] == [text[:CLASS_CHARS] for text in texts]
    for text, body in zip(texts, packed, strict=True):
        held = Message(0, "m", Role.ASSISTANT, Kind.TEXT, text)
        assert message_class(held.with_body(body)) == message_class(held)
    # the first two change class after their first HEAD_CHARS characters: a head alone would misjudge them
    assert [message_class(Message(0, "m", Role.ASSISTANT, Kind.TEXT, t[:HEAD_CHARS])) for t in texts[:2]] == [
        "prose",
        "prose",
    ]
    assert [message_class(Message(0, "m", Role.ASSISTANT, Kind.TEXT, t)) for t in texts[:2]] == ["code", "japanese"]


def _line_with(path: Path, texts: list[str], raw: bytes | None = None) -> LineText:
    """A file of one short line then one holding `texts` as a record's `content` list (or `raw`)."""
    written = json.dumps({"content": texts}, ensure_ascii=False).replace("\ud800", "\\ud800")  # a lone one escaped
    line = raw if raw is not None else written.encode()
    path.write_bytes(b'{"short": 1}\n' + line + b"\n")

    def line_texts(data: dict[str, Any]) -> list[str]:
        return [text for text in data.get("content", []) if isinstance(text, str)]

    return LineText(str(path), 13, len(line), 1, len(texts[1]), texts[1][:10], line_texts)


def test_a_huge_line_reads_back_as_a_short_one_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A line of `HUGE_LINE` bytes or more is decoded and its bytes let go before it is parsed: the same texts,
    escapes, non-ASCII and lone surrogates included, and the same verdict on a damaged or rewritten line."""
    texts = ["first", 'line one\nline "two"\t\\ café ✓ 日本語 \ud800 end ' * 50, "third"]
    short = _line_with(tmp_path / "short.jsonl", texts)
    assert short.read() == texts[1]
    monkeypatch.setattr(stored_text, "HUGE_LINE", 100)
    huge = _line_with(tmp_path / "huge.jsonl", texts)
    assert huge.read() == texts[1] and stored_text.read_texts([_message(huge)]) == [texts[1]]
    bad_utf8 = json.dumps({"content": ["a", "b" * 200]}).encode().replace(b"bbb", b"b\xffb", 1)
    assert _line_with(tmp_path / "bad.jsonl", ["a", "b" * 200], bad_utf8).read() == "b\ufffd" + "b" * 198
    damaged = _line_with(tmp_path / "damaged.jsonl", texts)
    Path(damaged.path).write_bytes(Path(damaged.path).read_bytes().replace(b'"third"', b'"third'))
    with pytest.raises(SourceChangedError):
        damaged.read()


def test_a_huge_line_read_back_holds_two_copies_of_its_text_at_most(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Traced allocations (no clock, no RSS) of reading back a text from a huge line: its bytes and its
    decoded text, then that text and what it parses to, never three at once (orjson held the bytes, a
    copy and the text: 300 MB for a 100 MB line; its own buffers are not traced, so it is not measured)."""
    monkeypatch.setattr(stored_text, "HUGE_LINE", 1 << 20)
    texts = ["a", "words and\nlines 12345 " * 400_000, "b"]
    line = _line_with(tmp_path / "big.jsonl", texts)
    tracemalloc.start()
    try:
        assert line.read() == texts[1]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert line.size > 8_000_000 and peak < 2.3 * line.size


def _message(body: LineText) -> Message:
    return Message(0, "m", Role.TOOL, Kind.TOOL_RESULT, body)
