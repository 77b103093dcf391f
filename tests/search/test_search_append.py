"""A session that grows while indexed is read on from where its lines ended (issue 20: "a file that
only grew indexes only its new lines"), and gives the same index a full read would."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from search_helpers import codex_line, message_line, tool_lines, write_rollout

from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.services import Services, build_services


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths Codex's full reader is asked to read, in order."""
    seen: list[str] = []
    full_load = CodexSource._load

    def counting(self: CodexSource, info, warn, keep_compacted):  # type: ignore[no-untyped-def]
        seen.append(info.path)
        return full_load(self, info, warn, keep_compacted)

    monkeypatch.setattr(CodexSource, "_load", counting)
    return seen


def indexed_rows(services: Services) -> list[tuple[object, ...]]:
    """What the index holds per message, ids of its own tables left out."""
    with sqlite3.connect(services.search_index.db_path) as conn:
        return conn.execute(
            "SELECT f.session_id, m.position, m.message_id, m.role, m.kind, m.tier, m.timestamp, t.length"
            " FROM messages m JOIN texts t ON t.id = m.text JOIN files f ON f.id = m.file ORDER BY f.session_id, m.position"
        ).fetchall()


def fresh_build(services: Services, tmp_path: Path) -> list[tuple[object, ...]]:
    """The index a first refresh builds from the same files, in another smig home."""
    shutil.rmtree(services.search_index.folder)
    again = build_services()
    again.refresh_search_index()
    return indexed_rows(again)


def test_a_grown_rollout_is_read_on_not_again(
    isolated_homes: dict[str, Path], loads: list[str], tmp_path: Path
) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "Plan the parser rewrite"), ("assistant", "Sure.")])
    services = build_services()
    assert services.refresh_search_index().added == 1 and len(loads) == 1
    with path.open("a", encoding="utf-8") as handle:
        handle.write(message_line("user", "now the tokenizer overhaul", "2026-11-30T10:01:00.000Z"))
        handle.write(tool_lines("grep -rn tokenizer src", "src/lex.py: tokenizer = Lexer()", "call_9"))
        handle.write(codex_line("event_msg", {"type": "token_count", "info": None}, "2026-11-30T10:01:03.000Z"))
    report = services.refresh_search_index()
    assert (report.grown, report.reindexed, report.messages) == (1, 0, 3)
    assert len(loads) == 1  # only the new lines were read
    assert len(services.search("parser")) == 1  # the old hits are kept
    assert {hit.kind for hit in services.search("tokenizer")} == {"text", "tool_call", "tool_result"}
    with path.open("a", encoding="utf-8") as handle:  # and on again from there
        handle.write(message_line("assistant", "Tokenizer overhaul done.", "2026-11-30T10:02:00.000Z"))
    assert services.refresh_search_index().messages == 1 and len(loads) == 1
    grown_rows = indexed_rows(services)
    assert [row[2] for row in grown_rows] == ["L2", "L3", "L4", "L5", "L6", "L8"]
    assert grown_rows == fresh_build(services, tmp_path)


def test_a_line_still_being_written_is_indexed_once_complete(isolated_homes: dict[str, Path], loads: list[str]) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "first words")])
    services = build_services()
    services.refresh_search_index()
    line = message_line("assistant", "a kingfisher reply")
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line[:30])
    assert services.refresh_search_index().messages == 0
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line[30:])
    report = services.refresh_search_index()
    assert (report.grown, report.messages, len(loads)) == (1, 1, 1)
    assert [hit.message_id for hit in services.search("kingfisher")] == ["L3"]


def test_a_rewritten_rollout_is_indexed_again_in_full(isolated_homes: dict[str, Path], loads: list[str]) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "Plan the parser rewrite"), ("assistant", "Sure.")])
    services = build_services()
    services.refresh_search_index()
    text = path.read_text(encoding="utf-8").replace("parser", "lexer!") + message_line("user", "more")
    path.write_text(text, encoding="utf-8")  # longer, but not the same bytes before the old end
    report = services.refresh_search_index()
    assert (report.grown, report.reindexed, len(loads)) == (0, 1, 2)
    assert services.search("parser") == [] and len(services.search("lexer")) == 1


def test_a_compaction_in_the_new_lines_means_a_full_read(
    isolated_homes: dict[str, Path], loads: list[str], tmp_path: Path
) -> None:
    path = write_rollout(isolated_homes["codex"], [("user", "Plan the parser rewrite"), ("assistant", "Sure.")])
    services = build_services()
    services.refresh_search_index()
    history = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "compacted plan"}]}]
    with path.open("a", encoding="utf-8") as handle:
        handle.write(
            codex_line("compacted", {"message": "", "replacement_history": history}, "2026-11-30T10:05:00.000Z")
        )
        handle.write(message_line("assistant", "continuing after the compaction", "2026-11-30T10:05:01.000Z"))
    services.refresh_search_index()
    assert len(loads) == 2  # the history before the new lines changed: read whole
    [before] = services.search("parser")  # compacted away, still in the file: found, and marked
    assert before.compacted and len(services.search("compacted plan")) == 1
    assert not services.search("compacted plan")[0].compacted
    assert indexed_rows(services) == fresh_build(services, tmp_path)
