"""A big session's reader leaves its long tool outputs on disk (Qwen Code, Pi, Copilot CLI) or packs
them (OpenCode) as it reads (issue 35: peak RSS of a 500 MB session of those was 770 MB to 1.16 GB):
the session it loads must be the one the whole read gives, field for field, on the recorded
sessions, generated ones and odd ones (damaged lines, merged fragments, images, results that are
not text), and must hold less. Every file is made to count as big and every output as long."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from crush_builders import fixture_home as crush_fixture_home
from crush_builders import generated_home as crush_generated_home

from smig_devtools.copilot_corpus import generate_copilot
from smig_devtools.corpus import SessionEntry
from smig_devtools.opencode_corpus import generate as generate_opencode
from smig_devtools.pi_corpus import generate_pi
from smig_devtools.qwen_corpus import generate_qwen
from smig_tui.adapters import stored_text
from smig_tui.adapters.agents import content_parts, file_sessions
from smig_tui.adapters.agents.copilot import events as copilot_events
from smig_tui.adapters.agents.crush.source import CrushSource
from smig_tui.adapters.agents.opencode.convert import Row, facts_of, to_conversation
from smig_tui.adapters.agents.opencode.home import resolve_home
from smig_tui.adapters.agents.opencode.source import OpenCodeSource
from smig_tui.adapters.agents.pi import records as pi_records
from smig_tui.adapters.agents.qwen import records as qwen_records
from smig_tui.adapters.stored_text import LineText, PackedText
from smig_tui.core.models import Kind, Message
from smig_tui.core.text_classes import message_class

REAL = Path(__file__).parents[1] / "fixtures" / "real"
READERS: dict[str, ModuleType] = {"qwen": qwen_records, "pi": pi_records, "copilot": copilot_events}
GENERATORS: dict[str, Callable[[Path, list[SessionEntry]], int]] = {
    "qwen": generate_qwen,
    "pi": generate_pi,
    "copilot": generate_copilot,
}


def _fields(messages: list[Message]) -> list[tuple[object, ...]]:
    return [
        (m.index, m.id, m.role, m.kind, m.text, m.tool_name, m.call_id, m.timestamp, m.line, m.usage, m.is_error)
        + (m.injected, m.opaque, m.head(stored_text.HEAD_CHARS))  # a packed text's head is read from its block
        + (message_class(m),)  # and its class of text is the held text's
        for m in messages
    ]


def _big(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file counts as big and every output as long."""
    monkeypatch.setattr(file_sessions, "FILE_BYTES", 0)
    monkeypatch.setattr(stored_text, "FILE_BYTES", 0)
    for module in (content_parts, stored_text):
        monkeypatch.setattr(module, "TEXT_CHARS", 10)
    monkeypatch.setattr(stored_text, "SHORT_CHARS", 10)


def _generated(agent: str, folder: Path, size: int = 300_000) -> Path:
    entry = SessionEntry(agent=agent, kind="main", id="", path="", cwd="/home/user/gen", size=size)
    GENERATORS[agent](folder, [entry])
    return max((p for p in folder.rglob("*.jsonl")), key=lambda p: p.stat().st_size)


def _odd(agent: str, generated: Path, folder: Path) -> Path:
    """The generated session with a damaged line in its middle, agent-specific odd records, and a
    last line cut off."""
    lines = generated.read_bytes().splitlines(keepends=True)
    odd: list[dict[str, Any]] = []
    if agent == "pi":
        last = json.loads(lines[-1])
        base = {"type": "message", "timestamp": "2026-11-01T10:00:00.000Z"}
        parent = last["id"]
        for number, content in enumerate(
            (
                [{"type": "text", "text": "a" * 50}, {"type": "image", "mimeType": "image/png", "data": "x"}],
                [{"type": "text", "text": "b" * 30}, {"type": "text", "text": "c" * 40}],
                "a string result " * 5,
            )
        ):
            entry_id = f"odd{number}"
            message = {"role": "toolResult", "toolCallId": f"c{number}", "toolName": "bash", "content": content}
            odd.append({**base, "id": entry_id, "parentId": parent, "message": message})
            parent = entry_id
    elif agent == "copilot":
        base = {"type": "tool.execution_complete", "timestamp": "2026-11-01T10:00:00.000Z"}
        odd.append({**base, "id": "o1", "data": {"toolCallId": "x1", "result": {"content": {"not": "text"} | {}}}})
        long = "d" * 40
        odd.append(
            {**base, "id": "o2", "data": {"toolCallId": "x2", "result": {"content": long, "detailedContent": long}}}
        )
        odd.append({**base, "id": "o3", "data": {"toolCallId": "x3", "success": False, "error": {"message": "e" * 40}}})
    else:  # Qwen Code: a record written in two fragments (their parts are joined), the second a result
        last = json.loads(lines[-1])
        base = {key: last[key] for key in ("sessionId", "cwd", "version", "timestamp")}
        call = {"functionCall": {"id": "frag", "name": "run_shell_command", "args": {"command": "ls"}}}
        result = {"functionResponse": {"id": "frag", "name": "run_shell_command", "response": {"output": "f" * 60}}}
        first = {**base, "uuid": "frag-1", "parentUuid": last["uuid"], "type": "assistant"}
        odd.append({**first, "message": {"role": "model", "parts": [call]}})
        odd.append({**first, "message": {"role": "model", "parts": [{"text": "and " * 20}]}})
        odd.append(
            {**base, "uuid": "frag-2", "parentUuid": "frag-1", "type": "tool_result"}
            | {"message": {"role": "user", "parts": [result]}}
        )
    middle = len(lines) // 2
    body = lines[:middle] + [b'{"type": "damaged\n'] + lines[middle:]
    body += [json.dumps(record).encode() + b"\n" for record in odd]
    body.append(lines[-1][: len(lines[-1]) // 2])  # a last line half written
    path = folder / generated.relative_to(generated.parents[2]).with_name("odd-" + generated.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(body))
    return path


def _cases(agent: str, tmp_path: Path) -> list[Path]:
    recorded = sorted((REAL / agent).rglob("*.jsonl"))
    generated = _generated(agent, tmp_path / "gen")
    return [*recorded, generated, _odd(agent, generated, tmp_path / "odd")]


@pytest.mark.parametrize("agent", sorted(READERS))
def test_a_read_leaving_outputs_on_disk_loads_the_session_the_whole_read_does(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader = READERS[agent]
    cases = _cases(agent, tmp_path)
    wholes = [(reader.read_session(path), path) for path in cases]
    _big(monkeypatch)
    packed_somewhere = False
    for whole, path in wholes:
        packed = reader.read_session(path, pack=True)
        assert packed.damaged == whole.damaged, path
        converted, expected = reader.conversation(packed), reader.conversation(whole)
        assert _fields(converted.messages) == _fields(expected.messages), path
        assert (converted.model, converted.context_tokens) == (expected.model, expected.context_tokens), path
        assert all(isinstance(m.body, str) for m in expected.messages)
        packed_somewhere |= any(isinstance(m.body, LineText) for m in converted.messages)
    assert packed_somewhere


@pytest.mark.parametrize("agent", sorted(READERS))
def test_without_pack_or_in_a_small_file_nothing_is_left_on_disk(agent: str, tmp_path: Path) -> None:
    reader = READERS[agent]
    path = _generated(agent, tmp_path / "gen")
    for session in (reader.read_session(path), reader.read_session(path, pack=True)):
        assert all(isinstance(m.body, str) for m in reader.conversation(session).messages)


@pytest.mark.parametrize("agent", sorted(READERS))
def test_a_read_leaving_outputs_on_disk_holds_a_fraction_of_what_the_whole_read_holds(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Traced allocations (no clock, no RSS): the peak of reading and converting a generated 4 MB
    session, outputs left on disk against whole (Copilot CLI's events kept lean besides: the types and
    `data` keys `conversation` reads, calls' arguments as their text: 0.39 -> 0.26 of the whole)."""
    reader = READERS[agent]
    path = _generated(agent, tmp_path / "gen", size=4_000_000)
    monkeypatch.setattr(file_sessions, "LINE_BUFFER", 8192)  # a quarter of this file; nothing of a big one

    def peak(pack: bool) -> int:
        tracemalloc.start()
        try:
            reader.conversation(reader.read_session(path, pack=pack))
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    whole = peak(False)
    monkeypatch.setattr(file_sessions, "FILE_BYTES", 0)
    packed = peak(True)
    assert whole > path.stat().st_size  # the whole read holds more than the file
    assert packed < (0.33 if agent == "copilot" else 0.5) * whole


def _opencode_sessions(database: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Message]]]:
    monkeypatch.setenv("OPENCODE_DB", str(database))
    source = OpenCodeSource(resolve_home())
    return [(info.id, list(source.load(info, lambda _w: None).messages)) for info in source.discover(lambda _w: None)]


def _whole_read(database: Path, session_id: str) -> list[Message]:
    """The conversation from every message and part read first, as the reader did before it took each
    message's parts as the conversion reached it."""
    connection = sqlite3.connect(database)
    revert = connection.execute("SELECT revert FROM session WHERE id = ?", (session_id,)).fetchone()[0]
    messages = connection.execute(
        "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", (session_id,)
    ).fetchall()
    parts: dict[str, list[dict[str, Any]]] = {}
    for part_id, message_id, data in connection.execute(
        "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id", (session_id,)
    ):
        with contextlib.suppress(ValueError):
            if isinstance(part := json.loads(data), dict):
                parts.setdefault(message_id, []).append({**part, "id": part_id})
    rows = []
    for message_id, data in messages:
        with contextlib.suppress(ValueError):
            if isinstance(info := json.loads(data), dict):
                rows.append(Row(facts_of(info, message_id), tuple(parts.get(message_id, ()))))
    connection.close()
    return list(to_conversation(rows, json.loads(revert) if revert else None).messages)


def _odd_database(path: Path) -> Path:
    """A generated database, then: a damaged part and a damaged message, parts written out of id order,
    a message without parts, and a session reverted to one of its messages."""
    generate_opencode(path, 6)
    connection = sqlite3.connect(path)
    sessions = [row[0] for row in connection.execute("SELECT id FROM session ORDER BY id")]
    first, second = sessions[0], sessions[1]
    message = connection.execute(
        "SELECT id, time_created FROM message WHERE session_id = ? LIMIT 1", (first,)
    ).fetchone()
    connection.execute(
        "INSERT INTO part VALUES ('prt_zzz_damaged', ?, ?, ?, ?, '{\"type\": \"te')", (message[0], first, 1, 1)
    )
    connection.execute(
        "INSERT INTO part VALUES ('prt_000_early', ?, ?, ?, ?, ?)",
        (message[0], first, 1, 1, json.dumps({"type": "text", "text": "written first, sorted first"})),
    )
    connection.execute(
        "INSERT INTO message VALUES ('msg_zzz_damaged', ?, ?, ?, '{not json')", (first, message[1] + 1, message[1] + 1)
    )
    connection.execute(
        "INSERT INTO message VALUES ('msg_zzz_empty', ?, ?, ?, ?)",
        (first, message[1] + 2, message[1] + 2, json.dumps({"role": "assistant", "tokens": {"input": 5}})),
    )
    middle = connection.execute(
        "SELECT id FROM message WHERE session_id = ? ORDER BY time_created, id LIMIT 1 OFFSET 3", (second,)
    ).fetchone()
    connection.execute("UPDATE session SET revert = ? WHERE id = ?", (json.dumps({"messageID": middle[0]}), second))
    connection.commit()
    connection.close()
    return path


def test_an_opencode_session_read_a_message_at_a_time_is_the_one_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = tmp_path / "recorded.db"
    connection = sqlite3.connect(recorded)
    connection.executescript((REAL / "opencode" / "compacted.sql").read_text(encoding="utf-8"))
    connection.commit()
    connection.close()
    generated = tmp_path / "generated.db"
    generate_opencode(generated, 12)
    odd = _odd_database(tmp_path / "odd.db")
    packed_somewhere = False
    for database in (recorded, generated, odd):
        whole = _opencode_sessions(database, monkeypatch)
        assert whole and [(sid, _fields(messages)) for sid, messages in whole] == [
            (sid, _fields(_whole_read(database, sid))) for sid, _ in whole
        ]
        with monkeypatch.context() as patch:
            _big(patch)
            packed = _opencode_sessions(database, patch)
        assert [(sid, _fields(messages)) for sid, messages in packed] == [
            (sid, _fields(messages)) for sid, messages in whole
        ]
        assert all(isinstance(m.body, str) for _, messages in whole for m in messages)
        packed_somewhere |= any(isinstance(m.body, PackedText) for _, messages in packed for m in messages)
    assert packed_somewhere


def test_an_opencode_session_in_a_big_database_packs_from_its_first_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which session is big is known only once its parts are read: in a database of `FILE_BYTES` or more,
    long outputs are packed from the first one (from 64 MB read on, the first 64 MB's were held whole),
    and the session is the one read whole; in a smaller database nothing is packed."""
    database = tmp_path / "generated.db"
    generate_opencode(database, 12)
    whole = _opencode_sessions(database, monkeypatch)
    monkeypatch.setattr(stored_text, "TEXT_CHARS", 10)
    monkeypatch.setattr(stored_text, "FILE_BYTES", database.stat().st_size + 1)
    assert _opencode_sessions(database, monkeypatch) == whole
    monkeypatch.setattr(stored_text, "FILE_BYTES", database.stat().st_size)
    packed = _opencode_sessions(database, monkeypatch)
    assert [(sid, _fields(messages)) for sid, messages in packed] == [(sid, _fields(ms)) for sid, ms in whole]
    for _, messages in packed:
        first = next(m for m in messages if m.kind is Kind.TOOL_RESULT and m.text_length > 10)
        assert isinstance(first.body, PackedText)


def test_a_big_opencode_session_packs_its_short_texts_too_and_holds_less(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a big database every text longer than `SHORT_CHARS` is packed, replies and reasoning as well as
    outputs (a dense 500 MB session's held as strings were 130 MB, most past Latin-1 at two bytes a
    character), in message order (so reading them in order unpacks each block once); shorter ones stay
    strings. The session is the one read whole, classes of text included, and holds less."""
    database = tmp_path / "generated.db"
    generate_opencode(database, 12)
    with monkeypatch.context() as small:
        small.setattr(stored_text, "FILE_BYTES", database.stat().st_size + 1)
        tracemalloc.start()
        whole = _opencode_sessions(database, small)
        held_whole = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    monkeypatch.setattr(stored_text, "FILE_BYTES", database.stat().st_size)
    monkeypatch.setattr(stored_text, "SPILL_BATCH", 1 << 14)  # what waits to be written, at scale
    tracemalloc.start()
    packed = _opencode_sessions(database, monkeypatch)
    held_packed = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert [(sid, _fields(messages)) for sid, messages in packed] == [(sid, _fields(ms)) for sid, ms in whole]
    kinds = set()
    blocks: list[object] = []
    for _, messages in packed:
        at = -1
        for message in messages:
            body = message.body
            long = message.text_length > stored_text.SHORT_CHARS
            assert isinstance(body, PackedText) == long, (message.kind, message.text_length)
            if isinstance(body, PackedText):
                kinds.add(message.kind)
                if not blocks or body.block is not blocks[-1]:
                    assert body.block not in blocks  # never back to an earlier block
                    blocks.append(body.block)
                    at = -1
                assert body.start > at  # and forward within one
                at = body.start
    assert {Kind.TEXT, Kind.REASONING, Kind.TOOL_RESULT} <= kinds
    assert held_packed < 0.8 * held_whole, (held_packed, held_whole)


def test_an_opencode_read_holds_each_message_as_the_facts_it_converts(tmp_path: Path) -> None:
    """Every message's `info` is held until the last one is converted: as its facts (`MessageFacts`), a
    seventh of the parsed JSON's traced size (which was 155 MB for 85,000 messages of a 500 MB session)."""
    database = tmp_path / "generated.db"
    generate_opencode(database, 40)
    connection = sqlite3.connect(database)
    rows = connection.execute("SELECT id, data FROM message").fetchall()
    connection.close()

    def held(make: Callable[[str, str], object]) -> int:
        tracemalloc.start()
        try:
            kept = [make(message_id, data) for message_id, data in rows]
            assert len(kept) == len(rows)
            return tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()

    parsed = held(lambda message_id, data: {**json.loads(data), "id": message_id})
    facts = held(lambda message_id, data: facts_of(json.loads(data), message_id))
    assert len(rows) > 500 and facts < 0.3 * parsed, (facts, parsed)


def _crush_sessions(env: dict[str, str]) -> list[tuple[str, list[tuple[object, ...]], list[str]]]:
    warnings: list[Any] = []
    source = CrushSource(env, listing_cache=None)
    loaded = [source.load(info, warnings.append) for info in source.discover(warnings.append)]
    return [(s.info.id, _fields(list(s.messages)), [w.message for w in s.warnings]) for s in loaded]


@pytest.mark.parametrize("make_home", [crush_fixture_home, crush_generated_home], ids=["fixtures", "generated"])
def test_a_crush_session_read_lean_is_the_one_read_whole(
    make_home: Callable[[Path], dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a database of `FILE_BYTES` or more each row's parts are kept as the conversion reads them, long
    tool results packed and the row's text let go as it is parsed (a 500 MB session took 1.3 GB): the
    messages, warnings and order are the whole read's."""
    env = make_home(tmp_path)
    whole = _crush_sessions(env)
    monkeypatch.setattr(stored_text, "FILE_BYTES", 0)
    monkeypatch.setattr(stored_text, "TEXT_CHARS", 10)
    lean = _crush_sessions(env)
    assert len(whole) >= 3 and lean == whole
    source = CrushSource(env, listing_cache=None)
    packed = [m for info in source.discover(lambda _w: None) for m in source.load(info, lambda _w: None).messages]
    assert any(isinstance(m.body, PackedText) for m in packed)
