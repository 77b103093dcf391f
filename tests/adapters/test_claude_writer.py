from __future__ import annotations

import hashlib
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session

from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.writer import ClaudeWriter, project_dir, sanitize_project
from smig_tui.core.errors import WriteRefusedError
from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent, Role
from smig_tui.core.native import Destination, Lineage, Turn
from smig_tui.core.plans import result_messages
from smig_tui.services import build_services

LINEAGE = Lineage("codex", "src-1", "/src.jsonl", "0" * 32, 3, "truncate")


def _lines(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    ("cwd", "folder"),
    [
        ("/home/me/my_proj", "-home-me-my-proj"),
        ("C:\\src", "C--src"),
        ("/a.b/c d", "-a-b-c-d"),
    ],
)
def test_sanitizer_matches_claude(cwd: str, folder: str) -> None:
    assert sanitize_project(cwd) == folder


def test_long_cwd_gets_claudes_hash_suffix() -> None:
    # Observed: Claude Code 2.1.197 named this cwd's folder `<first 200 chars>-bg5uzw`.
    cwd = "/tmp/lp8iuviok4/" + "a" * 120 + "/" + "b" * 120
    made = project_dir(claude_home(), cwd)
    assert made.name == sanitize_project(cwd)[:200] + "-bg5uzw"


def test_long_cwd_reuses_the_folder_claude_made() -> None:
    cwd = "/" + "x" * 250
    made = project_dir(claude_home(), cwd)
    assert made.name.startswith("-" + "x" * 199 + "-") and len(made.name) > 201
    existing = claude_home().projects / ("-" + "x" * 199 + "-claudehash")
    existing.mkdir(parents=True)
    assert project_dir(claude_home(), cwd) == existing


def test_transcript_shape() -> None:
    turns = (
        Turn(Role.USER, "hello", "2026-01-02T10:00:00.000Z"),
        Turn(Role.ASSISTANT, "hi", None),
        Turn(Role.USER, "bye", "2026-01-02T09:00:00.000Z"),
    )
    planned = ClaudeWriter(claude_home()).prepare(
        turns, "/work/proj", LINEAGE, "↪ from codex: hello", git_branch="main", now=datetime(2026, 1, 3, tzinfo=UTC)
    )
    records = [json.loads(line) for line in planned.data.splitlines()]
    first, *rest = records
    assert first["type"] == "user" and first["cwd"] == "/work/proj" and first["parentUuid"] is None
    assert first["smigLineage"]["migrationId"] == "0" * 32
    chain = records[:-1]
    for earlier, later in zip(chain, chain[1:], strict=False):
        assert later["parentUuid"] == earlier["uuid"]
        assert later["timestamp"] > earlier["timestamp"]  # out-of-order source time repaired
    assert [r["type"] for r in chain] == ["user", "assistant", "user"]
    assert {r["sessionId"] for r in records} == {planned.native.session_id}
    assert all(r["gitBranch"] == "main" and r["version"] for r in chain)
    assert chain[1]["message"]["content"] == [{"type": "text", "text": "hi"}]
    assert records[-1] == {
        "type": "custom-title",
        "customTitle": "↪ from codex: hello",
        "sessionId": planned.native.session_id,
    }
    assert planned.path.endswith(f"/projects/-work-proj/{planned.native.session_id}.jsonl")
    assert planned.native.resume_command == f"cd /work/proj && claude --resume {planned.native.session_id}"


def test_first_record_is_always_a_user_record() -> None:
    turns = (Turn(Role.ASSISTANT, "an answer first", None),)
    planned = ClaudeWriter(claude_home()).prepare(turns, "/work/proj", LINEAGE, "t")
    first, second, _title = [json.loads(line) for line in planned.data.splitlines()]
    assert first["type"] == "user" and first["message"]["content"].startswith(NOTE_PREFIX)
    assert second["type"] == "assistant" and second["parentUuid"] == first["uuid"]


def test_migrate_writes_resumable_transcript_and_leaves_source_alone(tmp_path: Path) -> None:
    services = build_services()
    session = make_session(tmp_path / "src")
    source_hash = hashlib.sha256(Path(session.info.path).read_bytes()).hexdigest()
    plan = make_plan(session, keep_last=5)
    result = services.migrate(session, plan, {Destination("claude")})
    [output] = result.outputs
    records = _lines(output.path)
    conversation = [r for r in records if r["type"] in ("user", "assistant")]
    kinds = [r["type"] for r in conversation]
    assert kinds == ["user", "assistant", "user", "assistant"]  # strictly alternating
    blocks = [b for r in conversation if isinstance(r["message"]["content"], list) for b in r["message"]["content"]]
    assert {b["type"] for b in blocks} == {"text"}  # no tool_use, no thinking
    opening = conversation[0]["message"]["content"]
    assert opening.startswith(NOTE_PREFIX) and "codex session" in opening and result.migration_id in opening
    assert "6 earlier messages (60 tokens) were left out" in opening  # the same figures as the placeholder
    assert "[smig: 6 earlier messages omitted (60 tokens)" in opening  # the placeholder leads the history
    assert "[tool call: Edit]" in conversation[1]["message"]["content"][0]["text"]
    last_time = datetime.fromisoformat(conversation[-1]["timestamp"].replace("Z", "+00:00"))
    assert last_time.year == 2026 and last_time.month == 1  # the records keep the source's own times
    assert os.stat(output.path).st_mtime >= time.time() - 600  # the file is dated now: `claude -c` picks it
    assert hashlib.sha256(Path(session.info.path).read_bytes()).hexdigest() == source_hash
    stored = services.store.get(result.migration_id)
    assert stored.outputs == result.outputs and stored.source.sha256 == source_hash


def test_round_trip_through_our_claude_reader(tmp_path: Path) -> None:
    services = build_services()
    session = make_session(tmp_path / "src", agent=Agent("codex"))
    result = services.migrate(session, make_plan(session), {Destination("claude")})
    [output] = result.outputs
    [info] = [i for i in services.list_sessions(agent=Agent("claude")) if i.id == output.session_id]
    assert info.cwd == "/work/proj" and info.title == "↪ from codex: Fix the flaky parser"
    back = services.load_session(info)
    written = [(t.role, t.text) for t in _expected_turns(session, result.migration_id)]
    assert [(m.role, m.text) for m in back.messages] == written


def _expected_turns(session, migration_id):  # type: ignore[no-untyped-def]
    from smig_tui.core.handoff import migration_note, to_turns

    plan = make_plan(session)
    lineage = Lineage(session.info.agent.value, session.id, session.info.path, migration_id, 0, "as-is")
    return to_turns(result_messages(plan), note=migration_note(lineage))


def test_existing_file_refuses_the_whole_commit(tmp_path: Path) -> None:
    services = build_services()
    session = make_session(tmp_path / "src")
    theirs = tmp_path / "handoff.md"
    theirs.write_text("someone else's notes\n")
    with pytest.raises(WriteRefusedError, match="--force"):
        services.migrate(session, make_plan(session), {Destination("claude"), Destination.MARKDOWN}, out=theirs)
    assert theirs.read_text() == "someone else's notes\n"
    assert not claude_home().projects.exists()  # nothing half-written
    assert services.store.list() == []


def test_existing_transcript_path_is_never_overwritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    services = build_services()
    session = make_session(tmp_path / "src")
    fixed = "5222442d-6755-4f37-9d4f-9b508f790a9e"
    monkeypatch.setattr("smig_tui.adapters.agents.claude.writer.uuid.uuid4", lambda: fixed)
    target = claude_home().projects / "-work-proj" / f"{fixed}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text("a real Claude transcript\n")
    with pytest.raises(WriteRefusedError):
        services.migrate(session, make_plan(session), {Destination("claude")})
    assert target.read_text() == "a real Claude transcript\n"
    assert services.store.list() == []
