"""The Markdown export reads stored texts back in batches and redacts them in runs: the file it writes
must be byte for byte what rendering and redacting one message at a time writes."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from smig_tui.adapters import redact_pool, stored_text, workers
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.adapters.stored_text import LineText, read_texts
from smig_tui.core import export
from smig_tui.core.errors import SourceChangedError
from smig_tui.core.export import ExportFormat
from smig_tui.core.handoff import redact_header
from smig_tui.core.memory_markdown import to_memory_markdown
from smig_tui.core.models import Agent, Kind, Message, Session, SessionInfo
from smig_tui.core.redact import redact
from smig_tui.services import build_services

sys.path.insert(0, str(Path(__file__).parents[1] / "secrets"))
from secret_corpus import secrets

OWN = Path(__file__).parents[1] / "fixtures"


def _load(agent: Agent, path: Path) -> Session:
    build_services()
    reader = CodexSource(codex_home()) if agent == Agent("codex") else ClaudeSource(claude_home())
    stat = path.stat()
    info = SessionInfo(id=path.stem, agent=agent, path=str(path), size=stat.st_size, mtime=stat.st_mtime)
    return reader.load(info, lambda _warning: None)


def _store_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file 'large' and every text 'long', so each text that can be left on disk is."""
    monkeypatch.setattr(stored_text, "FILE_BYTES", 0)
    monkeypatch.setattr(stored_text, "TEXT_CHARS", 0)


def _one_at_a_time(session: Session) -> str:
    """The Markdown export as it was written before batching: each message read, redacted and
    rendered on its own, its fence found by a regex over every tool text."""
    header = "".join(export.markdown_chunks(redact_header(session), ()))
    pieces, position = [header.removesuffix("\n")], 0
    for message in session.messages:
        if message.id in export.LEAD_IDS or message.opaque:
            continue
        position += 1
        text = redact(message.text).text
        if message.kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT):
            fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
            body = f"{fence}\n{text}\n{fence}"
            if message.full_output_path:
                body += f"\n\n_Full output: `{message.full_output_path}` (the model saw the preview above)._"
        else:
            body = text.strip() or "_(empty)_"
        pieces.append(f"\n\n{export._heading(position, message)}\n\n{body}")
    return "".join(pieces) + "\n"


def _rollout(path: Path, command: str = "env") -> None:
    """A Codex rollout whose tool outputs hold every planted secret and runs of backticks."""
    lines: list[dict[str, object]] = [
        {
            "timestamp": "2026-11-01T10:00:00.000Z",
            "type": "session_meta",
            "payload": {"id": "01a1fe68-2300-7c3d-84e5-f6a7b8c9d0e1", "cwd": "/work/x", "originator": "codex_cli_rs"},
        },
        {
            "timestamp": "2026-11-01T10:00:01.000Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "dump env"}]},
        },
    ]
    for n, planted in enumerate(secrets()):
        ticks = "`" * (n % 6)
        output = f"{ticks}run {n}{ticks}\n" + planted.text + "\n" + "log line\n" * (n % 40 + 250)  # left on disk
        lines += [
            {
                "timestamp": "2026-11-01T10:00:02.000Z",
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": f"c{n}",
                    "arguments": json.dumps({"cmd": command}),
                },
            },
            {
                "timestamp": "2026-11-01T10:00:03.000Z",
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": f"c{n}", "output": output},
            },
        ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _fixture_files(shared: Path | None) -> list[tuple[Agent, Path]]:
    files = [(Agent("codex"), p) for p in sorted((OWN / "codex_home").rglob("rollout-*.jsonl"))]
    files += [(Agent("claude"), p) for p in sorted((OWN / "claude_home" / "projects").rglob("*.jsonl"))]
    if shared is not None:
        files += [(Agent("codex"), p) for p in sorted((shared / "codex").glob("*.jsonl"))]
        files += [(Agent("claude"), p) for p in sorted((shared / "claude").glob("*.jsonl"))]
    return files


def _check_identical(monkeypatch: pytest.MonkeyPatch, files: list[tuple[Agent, Path]]) -> int:
    """Export each file held and stored; both must equal the one-at-a-time rendering. Returns stored texts."""
    services = build_services()
    expected = {path: _one_at_a_time(_load(agent, path)) for agent, path in files}
    for agent, path in files:
        assert services.export(_load(agent, path), ExportFormat.MARKDOWN) == expected[path], path
    _store_everything(monkeypatch)
    stored = 0
    for agent, path in files:
        session = _load(agent, path)
        stored += sum(isinstance(message.body, LineText) for message in session.messages)
        assert "".join(services.export_chunks(session, ExportFormat.MARKDOWN)) == expected[path], path
    return stored


def test_fixture_exports_are_byte_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _check_identical(monkeypatch, _fixture_files(None)) > 20


def test_real_fixture_exports_are_byte_identical(shared_fixtures: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _check_identical(monkeypatch, _fixture_files(shared_fixtures)) > 100


def test_generated_session_with_secrets_is_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "rollout-2026-11-01T10-00-00-01a1fe68-2300-7c3d-84e5-f6a7b8c9d0e1.jsonl"
    _rollout(path)
    monkeypatch.setattr(export, "BATCH_MESSAGES", 7)  # batches that split tool calls from their results
    assert _check_identical(monkeypatch, [(Agent("codex"), path)]) > 90
    written = build_services().export(_load(Agent("codex"), path), ExportFormat.MARKDOWN)
    assert written.count("[REDACTED:") >= 90 and "````" in written and "`````" in written


def _memory_with_every_message_redacted(session: Session) -> str:
    """The memory note as it was made before it read only what it quotes: every message and the title
    redacted first, then the note."""
    title = redact(session.info.title).text if session.info.title else None
    messages = tuple(replace(message, body=redact(message.text).text) for message in session.messages)
    return redact(to_memory_markdown(replace(session, messages=messages, info=replace(session.info, title=title)))).text


def test_memory_exports_are_what_redacting_every_message_first_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Held and left on disk, the fixtures and a session whose quoted command holds a key across the
    note's 160-character cut: the key is redacted before the cut, so no half of it reaches the note."""
    key = "sk-proj-" + "a1B2c3D4" * 6
    path = tmp_path / "rollout-2026-11-01T10-00-00-01a1fe68-2300-7c3d-84e5-f6a7b8c9d0e1.jsonl"
    _rollout(path, command="echo " + "x" * 110 + " && curl -H 'Authorization: Bearer " + key + "' https://example.com")
    files = [*_fixture_files(None), (Agent("codex"), path)]
    services = build_services()
    for store in (False, True):
        if store:
            _store_everything(monkeypatch)
        for agent, file in files:
            session = _load(agent, file)
            note = services.export(session, ExportFormat.MEMORY)
            assert note == _memory_with_every_message_redacted(_load(agent, file)), file
    assert "Authorization: Bearer [REDACTED" in note and "sk-proj-" not in note


def test_read_texts_reads_what_each_message_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    _store_everything(monkeypatch)
    for agent, path in _fixture_files(None):
        messages = _load(agent, path).messages
        assert read_texts(messages) == [message.text for message in messages], path


def test_read_texts_notices_a_rewritten_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "rollout-2026-11-01T10-00-00-01a1fe68-2300-7c3d-84e5-f6a7b8c9d0e1.jsonl"
    _rollout(path)
    _store_everything(monkeypatch)
    messages: list[Message] = list(_load(Agent("codex"), path).messages)
    path.write_text(path.read_text().replace("log line", "LOG LINE!"))
    with pytest.raises(SourceChangedError, match="rewritten"):
        read_texts(messages)
    path.unlink()
    with pytest.raises(SourceChangedError, match="Cannot read"):
        read_texts(messages)


def test_worker_processes_redact_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A big export redacts in worker processes; the file is the same as redacting here."""
    path = tmp_path / "rollout-2026-11-01T10-00-00-01a1fe68-2300-7c3d-84e5-f6a7b8c9d0e1.jsonl"
    _rollout(path)
    monkeypatch.setattr(export, "BATCH_MESSAGES", 16)
    _store_everything(monkeypatch)
    session = _load(Agent("codex"), path)
    expected = _one_at_a_time(session)
    monkeypatch.setattr(redact_pool, "PARALLEL_CHARS", 0)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    started: list[int] = []
    real = redact_pool.redacted_in_workers

    def counted(batches: Iterable[list[str]], workers: int) -> Iterator[redact_pool.Changes]:
        started.append(workers)
        return real(batches, workers)

    monkeypatch.setattr(redact_pool, "redacted_in_workers", counted)
    assert "".join(build_services().export_chunks(session, ExportFormat.MARKDOWN)) == expected
    assert started == [2]


def test_a_pool_that_cannot_start_redacts_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise OSError("no processes here")

    monkeypatch.setattr(workers, "_Process", refuse)
    batches = [["token=hunter2hunter2 and sk-" + "a" * 30, "plain"], ["nothing"]]
    assert list(redact_pool.redacted_in_workers(iter(batches), 2)) == [redact_pool.redact_changes(b) for b in batches]
