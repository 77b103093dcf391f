"""OpenCode sessions live many to a database: the archive keeps each one as a database of its own
rows, so a session OpenCode deleted still lists, loads, plans and exports from the archive."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
from pathlib import Path

import pytest
from opencode_builders import SESSION_ID, install_database

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.services import build_services, session_archive


def smig(*argv: str) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(argv), Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()


@pytest.fixture
def opencode_db(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    database = install_database(isolated_homes["home"] / "opencode-data")
    monkeypatch.setenv("OPENCODE_DB", str(database))
    return database


def texts(session_messages: object) -> list[tuple[str, str]]:
    return [(message.role.value, message.text) for message in session_messages]  # type: ignore[attr-defined]


def test_an_opencode_session_is_archived_once_and_its_database_never_touched(opencode_db: Path) -> None:
    folder = opencode_db.parent
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}
    code, stdout, _ = smig("archive", "--json")
    assert code == 0 and json.loads(stdout)["new"] == 1
    assert {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()} == before
    again = json.loads(smig("archive", "--json")[1])
    assert (again["new"], again["changed"], again["unchanged"]) == (0, 0, 1)
    status = json.loads(smig("archive", "--status", "--json")[1])
    assert status["sessions"] == 1 and status["originals_missing"] == 0


def test_a_deleted_opencode_session_lists_loads_plans_and_exports_from_the_archive(opencode_db: Path) -> None:
    services = build_services()
    original = services.load_session(services.find_session(SESSION_ID))
    assert len(original.messages) > 2
    smig("archive")
    with sqlite3.connect(opencode_db) as connection:  # OpenCode deletes the session
        for table, column in (("part", "session_id"), ("message", "session_id"), ("session", "id")):
            connection.execute(f"DELETE FROM {table} WHERE {column} = ?", (SESSION_ID,))
    connection.close()

    listed = json.loads(smig("list", "--json", "--agent", "opencode")[1])
    assert [(info["id"], info["archived"]) for info in listed] == [(SESSION_ID, True)]
    fresh = build_services()
    archived = fresh.load_session(fresh.find_session(SESSION_ID))
    assert archived.info.archived and texts(archived.messages) == texts(original.messages)
    code, plan, _ = smig("plan", SESSION_ID, "--target", "gpt-4o", "--json")
    assert code == 0 and json.loads(plan)["decision"]["fits"] is True
    code, exported, _ = smig("export", SESSION_ID, "--format", "markdown")
    assert code == 0 and original.messages[0].text.splitlines()[0] in exported
    status = json.loads(smig("archive", "--status", "--json")[1])
    assert status["originals_missing"] == 1


def test_restoring_an_opencode_session_is_refused_in_one_sentence(opencode_db: Path) -> None:
    smig("archive")
    with sqlite3.connect(opencode_db) as connection:
        connection.execute("DELETE FROM session WHERE id = ?", (SESSION_ID,))
    connection.close()
    before = hashlib.sha256(opencode_db.read_bytes()).hexdigest()
    code, stdout, stderr = smig("archive", "restore", SESSION_ID)
    errors = [line for line in stderr.splitlines() if line.startswith("smig: error:")]
    assert code != 0 and stdout == "" and len(errors) == 1 and "not supported" in errors[0]
    assert "Traceback" not in stderr
    assert hashlib.sha256(opencode_db.read_bytes()).hexdigest() == before
    archive = session_archive(build_services().paths)
    assert len(archive.entries()) == 1
