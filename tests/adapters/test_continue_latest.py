"""What a commit says each client's "continue the latest" picks in the folder, without the real clients.

The real clients confirm the picks in tests/e2e/test_lived_in_homes.py; here each writer's rule is
checked against homes where the migration is the newest, and where a session of the user's is newer
(a client writing at the same moment, or a clock ahead), and Codex's steps when its index exists but
its app server is missing or fails.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import sys
import time
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session
from opencode_builders import SESSION_ID, install_database

from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.writer import project_dir
from smig_tui.adapters.agents.opencode.home import resolve_home
from smig_tui.adapters.agents.opencode.writer import OpenCodeWriter
from smig_tui.core.migration import MigrationResult
from smig_tui.core.models import Agent
from smig_tui.core.native import Destination, NativeOutput, PlannedFile
from smig_tui.services import build_services


def _migrate(tmp_path: Path, destination: Destination) -> MigrationResult:
    session = make_session(tmp_path / "src", agent=Agent("claude"), cwd=str(tmp_path / "project"))
    return build_services().migrate(session, make_plan(session), {destination})


def test_claude_code_continues_the_migration_unless_a_transcript_there_is_newer(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    project_folder = project_dir(claude_home(), str(tmp_path / "project"))
    project_folder.mkdir(parents=True)
    theirs = project_folder / "0f0f0f0f-1111-4222-8333-444455556666.jsonl"
    theirs.write_text('{"type":"user"}\n', encoding="utf-8")
    os.utime(theirs, (time.time() - 3600,) * 2)
    [first] = _migrate(tmp_path, Destination("claude")).continue_latest
    os.utime(theirs, (time.time() + 3600,) * 2)  # written while smig committed, or a clock ahead
    result = _migrate(tmp_path, Destination("claude"))
    [second] = result.continue_latest

    assert first.migration and first.command == "claude -c"
    assert first.sentence == f"`claude -c` in {tmp_path / 'project'} continues this migration."
    assert not second.migration and second.picks == theirs.stem
    assert second.sentence == (
        f"`claude -c` in {tmp_path / 'project'} picks session {theirs.stem} (modified after the migration was "
        f"written), not this migration; `claude --resume {result.outputs[0].session_id}` continues it."
    )


def test_gemini_cli_continues_the_session_started_or_resumed_last(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    first = _migrate(tmp_path, Destination("gemini"))
    [fact] = first.continue_latest
    chats = Path(first.outputs[0].path).parent
    later = "2999-01-01T00:00:00.000Z"  # a resume of the user's, stamped after the migration
    lines = [
        {"sessionId": "theirs-1", "projectHash": "x", "startTime": "2026-01-01T00:00:00.000Z", "kind": "main"},
        {"id": "u1", "type": "user", "content": [{"text": "their prompt"}]},
        {"id": "g1", "type": "gemini", "content": "their answer"},
        {"sessionId": "theirs-1", "projectHash": "x", "startTime": later, "lastUpdated": later, "kind": "main"},
    ]
    (chats / "session-2026-01-01T00-00-theirs-1.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    (chats / "session-2999-01-01T00-00-stubstub.jsonl").write_text(  # a resume's stub: no conversation
        json.dumps({"sessionId": "stub", "projectHash": "x", "startTime": "3000-01-01T00:00:00.000Z"}) + "\n",
        encoding="utf-8",
    )
    [second] = _migrate(tmp_path, Destination("gemini")).continue_latest

    assert fact.migration and fact.command == "gemini --resume latest"
    assert first.outputs[0].session_id.startswith("smig-")  # its first 8 characters are no short id
    assert not second.migration and second.picks == "theirs-1"


def test_opencode_continues_the_projects_most_recently_updated_session(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    database = install_database(isolated_homes["home"] / ".local" / "share" / "opencode")
    writer = OpenCodeWriter(resolve_home(None), tmp_path / "imports")
    native = NativeOutput("opencode", f"{database}#{SESSION_ID}", SESSION_ID, ("opencode", "-s", SESSION_ID), "/w")
    document = json.dumps({"info": {"directory": "/w"}})
    planned = PlannedFile(Destination("opencode"), str(tmp_path / "doc.json"), document, native=native)
    alone = writer.settle(planned)
    with sqlite3.connect(database) as connection:  # a newer session of the user's, and a newer task child
        for new_id, parent, updated in (("ses_theirs", None, 4_000_000_000_000), ("ses_child", SESSION_ID, 5e12)):
            connection.execute(
                "INSERT INTO session SELECT ?1, project_id, workspace_id, ?2, slug || ?1, directory, path, title, "
                "version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, "
                "cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, "
                "permission, agent, model, time_created, ?3, time_compacting, time_archived FROM session WHERE id = ?4",
                (new_id, parent, updated, SESSION_ID),
            )
    newer = writer.settle(planned)

    assert alone is not None and alone.migration and alone.command == "opencode -c"
    assert newer is not None and newer.picks == "ses_theirs" and not newer.migration


def test_codex_without_an_index_continues_the_migration(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    [fact] = _migrate(tmp_path, Destination("codex")).continue_latest
    assert fact.migration and fact.command == "codex resume --last"  # its first start indexes every rollout


def _index(isolated_homes: dict[str, Path]) -> None:
    """An index file where Codex keeps it: its presence means Codex has run here."""
    isolated_homes["codex"].mkdir(parents=True, exist_ok=True)
    (isolated_homes["codex"] / "state_5.sqlite").write_bytes(b"")


def test_codex_with_an_index_and_no_codex_command_says_how_to_continue(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _index(isolated_homes)
    monkeypatch.setenv("SMIG_CODEX_BIN", str(tmp_path / "missing" / "codex"))
    result = _migrate(tmp_path, Destination("codex"))
    [fact] = result.continue_latest
    assert not fact.migration and fact.picks is None
    assert "smig found no `codex` to show it this one; SMIG_CODEX_BIN can name it" in fact.sentence
    assert fact.sentence.endswith(f"`codex resume {result.outputs[0].session_id}` continues it.")


FAKE_APP_SERVER = """
import json, sys
mode = sys.argv[2] if len(sys.argv) > 2 else ""
if sys.argv[1] != "app-server":
    sys.exit(2)
if mode == "exit":
    sys.exit(0)
listed = False
for line in sys.stdin:
    message = json.loads(line)
    number, method, params = message.get("id"), message.get("method"), message.get("params", {})
    if number is None:
        continue
    print(json.dumps({"method": "thread/started", "params": {}}), flush=True)  # a notification first
    if method == "thread/read" and mode == "refuse":
        print(json.dumps({"id": number, "error": {"code": -32600, "message": "no rollout found"}}), flush=True)
        continue
    if method == "thread/read":
        listed = True
        print(json.dumps({"id": number, "result": {"thread": {"id": params["threadId"]}}}), flush=True)
        continue
    rows = []
    if method == "thread/list" and params.get("includedThreadIds") and listed:
        rows = [{"id": params["includedThreadIds"][0]}]
    elif method == "thread/list" and params.get("cwd"):
        rows = [{"id": "newer-thread-of-theirs"}]
    print(json.dumps({"id": number, "result": {"data": rows}}), flush=True)
"""


def _fake_codex(tmp_path: Path, mode: str) -> str:
    """An executable that speaks the app-server protocol the way this test needs."""
    script = tmp_path / "fake-codex"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.argv.append({mode!r})\n{FAKE_APP_SERVER}", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("", "picks session newer-thread-of-theirs (Codex knows of a newer thread there), not this migration"),
        ("refuse", "(Codex's app server did not add it to its index: it could not read the thread (no rollout found))"),
        ("exit", "(Codex's app server did not add it to its index: `codex app-server` ended before it answered)"),
    ],
)
def test_codex_with_an_index_asks_its_app_server_and_says_what_it_answered(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, expected: str
) -> None:
    _index(isolated_homes)
    monkeypatch.setenv("SMIG_CODEX_BIN", _fake_codex(tmp_path, mode))
    [fact] = _migrate(tmp_path, Destination("codex")).continue_latest
    assert expected in fact.sentence and not fact.migration
