"""A first listing takes each Crush session from its row and its last reply: the entry must be the one a
whole read of its rows gives, the message count aside (left None), on every database the tests know."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from crush_builders import install, make

from smig_devtools.corpus import SessionEntry
from smig_devtools.crush_corpus import generate_crush
from smig_tui.adapters.agents.crush.home import Project, projects
from smig_tui.adapters.agents.crush.source import CrushSource
from smig_tui.core.models import ReadWarning, SessionInfo


def _both(project: Project) -> tuple[list[SessionInfo], list[SessionInfo], list[ReadWarning]]:
    """The cheap listing of one database, the whole read's, and the cheap listing's warnings."""
    source = CrushSource(None, listing_cache=None)
    warnings: list[ReadWarning] = []
    cheap = source._list_database(project, warnings.append)
    whole = source._list_database(project, lambda _warning: None, whole=True)
    return cheap, whole, warnings


def _same_but_the_count(project: Project) -> list[SessionInfo]:
    cheap, whole, _ = _both(project)
    assert [info.id for info in cheap] == [info.id for info in whole]  # none listed the whole read would not list
    for mine, theirs in zip(cheap, whole, strict=True):
        assert mine.message_count in (None, theirs.message_count)
        assert mine == replace(theirs, message_count=mine.message_count)
    return cheap


def test_the_fixture_databases_list_as_read_whole(tmp_path: Path) -> None:
    install(tmp_path)
    env = {"CRUSH_GLOBAL_DATA": str(tmp_path / ".local" / "share" / "crush"), "HOME": str(tmp_path)}
    listed = [info for project in projects(env) for info in _same_but_the_count(project)]
    assert {info.id for info in listed} >= {make.TOOLS, make.SUMMARISED, make.ATTACHED, make.DAMAGED}
    assert any(info.message_count is None for info in listed)  # the cheap way was taken


def test_generated_databases_list_as_read_whole_none_read_whole(tmp_path: Path) -> None:
    entries = [
        SessionEntry("claude", "main", f"s{n}", "", str(tmp_path / "work" / f"p{n % 3}"), prompt=f"task {n}", size=size)
        for n, size in enumerate((3_000, 40_000, 150_000, 9_000, 70_000, 500))
    ]
    for entry in entries:
        Path(entry.cwd).mkdir(parents=True, exist_ok=True)
    generate_crush(tmp_path / "crush", entries)
    found = projects({"CRUSH_GLOBAL_DATA": str(tmp_path / "crush"), "HOME": str(tmp_path)})
    listed = [info for project in found for info in _same_but_the_count(project)]
    assert len(listed) == 2 * len(entries)  # each session and its title session
    assert all(info.message_count is None for info in listed)  # a session as Crush writes it: no row read whole


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "data": {"text": text}}


FINISH = {"type": "finish", "data": {"reason": "end_turn"}}
CALL = {"type": "tool_call", "data": {"id": "c1", "name": "bash", "input": "{}"}}
THINK = {"type": "reasoning", "data": {"thinking": "hmm"}}


def _odd_database(root: Path, schema: str) -> Project:
    """Sessions no client writes but a damaged or hand-edited database can hold, each a case where the
    last reply alone would say the wrong thing."""
    database = root / ".crush" / "crush.db"
    database.parent.mkdir(parents=True)
    connection = sqlite3.connect(database)
    connection.executescript(schema)
    clock = iter(range(1_764_900_000, 1_764_990_000, 10))
    prompt = [_text("a prompt ünïcødé")]

    def session(sid: str, rows: list[tuple[str, Any, str | None]], title: str = "A title", **more: Any) -> None:
        columns = {"id": sid, "title": title, "created_at": next(clock), "updated_at": next(clock), **more}
        have = {row[1] for row in connection.execute("PRAGMA table_info(sessions)")}
        columns = {key: value for key, value in columns.items() if key in have}
        marks = ", ".join("?" for _ in columns)
        connection.execute(f"INSERT INTO sessions ({', '.join(columns)}) VALUES ({marks})", list(columns.values()))
        stamp = next(clock)
        for number, (role, parts, model) in enumerate(rows):
            data = parts if isinstance(parts, str | bytes | int) else json.dumps(parts)
            connection.execute(
                "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    f"{sid}-{number}",
                    sid,
                    role,
                    data,
                    model,
                    stamp,
                    stamp,
                ),  # one second: Crush's order is then the rowid's
            )

    session("plain", [("user", prompt, None), ("assistant", [_text("done"), FINISH], "m1")])
    session("untitled", [("user", prompt, None), ("assistant", [_text("done")], "m1")], title="")
    session("unanswered", [("user", prompt, None)])
    session("cancelled", [("user", prompt, None), ("assistant", [_text("x")], "m1"), ("assistant", [FINISH], "m2")])
    session("no-model", [("user", prompt, None), ("assistant", [THINK], "m1"), ("assistant", [CALL], None)])
    session("calls-only", [("user", prompt, None), ("assistant", [CALL], "m3")])
    session("damaged-tail", [("user", prompt, None), ("assistant", [_text("x")], "m1"), ("assistant", "{oops", "m2")])
    session("damaged-middle", [("user", "[1, 2]", None), ("assistant", [_text("x")], "m1")])
    session(
        "nul", [("user", '[{"type": "text", "data": {"text": "a\x00b"}}]', None), ("assistant", [_text("y")], "m1")]
    )
    session("blob", [("user", json.dumps(prompt).encode(), None), ("assistant", [_text("y")], "m1")])
    session("number-parts", [("user", prompt, None), ("tool", 42, None), ("assistant", [_text("y")], "m1")])
    session("system-only", [("system", [_text("be nice")], None)])
    session("empty-tail", [("user", prompt, None), ("assistant", [], "m1")])
    session(
        "summary-last",
        [("user", prompt, None), ("assistant", [_text("a")], "m1"), ("assistant", [_text("sum")], "m9")],
        summary_message_id="summary-last-2",
    )
    session(
        "summary-blank",
        [("user", prompt, None), ("assistant", [_text("a")], "m1"), ("assistant", [_text(" ")], "m9")],
        summary_message_id="summary-blank-2",
    )
    session(
        "summary-user",
        [("assistant", [_text("a")], "m1"), ("user", [_text("as summary")], "m5")],
        summary_message_id="summary-user-1",
    )
    session("summary-gone", [("user", prompt, None), ("assistant", [_text("a")], "m1")], summary_message_id="no-such")
    session(
        "summary-earlier",
        [
            ("user", prompt, None),
            ("assistant", [_text("s")], "m1"),
            ("user", prompt, None),
            ("assistant", [_text("b")], "m2"),
        ],
        summary_message_id="summary-earlier-1",
    )
    session(
        "title-redacted",
        [("user", prompt, None), ("assistant", [_text("y")], "m1")],
        title="key sk-proj-" + "a1B2" * 12,
    )
    session("nothing", [])
    connection.execute(
        "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES ('orphan', 'gone', 'user', ?, NULL, 1, 1)",
        (json.dumps(prompt),),
    )
    connection.commit()
    connection.close()
    return Project(str(root), database)


SCHEMA = (Path(__file__).parents[1] / "fixtures" / "crush" / "schema.sql").read_text(encoding="utf-8")
OLD_SCHEMA = SCHEMA.replace("    summary_message_id TEXT,\n", "").replace(
    "    prompt_tokens INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),\n", ""
)


@pytest.mark.parametrize("schema", [SCHEMA, OLD_SCHEMA], ids=["schema", "before-summaries"])
def test_odd_sessions_list_as_read_whole(tmp_path: Path, schema: str) -> None:
    listed = {info.id: info for info in _same_but_the_count(_odd_database(tmp_path, schema))}
    assert {"unanswered", "untitled", "plain", "calls-only"} <= set(listed)
    assert not {"system-only", "nothing", "gone"} & set(listed)
    assert listed["plain"].message_count is None and listed["calls-only"].message_count is None
    assert listed["cancelled"].model == "m1" and listed["no-model"].model == "m1"
    if schema == SCHEMA:
        assert listed["summary-last"].model == "m9" and listed["summary-user"].model == "m5"


def test_the_damaged_warning_stays_where_the_row_is_read(tmp_path: Path) -> None:
    cheap, _, warnings = _both(_odd_database(tmp_path, SCHEMA))
    assert any("damaged-tail" in warning.message for warning in warnings)  # its last reply is read whole


def test_a_message_naming_its_session_by_bytes_reads_the_database_whole(tmp_path: Path) -> None:
    project = _odd_database(tmp_path, SCHEMA)
    with sqlite3.connect(project.database) as connection:
        connection.execute(
            "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES ('n1', ?, 'user', ?, NULL, 1, 1)",
            (b"plain", json.dumps([_text("by bytes")])),
        )
    listed = {info.id: info for info in _same_but_the_count(project)}
    assert listed["plain"].message_count is not None  # a blob id: the rows are grouped as the whole read groups them


def test_an_sqlite_without_window_functions_reads_every_session_whole(tmp_path: Path, monkeypatch: Any) -> None:
    import sqlite3 as module

    monkeypatch.setattr(module, "sqlite_version_info", (3, 24, 0))
    listed = _same_but_the_count(_odd_database(tmp_path, SCHEMA))
    assert listed and all(info.message_count is not None for info in listed)
