"""Kilo Code CLI's sessions read from its own database, as the recorded client last sent them to the model.

The database and the requests were recorded from the real `kilo` 7.7.7 (tests/fixtures/real/kilo).
Kilo keeps OpenCode's tables, so its package hands OpenCode's reader Kilo's home: these tests hold
that the sessions are found where Kilo keeps them (default, `XDG_DATA_HOME`, `KILO_DB`), listed as
Kilo's (not OpenCode's), read item for item as sent with each tool call paired, and read without
writing a byte or waiting for a running client.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from kilo_builders import RECORDED_ROOT, install_database, last_request, sent_history

from smig_tui.core.models import Agent, Kind, Role, Session
from smig_tui.services import build_services

KILO = Agent("kilo")
SCENARIOS = {"chat": 0, "tools": 3, "compact": 0, "imported": 1}
"""The recorded scenarios whose sessions were resumed, with the tool calls their last request carried."""


@pytest.fixture
def data_dir(isolated_homes: dict[str, Path]) -> Path:
    """Kilo's data folder at its default place in the temp home, holding the recorded database."""
    folder = isolated_homes["home"] / ".local" / "share" / "kilo"
    install_database(folder / "kilo.db")
    return folder


def _read(session: Session) -> list[tuple[str, str, Any]]:
    """smig's messages as (role, kind, content); a compaction's summary is the assistant text Kilo sends."""
    return [
        (
            m.role.value,
            "text" if m.kind is Kind.SUMMARY else m.kind.value,
            json.loads(m.text) if m.kind is Kind.TOOL_CALL else m.text,
        )
        for m in session.messages
    ]


def test_lists_the_five_recorded_sessions_as_kilos_not_opencodes(data_dir: Path) -> None:
    services = build_services()
    listed = services.list_sessions(agent=KILO)
    assert [(i.id, i.title) for i in listed][:3] == [
        ("ses_dbbef1e36ffevZ7NYtWpesRgvL", "New session - 2026-12-05T02:38:06.794Z"),
        ("ses_dbbf43ba9ffewkDvsisg9lII9W", "New session - 2026-12-05T02:32:31.574Z"),
        ("ses_dbbf0dc00fffsmigfixture000", "IMPORTED (written by hand)"),
    ]  # newest first, as `kilo session list` printed them (session-list.txt)
    assert len(listed) == 5 and {i.agent for i in listed} == {KILO} and {i.origin for i in listed} == {"kilo"}
    assert {i.source_version for i in listed} == {"7.7.7"} and {i.model for i in listed} == {"gpt-4.1"}
    assert all(i.path == f"{data_dir / 'kilo.db'}#{i.id}" for i in listed)
    assert services.list_sessions(agent=Agent("opencode")) == []  # Kilo's database is not OpenCode's


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_show_equals_the_last_request_kilo_sent_item_by_item(data_dir: Path, scenario: str) -> None:
    services = build_services()
    [info] = [i for i in services.list_sessions(agent=KILO) if i.cwd == f"{RECORDED_ROOT}/{scenario}"]
    session = services.load_session(info)
    sent = sent_history(last_request(scenario))
    mine = _read(session)
    assert mine[: len(sent)] == sent
    assert len(mine) == len(sent) + 1 and mine[-1][0] == "assistant"  # then the reply to that request
    assert sum(kind == "tool_call" for _, kind, _ in sent) == SCENARIOS[scenario]
    assert session.compactions == (1 if scenario == "compact" else 0)
    calls = [m for m in session.messages if m.kind is Kind.TOOL_CALL]
    results = [m for m in session.messages if m.kind is Kind.TOOL_RESULT]
    body = last_request(scenario)
    sent_calls = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or []]
    sent_results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    assert [c.call_id for c in calls][: len(sent_calls)] == sent_calls  # the ids Kilo sent
    assert [r.call_id for r in results][: len(sent_results)] == sent_results  # each result with its call
    assert all(r.role is Role.TOOL for r in results)


def test_show_by_id_from_the_cli(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from smig_tui.cli.main import main

    assert main(["show", "ses_dbbf2f7deffe7eJlBs3YSWIbyp", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["info"]["agent"] == "kilo" and shown["info"]["cwd"] == f"{RECORDED_ROOT}/tools"
    assert [m["kind"] for m in shown["messages"]].count("tool_call") == 3


def test_a_kilo_reference_is_found_although_opencode_shares_its_shape(data_dir: Path) -> None:
    services = build_services()
    reference = f"{data_dir / 'kilo.db'}#ses_dbbf2f7deffe7eJlBs3YSWIbyp"
    assert services.find_session(reference).agent == KILO


def test_xdg_data_home_moves_the_database(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    install_database(isolated_homes["home"] / "data" / "kilo" / "kilo.db")
    monkeypatch.setenv("XDG_DATA_HOME", str(isolated_homes["home"] / "data"))
    assert len(build_services().list_sessions(agent=KILO)) == 5


@pytest.mark.parametrize("relative", [False, True])
def test_kilo_db_names_the_database(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch, relative: bool
) -> None:
    folder = isolated_homes["home"] / ".local" / "share" / "kilo"
    install_database(folder / "elsewhere.db")
    monkeypatch.setenv("KILO_DB", "elsewhere.db" if relative else str(folder / "elsewhere.db"))
    services = build_services()
    assert len(services.list_sessions(agent=KILO)) == 5
    assert services.agent_homes()["kilo"] == folder / "elsewhere.db"
    monkeypatch.setenv("OPENCODE_DB", str(folder / "elsewhere.db"))  # OpenCode's variable is not Kilo's
    monkeypatch.delenv("KILO_DB")
    assert build_services().list_sessions(agent=KILO) == []


def test_reading_never_waits_for_a_running_kilo_and_never_writes(data_dir: Path) -> None:
    database = data_dir / "kilo.db"
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # Kilo mid-write: a write transaction held open
    writer.execute("UPDATE session SET title = 'being renamed'")
    before = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in data_dir.iterdir()}
    try:
        services = build_services()
        listed = services.list_sessions(agent=KILO)
        session = services.load_session(next(i for i in listed if i.cwd == f"{RECORDED_ROOT}/tools"))
        after = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in data_dir.iterdir()}
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert "being renamed" not in {i.title for i in listed}  # the last committed state
    assert len(session.messages) == 10
    assert after == before  # no byte written: no checkpoint, no journal, nothing new beside it


def test_a_damaged_kilo_database_is_one_warning_naming_kilo(data_dir: Path) -> None:
    (data_dir / "kilo.db").write_bytes(b"not a database at all" * 100)
    warnings: list[Any] = []
    assert build_services().list_sessions(agent=KILO, warn=warnings.append) == []
    assert len(warnings) == 1 and "Kilo Code database" in warnings[0].message
