"""Kilo sessions in the archive, search and export: kept as a database of their own rows, found by their
words, exported, and still there from the archive after Kilo deleted them (its database never touched)."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
from pathlib import Path

import pytest
from kilo_builders import install_database

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.services import build_services

TOOLS = "ses_dbbf2f7deffe7eJlBs3YSWIbyp"
"""The recorded session with three tool calls (notes.txt: `codename: OSPREY`)."""


def smig(*argv: str) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(argv), Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()


@pytest.fixture
def kilo_db(isolated_homes: dict[str, Path]) -> Path:
    return install_database(isolated_homes["home"] / ".local" / "share" / "kilo" / "kilo.db")


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def test_search_finds_a_kilo_tool_output_and_filters_by_agent(kilo_db: Path) -> None:
    code, stdout, _ = smig("search", "OSPREY", "--agent", "kilo", "--json")
    assert code == 0
    hits = json.loads(stdout)
    hits = hits["hits"] if isinstance(hits, dict) else hits
    assert hits and {hit["session_id"] for hit in hits} == {TOOLS}
    assert {hit["agent"] for hit in hits} == {"kilo"}


@pytest.mark.parametrize("form", ["markdown", "json"])
def test_a_kilo_session_exports(kilo_db: Path, form: str) -> None:
    code, exported, stderr = smig("export", TOOLS, "--format", form)
    assert code == 0, stderr
    assert "TOOLS-1: read notes.txt with bash and with read" in exported and "cat notes.txt" in exported


def test_kilo_sessions_are_archived_once_and_read_from_the_archive_after_kilo_deleted_them(kilo_db: Path) -> None:
    services = build_services()
    original = services.load_session(services.find_session(TOOLS))
    before = _digests(kilo_db.parent)
    code, stdout, _ = smig("archive", "--json")
    assert code == 0 and json.loads(stdout)["new"] == 5
    assert _digests(kilo_db.parent) == before  # Kilo's database untouched
    with sqlite3.connect(kilo_db) as connection:  # `kilo session delete`
        for table, column in (("part", "session_id"), ("message", "session_id"), ("session", "id")):
            connection.execute(f"DELETE FROM {table} WHERE {column} = ?", (TOOLS,))
    connection.close()
    listed = json.loads(smig("list", "--json", "--agent", "kilo")[1])
    assert (TOOLS, True) in [(info["id"], info["archived"]) for info in listed] and len(listed) == 5
    fresh = build_services()
    archived = fresh.load_session(fresh.find_session(TOOLS))
    assert archived.info.agent == original.info.agent and archived.info.archived
    assert [(m.role, m.kind, m.text) for m in archived.messages] == [
        (m.role, m.kind, m.text) for m in original.messages
    ]
    code, exported, _ = smig("export", TOOLS, "--format", "markdown")
    assert code == 0 and "codename: OSPREY" in exported
    code, _, stderr = smig("archive", "restore", TOOLS)
    assert code != 0 and "Traceback" not in stderr and "Kilo Code keeps it in its own database" in stderr
