"""The OpenCode reader on the recorded real database, and on locked, busy and damaged ones."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from opencode_builders import (
    RECORDED_CWD,
    SESSION_ID,
    add_child_session,
    install_database,
    recorded_request,
    request_history,
)

from smig_tui.adapters.agents.opencode.home import resolve_home, session_ref
from smig_tui.adapters.agents.opencode.source import OpenCodeSource
from smig_tui.adapters.agents.opencode.storage_tree import load_stored_rows
from smig_tui.core.models import Agent, Kind, Message, ReadWarning, Role, SessionInfo
from smig_tui.services import build_services


@pytest.fixture
def data_dir(isolated_homes: dict[str, Path]) -> Path:
    """OpenCode's data folder in the temp home, holding the recorded database."""
    folder = isolated_homes["home"] / ".local" / "share" / "opencode"
    install_database(folder)
    return folder


def _source(timeout: float = 2.0) -> OpenCodeSource:
    return OpenCodeSource(resolve_home(), timeout=timeout)


def _sent(messages: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """The Anthropic request's history as (role, kind, content) in order."""
    return request_history(messages)


def _read(messages: tuple[Message, ...]) -> list[tuple[str, str, Any]]:
    """smig's messages in the same terms."""
    out: list[tuple[str, str, Any]] = []
    for message in messages:
        content: Any = json.loads(message.text) if message.kind is Kind.TOOL_CALL else message.text
        out.append((message.role.value, message.kind.value, content))
    return out


def test_lists_the_recorded_session_with_what_opencode_recorded(data_dir: Path) -> None:
    before = {path.name: path.read_bytes() for path in data_dir.iterdir()}
    warnings: list[ReadWarning] = []
    [info] = list(_source().discover(warnings.append))
    assert warnings == []
    assert info.id == SESSION_ID and info.agent == Agent("opencode")
    assert info.cwd == RECORDED_CWD
    assert info.model == "claude-sonnet-4-5"
    assert info.source_version == "1.18.33"
    assert info.title == "OK"
    assert info.path == session_ref(data_dir / "opencode.db", SESSION_ID)
    assert info.created is not None and info.updated is not None and info.created < info.updated
    session = _source().load(info, warnings.append)
    assert info.message_count == len(session.messages)
    assert info.context_tokens == session.measured_context_tokens == 190  # the last call's logged input
    assert {path.name: path.read_bytes() for path in data_dir.iterdir()} == before  # nothing created or changed


def test_loads_the_history_opencode_sent_the_model_on_resume(data_dir: Path) -> None:
    source = _source()
    [info] = list(source.discover(lambda _: None))
    session = source.load(info, lambda _: None)
    read = _read(session.messages)
    sent = _sent(recorded_request())
    # The request resumed the session for its second turn: everything before that turn's reply.
    assert read[: len(sent)] == sent
    assert read[len(sent) :] == [("assistant", "text", read[-1][2])]
    assert "你好" in read[-1][2]
    calls = [m for m in session.messages if m.kind is Kind.TOOL_CALL]
    results = [m for m in session.messages if m.kind is Kind.TOOL_RESULT]
    assert [m.tool_name for m in calls] == ["bash", "bash", "bash"]
    assert [m.call_id for m in calls] == [m.call_id for m in results]
    assert [m.index for m in session.messages] == list(range(len(session.messages)))


def test_keeps_the_token_figures_opencode_logged_per_model_call(data_dir: Path) -> None:
    source = _source()
    session = source.load(next(source.discover(lambda _: None)), lambda _: None)
    logged = (
        sqlite3.connect(data_dir / "opencode.db")
        .execute("SELECT data FROM part WHERE session_id = ? ORDER BY id", (SESSION_ID,))
        .fetchall()
    )
    steps = [json.loads(row[0])["tokens"] for row in logged if json.loads(row[0])["type"] == "step-finish"]
    usages = [m.usage for m in session.messages if m.usage is not None]
    assert [u.input_tokens for u in usages] == [step["input"] for step in steps]
    assert [u.output_tokens for u in usages] == [step["output"] for step in steps]
    assert all(m.role is Role.ASSISTANT for m in session.messages if m.usage is not None)
    assert session.measured_context_tokens == steps[-1]["input"] + steps[-1]["cache"]["read"]


def test_sub_sessions_are_hidden_from_the_list_but_found_by_id(data_dir: Path) -> None:
    child = "ses_dc3e7207effdChildSession01"
    add_child_session(data_dir / "opencode.db", child)
    services = build_services()
    listed = [info.id for info in services.list_sessions(agent=Agent("opencode"))]
    assert listed == [SESSION_ID]
    every = {info.id: info for info in services.list_sessions(agent=Agent("opencode"), include_subagents=True)}
    assert every[child].parent_id == SESSION_ID and every[child].is_subagent
    found = services.find_session(child)
    loaded = services.load_session(found)
    assert loaded.info.id == child and loaded.messages == ()  # the copy has a session row, no messages


def test_reading_never_waits_for_a_writer_and_never_writes(data_dir: Path) -> None:
    database = data_dir / "opencode.db"
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # OpenCode mid-write: a write transaction held open
    writer.execute("UPDATE session SET title = 'being renamed' WHERE id = ?", (SESSION_ID,))
    before = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in data_dir.iterdir()}
    try:
        source = _source(timeout=0.05)  # would fail at once, not wait, if the read needed the lock
        warnings: list[ReadWarning] = []
        [info] = list(source.discover(warnings.append))
        session = source.load(info, warnings.append)
        after = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in data_dir.iterdir()}
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert warnings == []
    assert info.title == "OK"  # the last committed state, not the open transaction's
    assert len(session.messages) == 11
    assert after == before  # no byte written: no checkpoint, no journal, nothing new beside it


def test_a_locked_database_is_one_warning_and_other_agents_still_list(
    isolated_homes: dict[str, Path], fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("smig_tui.adapters.agents.opencode.database.BUSY_TIMEOUT", 0.01)
    folder = isolated_homes["home"] / ".local" / "share" / "opencode"
    database = install_database(folder, wal=False)  # a rollback-journal database can lock out readers
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        warnings: list[ReadWarning] = []
        assert list(_source(timeout=0.01).discover(warnings.append)) == []
        services = build_services()
        others = services.list_sessions()
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert len(warnings) == 1
    assert warnings[0].path == str(database) and "locked" in warnings[0].message
    assert {info.agent for info in others} == {Agent("codex"), Agent("claude")}


@pytest.mark.parametrize("damage", ["garbage", "cut"])
def test_a_damaged_database_is_one_warning(data_dir: Path, damage: str) -> None:
    database = data_dir / "opencode.db"
    for extra in ("opencode.db-wal", "opencode.db-shm"):
        (data_dir / extra).unlink(missing_ok=True)
    if damage == "garbage":
        database.write_bytes(b"this is not a database at all\n" * 100)
    else:
        data = database.read_bytes()
        database.write_bytes(data[: len(data) // 3])
    warnings: list[ReadWarning] = []
    listed = list(_source().discover(warnings.append))
    assert len(warnings) == 1 and warnings[0].path == str(database)
    assert "OpenCode database" in warnings[0].message and len(listed) <= 1


def test_a_session_gone_from_the_database_is_a_clear_error(data_dir: Path) -> None:
    from smig_tui.core.errors import SessionReadError

    info = SessionInfo(id="ses_gone", agent=Agent("opencode"), path=session_ref(data_dir / "opencode.db", "ses_gone"))
    with pytest.raises(SessionReadError, match="no longer in"):
        _source().load(info, lambda _: None)


def test_the_legacy_json_tree_reads_like_the_database(isolated_homes: dict[str, Path], data_dir: Path) -> None:
    """An old install's storage/ tree, laid out from the recorded rows, gives the same conversation."""
    database = data_dir / "opencode.db"
    rows = sqlite3.connect(database)
    session = dict(
        zip(
            ("id", "directory", "title", "version", "created", "updated"),
            rows.execute("SELECT id, directory, title, version, time_created, time_updated FROM session").fetchone(),
            strict=True,
        )
    )
    storage = data_dir / "storage"
    info_file = storage / "session" / "global" / f"{SESSION_ID}.json"
    info_file.parent.mkdir(parents=True)
    info_file.write_text(
        json.dumps({**session, "time": {"created": session["created"], "updated": session["updated"]}})
    )
    for message_id, data in rows.execute("SELECT id, data FROM message WHERE session_id = ?", (SESSION_ID,)):
        path = storage / "message" / SESSION_ID / f"{message_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**json.loads(data), "id": message_id}))
    for part_id, message_id, data in rows.execute("SELECT id, message_id, data FROM part"):
        path = storage / "part" / message_id / f"{part_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**json.loads(data), "id": part_id}))
    rows.close()
    for extra in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        (data_dir / extra).unlink(missing_ok=True)
    source = _source()
    [info] = list(source.discover(lambda _: None))
    assert info.path == str(info_file) and info.cwd == RECORDED_CWD
    sent = _sent(recorded_request())
    assert _read(source.load(info, lambda _: None).messages)[: len(sent)] == sent
    assert load_stored_rows(storage, info, lambda _: None)


def test_opencode_db_names_the_database(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = install_database(isolated_homes["home"] / "elsewhere")
    monkeypatch.setenv("OPENCODE_DB", str(elsewhere))
    [info] = build_services().list_sessions(agent=Agent("opencode"))
    assert info.path.startswith(str(elsewhere))


def test_a_compacted_session_reads_from_its_last_summary_as_opencode_sends_it(data_dir: Path) -> None:
    """The rows OpenCode 1.18.33 wrote for an automatic compaction (seen with a small context limit),
    added to the recorded session: the resumed request then held only these three messages."""
    database = data_dir / "opencode.db"
    rows = [
        (
            "msg_23c29b8640014wY1HfzOWOe3ff",
            {"role": "user", "agent": "build", "time": {"created": 1796305000000}},
            [{"type": "compaction", "auto": True}],
        ),
        (
            "msg_23c29b876001WYOnMyUCibJAz7",
            {
                "role": "assistant",
                "summary": True,
                "finish": "stop",
                "mode": "compaction",
                "agent": "compaction",
                "parentID": "msg_23c29b8640014wY1HfzOWOe3ff",
                "time": {"created": 1796305000001},
            },
            [
                {"type": "step-start"},
                {"type": "text", "text": "Summary: three commands ran."},
                {"type": "step-finish", "tokens": {"input": 300, "output": 12, "cache": {"read": 0, "write": 0}}},
            ],
        ),
        (
            "msg_23c29b90b001NzDgpqoP72WQ2j",
            {"role": "user", "agent": "build", "time": {"created": 1796305000002}},
            [
                {
                    "type": "text",
                    "synthetic": True,
                    "text": "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.",
                    "metadata": {"compaction_continue": True},
                }
            ],
        ),
    ]
    with sqlite3.connect(database) as connection:
        for number, (message_id, info, parts) in enumerate(rows):
            moment = info["time"]["created"]
            connection.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)", (message_id, SESSION_ID, moment, moment, json.dumps(info))
            )
            for offset, part in enumerate(parts):
                connection.execute(
                    "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        f"prt_23c29b9{number}{offset}00000000000000000",
                        message_id,
                        SESSION_ID,
                        moment,
                        moment,
                        json.dumps(part),
                    ),
                )
    source = _source()
    session = source.load(next(source.discover(lambda _: None)), lambda _: None)
    assert [(m.role, m.kind, m.injected) for m in session.messages] == [
        (Role.USER, Kind.TEXT, False),  # the model is sent both user turns: they are conversation
        (Role.ASSISTANT, Kind.SUMMARY, False),
        (Role.USER, Kind.TEXT, False),
    ]
    assert [m.text for m in session.messages] == [
        "What did we do so far?",
        "Summary: three commands ran.",
        "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.",
    ]
    assert session.compactions == 1 and session.measured_context_tokens == 300
