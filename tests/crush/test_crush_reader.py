"""Crush's reader on databases built from Crush's own schema (tests/fixtures/crush: not written by Crush).

What `smig show` gives is what Crush's `agent.go` sends its model on the next turn: from the summary
in use, tool calls paired with their results, an interrupted call answered, a stray result dropped,
a cancelled reply and system messages left out. The databases are only ever read.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tracemalloc
from pathlib import Path

import pytest
from cli_runner import smig
from crush_builders import install, make
from text_spill_state import block_the_spill

from smig_tui.adapters.agents import registry
from smig_tui.adapters.agents.crush import source as crush_source
from smig_tui.adapters.agents.crush import usable
from smig_tui.adapters.agents.crush.convert import INTERRUPTED, Row, to_conversation
from smig_tui.adapters.agents.crush.database import MESSAGE_ORDER, connect, message_rows
from smig_tui.adapters.agents.crush.home import global_data, split_ref
from smig_tui.adapters.agents.profile import RowsUnreadable
from smig_tui.core.agent_rules import usable_window
from smig_tui.core.models import Kind, Role
from smig_tui.services import build_services


@pytest.fixture
def crush(isolated_homes: dict[str, Path]) -> dict[str, Path]:
    return install(isolated_homes["home"])


def _listed(*extra: str) -> dict[str, dict[str, object]]:
    code, out, err = smig("list", "--agent", "crush", "--json", *extra)
    assert code == 0, err
    return {entry["id"]: entry for entry in json.loads(out)}


def _items(session_id: str) -> list[tuple[str, str, str | None, str | None, str]]:
    services = build_services()
    session = services.load_session(services.find_session(session_id))
    return [(m.role.value, m.kind.value, m.tool_name, m.call_id, m.text) for m in session.messages]


def test_every_project_of_the_list_is_read_and_helpers_are_sub_agents(crush: dict[str, Path]) -> None:
    listed = _listed()
    assert set(listed) == {make.TOOLS, make.SUMMARISED, make.ATTACHED, make.DAMAGED}  # the empty one: nothing said
    assert listed[make.TOOLS]["cwd"] == str(crush["alpha"]) and listed[make.ATTACHED]["cwd"] == str(crush["beta"])
    assert listed[make.TOOLS]["title"] == "Read the notes file" and listed[make.TOOLS]["model"] == "gpt-5.5"
    assert listed[make.TOOLS]["created"] == "2025-12-05T02:00:00.000Z"  # Crush's seconds
    every = _listed("--all")
    assert every[make.SUBAGENT]["is_subagent"] is True and every[make.SUBAGENT]["parent_id"] == make.TOOLS
    assert every[make.TITLE]["is_subagent"] is True
    # a count only where the listing read the session whole (it reads most from their rows and last reply)
    assert all(entry["message_count"] in (None, len(_items(sid))) for sid, entry in listed.items())


def test_show_is_what_crush_sends_tool_calls_paired(crush: dict[str, Path]) -> None:
    shell = "what does git status say?\n\n$ git status --short\n M notes.txt\n(exit code 0)"
    assert _items(make.TOOLS) == [
        ("user", "text", None, None, "read notes.txt and tell me the codename"),
        ("assistant", "text", None, None, "Reading notes.txt."),
        ("assistant", "reasoning", None, None, "The user wants the codename; read the file."),
        ("assistant", "tool_call", "view", "call_view", '{"file_path": "notes.txt"}'),
        ("tool", "tool_result", "view", "call_view", "codename: OSPREY\nowner: ops"),
        # the cancelled reply (only a finish part) is not sent
        ("assistant", "text", None, None, "The codename is OSPREY. Checking the missing file too."),
        ("assistant", "tool_call", "bash", "call_cat", '{"command": "cat missing.txt"}'),
        ("assistant", "tool_call", "view", "call_lost", '{"file_path": "lost.txt"}'),
        ("tool", "tool_result", "view", "call_lost", INTERRUPTED),  # Crush answers a call that has no result
        ("tool", "tool_result", "bash", "call_cat", "cat: missing.txt: No such file or directory"),
        # the result whose call is not in the session is dropped; the system message is not sent
        ("user", "text", None, None, shell),
        ("assistant", "text", None, None, "notes.txt is modified."),
    ]
    services = build_services()
    session = services.load_session(services.find_session(make.TOOLS))
    errors = [m.call_id for m in session.messages if m.is_error]
    assert errors == ["call_lost", "call_cat"] and session.measured_context_tokens == 10_000


def test_a_summarised_session_starts_at_its_summary_sent_as_the_users(crush: dict[str, Path]) -> None:
    assert _items(make.SUMMARISED) == [
        ("user", "summary", None, None, "Summary: the user asked about teal, a blue-green colour."),
        ("user", "text", None, None, "and magenta?"),
        ("assistant", "text", None, None, "Magenta is a purplish red."),
    ]
    services = build_services()
    session = services.load_session(services.find_session(make.SUMMARISED))
    assert session.compactions == 1 and session.measured_context_tokens is None  # Crush reset its prompt tokens


def test_attachments_are_inlined_as_crush_sends_them(crush: dict[str, Path]) -> None:
    [prompt, image, reply] = _items(make.ATTACHED)
    assert prompt[4].startswith("summarise the attached file\n<system_info>")
    assert "<file path='plan.md'>\n\n# Plan\nship it\n</file>\n" in prompt[4]
    assert image[:2] == ("user", "image") and image[4] == "[image: shot.png]"
    assert reply[4] == "The plan is to ship it."


def test_damaged_rows_are_one_warning_and_the_rest_reads(crush: dict[str, Path]) -> None:
    code, out, err = smig("show", make.DAMAGED[:8])
    assert code == 0 and "Traceback" not in err
    assert "skipped 2 message(s) whose parts do not parse (m-d2, m-d3)" in err
    assert "first question PELICAN" in out and "Second answer." in out


def test_reading_never_writes_the_database_even_while_crush_writes(crush: dict[str, Path]) -> None:
    databases = crush["databases"]
    before = {path: hashlib.sha256(Path(path).read_bytes()).hexdigest() for path in databases}
    assert smig("list", "--agent", "crush")[0] == 0 and smig("show", make.TOOLS[:8])[0] == 0
    assert smig("archive")[0] == 0
    after = {path: hashlib.sha256(Path(path).read_bytes()).hexdigest() for path in databases}
    assert before == after
    assert not any(Path(f"{path}{suffix}").exists() for path in databases for suffix in ("-wal", "-shm", "-journal"))
    # Crush running: a write transaction open on its WAL; smig still reads the last committed state.
    writer = sqlite3.connect(databases[0])
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE messages SET parts = '[]' WHERE id = 'm-t9'")
        assert _items(make.TOOLS)[-1][4] == "notes.txt is modified."
    finally:
        writer.rollback()
        writer.close()


def test_a_warm_listing_opens_no_unchanged_database(crush: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    first = _listed()

    def refuse(database: Path):  # type: ignore[no-untyped-def]
        raise RowsUnreadable(f"opened {database}")

    monkeypatch.setattr(crush_source, "connect", refuse)
    assert _listed() == first  # from the listing cache: no database opened
    database = crush["databases"][1]
    os.utime(database, (1, 1))  # changed: read again
    code, out, err = smig("list", "--agent", "crush", "--json")
    assert code == 0 and f"opened {database}" in err
    assert {entry["id"] for entry in json.loads(out)} == {make.TOOLS, make.SUMMARISED}


def test_the_projects_list_moves_with_crush_global_data_and_a_damaged_one_is_a_warning(
    crush: dict[str, Path], isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    default = isolated_homes["home"] / ".local" / "share" / "crush"
    assert global_data() == default
    monkeypatch.setenv("XDG_DATA_HOME", str(isolated_homes["home"] / "xdg"))
    assert global_data() == isolated_homes["home"] / "xdg" / "crush"
    moved = isolated_homes["home"] / "elsewhere"
    monkeypatch.setenv("CRUSH_GLOBAL_DATA", str(moved))
    assert global_data() == moved and _listed() == {}
    moved.mkdir()
    (default / "projects.json").rename(moved / "projects.json")
    assert len(_listed()) == 4
    (moved / "projects.json").write_text('{"projects": [', encoding="utf-8")
    code, out, err = smig("list", "--agent", "crush", "--json")
    assert code == 0 and json.loads(out) == [] and "skipped Crush's list of projects: it is not JSON" in err


def test_a_file_that_is_not_a_database_is_one_warning(crush: dict[str, Path]) -> None:
    Path(crush["databases"][0]).write_bytes(b"not sqlite at all" * 100)
    code, out, err = smig("list", "--agent", "crush", "--json")
    assert code == 0 and "Traceback" not in err and "Crush database" in err
    assert {entry["id"] for entry in json.loads(out)} == {make.ATTACHED, make.DAMAGED}


def test_references_are_crushs_alone() -> None:
    assert split_ref("/p/.crush/crush.db#5b0c7a1e-2f43") == ("/p/.crush/crush.db", "5b0c7a1e-2f43")
    assert split_ref("/x/opencode.db#ses_abc") is None  # OpenCode's shape, its ids
    assert split_ref("/x/session.jsonl") is None and split_ref("/x/crush.db#") is None
    assert registry.row_ref("/p/.crush/crush.db#title-1") is not None


def test_crush_summarises_when_a_fifth_or_20000_tokens_are_left() -> None:
    assert usable(128_000, None) == 102_400  # 20% of a window of 200,000 or less
    assert usable(200_000, None) == 160_000
    assert usable(400_000, None) == 380_000  # 20,000 above
    assert usable(400_000, 300_000) == 300_000  # the user's own limit when lower
    assert usable_window("crush", 1_000_000) == 980_000


def test_conversion_tolerates_odd_rows() -> None:
    rows = [
        Row("a", "user", json.dumps([{"type": "text", "data": {"text": "  hi  "}}]), created_at=1_764_900_000_000),
        Row("b", "assistant", json.dumps([{"type": "text", "data": "not an object"}])),  # an empty reply
        Row("c", "assistant", "[]"),
        Row("d", "tool", json.dumps([{"type": "tool_result", "data": {"tool_call_id": "x", "content": "y"}}])),
        Row("e", "assistant", json.dumps([[1]])),
    ]
    out = to_conversation(rows, "no-such-summary")
    assert [(m.role, m.kind, m.text) for m in out.messages] == [(Role.USER, Kind.TEXT, "hi")]
    assert out.messages[0].timestamp == "2025-12-05T02:00:00.000Z"  # milliseconds taken too
    assert out.damaged == ["e"] and out.compactions == 0


def test_a_media_result_is_sent_as_its_media_or_crushs_placeholder() -> None:
    from smig_tui.adapters.agents.crush.convert import MEDIA_FAILED

    call = {"type": "tool_call", "data": {"id": "c1", "name": "view", "input": "{}"}}
    results = [
        {
            "type": "tool_result",
            "data": {"tool_call_id": "c1", "name": "view", "data": "iVBORw==", "mime_type": "image/png"},
        },
        {
            "type": "tool_result",
            "data": {"tool_call_id": "c1", "name": "view", "data": "not base64!", "mime_type": "image/png"},
        },
    ]
    rows = [Row("a", "assistant", json.dumps([call])), Row("t", "tool", json.dumps(results))]
    texts = [m.text for m in to_conversation(rows, None).messages if m.kind is Kind.TOOL_RESULT]
    assert texts == ["[image/png]", MEDIA_FAILED]


def _row(row_id: str, role: str, *parts: tuple[str, dict[str, object]]) -> Row:
    return Row(row_id, role, json.dumps([{"type": kind, "data": data} for kind, data in parts]), "m", 1_795_600_000)


def _call(call_id: str) -> tuple[str, dict[str, object]]:
    return "tool_call", {"id": call_id, "name": "bash", "input": "{}"}


def _result(call_id: str) -> tuple[str, dict[str, object]]:
    return "tool_result", {"tool_call_id": call_id, "name": "bash", "content": f"out {call_id}"}


def test_what_only_the_last_row_decides_is_settled_in_place() -> None:
    """Rows are converted as they are read; whether a call is answered, or a result's call made, is known
    only at the end: a result read before its call stays where it was read, each unanswered call (a
    repeated id too) gets its interrupted result right after its message's calls, a result of no call
    is dropped, and a call or result before the summary in use counts for nothing."""
    rows = [
        _row("old", "assistant", _call("c9")),
        _row("sum", "assistant", ("text", {"text": "summary"})),
        _row("u", "user", ("text", {"text": "go"})),
        _row("t0", "tool", _result("late"), _result("never")),
        _row("a1", "assistant", ("text", {"text": "one"}), _call("c1"), _call("c2"), _call("late")),
        _row("t1", "tool", _result("c1"), _result("c9")),
        _row("a2", "assistant", _call("c3"), _call("c3")),
        _row("t2", "tool", _result("c2")),
        _row("a3", "assistant", ("text", {"text": "done"})),
    ]
    out = to_conversation(iter(rows), "sum")
    assert [m.id for m in out.messages] == [
        "sum",
        "u",
        "t0:late",
        "a1",
        "a1:c1",
        "a1:c2",
        "a1:late",
        "t1:c1",
        "a2:c3",
        "a2:c3",
        "a2:c3#interrupted",
        "a2:c3#interrupted",
        "t2:c2",
        "a3",
    ]
    assert [m.index for m in out.messages] == list(range(len(out.messages)))
    interrupted = [m for m in out.messages if m.injected]
    assert all(m.text == INTERRUPTED and m.is_error and m.kind is Kind.TOOL_RESULT for m in interrupted)
    assert out.messages[0].kind is Kind.SUMMARY and out.compactions == 0


def test_a_big_sessions_rows_are_not_all_held_while_it_is_converted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each row is converted as it is read and let go: parsing them all first held every row's parts
    (the 500 MB session's load took 313 MB, 229 MB converted as read). Traced peak over what the
    conversion keeps, its texts packed in memory in small blocks so the packer's block weighs nothing:
    1.21 parsed all first, 1.06 as read."""
    from smig_devtools.corpus import SessionEntry
    from smig_devtools.crush_corpus import generate_crush
    from smig_tui.adapters import stored_text

    (tmp_path / "work").mkdir()
    entry = SessionEntry("claude", "main", "s", "", str(tmp_path / "work"), prompt="task", size=4_000_000)
    generate_crush(tmp_path / "crush", [entry])
    monkeypatch.setattr(stored_text, "BLOCK_BYTES", 1 << 14)
    block_the_spill()  # held as measured
    connection = sqlite3.connect(tmp_path / "work" / ".crush" / "crush.db")
    try:
        (session_id,) = connection.execute("SELECT id FROM sessions WHERE parent_session_id IS NULL").fetchone()
        tracemalloc.start()
        try:
            out = to_conversation(crush_source._each_row(connection, session_id), None, stored_text.TextPacker())
            held, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    finally:
        connection.close()
    assert len(out.messages) > 1000
    assert any(isinstance(m.body, stored_text.PackedText) for m in out.messages)
    assert peak < 1.12 * held, (peak, held)


def test_rows_come_in_crushs_order_read_straight_when_written_in_it(crush: dict[str, Path], tmp_path: Path) -> None:
    """`message_rows` gives `MESSAGE_ORDER`'s rows; it reads them without sorting their parts only when the
    rows were written in time order, and sorts them when one was not (a row moved to the end in time)."""
    copy = tmp_path / "crush.db"
    with sqlite3.connect(crush["databases"][0]) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    writer = sqlite3.connect(copy)
    with writer:
        (first,) = writer.execute(
            "SELECT id FROM messages WHERE session_id = ? ORDER BY rowid LIMIT 1", (make.TOOLS,)
        ).fetchone()
        writer.execute("UPDATE messages SET created_at = created_at + 1000 WHERE id = ?", (first,))
    writer.close()
    columns = "id, role, parts, created_at"
    for database, session_id in ((Path(crush["databases"][0]), make.TOOLS), (copy, make.TOOLS)):
        with connect(database) as connection:
            sorted_rows = connection.execute(
                f"SELECT {columns} FROM messages WHERE session_id = ? {MESSAGE_ORDER}", (session_id,)
            ).fetchall()
            statements: list[str] = []
            connection.set_trace_callback(statements.append)
            assert list(message_rows(connection, columns, session_id)) == sorted_rows
            assert not connection.in_transaction  # its read transaction closed
        read = next(sql for sql in statements if sql.startswith(f"SELECT {columns}"))
        assert read.endswith("ORDER BY rowid") == (database != copy), read
    assert sorted_rows[-1][0] == first  # the moved row last in time: sorted, not in rowid order
