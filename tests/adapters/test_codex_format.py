"""The Codex reader on real public rollouts and on the checked-in CODEX_HOME fixture tree."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from smig_tui.adapters import jsonl, zstd_files
from smig_tui.adapters.agents.codex import scan as codex_scan
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource, classify, iso_from_mtime
from smig_tui.adapters.paths import resolve_paths
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import Kind, ReadWarning, Role, Session, SessionInfo
from smig_tui.services import Services

MAIN = "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"
OTHER = "01a1fd63-3620-7b2c-83d4-e5f6a7b8c9d0"
EXEC = "01a1fe68-2300-7c3d-84e5-f6a7b8c9d0e1"
SUBAGENT = "01a1f866-a940-7d4e-85f6-a7b8c9d0e1f2"
CORRUPT = "01a20244-e800-7e5f-86a7-b8c9d0e1f2a3"
TRUNCATED = "01a20305-2ac0-7f6a-87b8-c9d0e1f2a3b4"
BARE = "5b7e0d2a-3c4f-4a8b-9d1e-2f3a4b5c6d7e"


def _source() -> CodexSource:
    return CodexSource(codex_home())


def _discover(
    source: CodexSource | None = None,
) -> tuple[dict[str, SessionInfo], list[ReadWarning]]:
    warnings: list[ReadWarning] = []
    infos = list((source or _source()).discover(warnings.append))
    return {info.id: info for info in infos}, warnings


def _info_for(path: Path) -> SessionInfo:
    """Describe a file that is not under CODEX_HOME, the way `smig show PATH` would."""
    source = _source()
    info = source.describe(str(path), lambda _: None)
    assert info is not None
    return info


def _load(path: Path) -> tuple[Session, list[ReadWarning]]:
    warnings: list[ReadWarning] = []
    session = _source().load(_info_for(path), warnings.append)
    return session, warnings


def _shared(shared_fixtures: Path, stem: str) -> Path:
    [path] = [p for p in (shared_fixtures / "codex").iterdir() if stem in p.name]
    return path


def _kinds(session: Session) -> Counter[tuple[str, str]]:
    return Counter((m.role.value, m.kind.value) for m in session.messages)


def _pairs(session: Session) -> tuple[set[str], set[str]]:
    calls = {m.call_id for m in session.messages if m.kind is Kind.TOOL_CALL and m.call_id}
    results = {m.call_id for m in session.messages if m.kind is Kind.TOOL_RESULT and m.call_id}
    return calls, results


def _fingerprint(root: Path) -> dict[str, tuple[int, int, str]]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            stat = path.stat()
            out[str(path)] = (
                stat.st_size,
                stat.st_mtime_ns,
                hashlib.sha256(path.read_bytes()).hexdigest(),
            )
    return out


def _write_rollout(path: Path, records: list[dict[str, Any]], extra: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode()
    path.write_bytes(body + extra)
    return path


def _meta(session_id: str, **extra: Any) -> dict[str, Any]:
    payload = {
        "id": session_id,
        "timestamp": "2026-11-23T10:00:00.000Z",
        "cwd": "/home/user/tmpproj",
        "originator": "codex-tui",
        "cli_version": "0.128.0",
        "source": "cli",
        **extra,
    }
    return {"timestamp": "2026-11-23T10:00:00.100Z", "type": "session_meta", "payload": payload}


def _item(payload: dict[str, Any], second: int = 1) -> dict[str, Any]:
    return {
        "timestamp": f"2026-11-23T10:00:{second:02d}.000Z",
        "type": "response_item",
        "payload": payload,
    }


def _token_count(total: int, last: int) -> dict[str, Any]:
    def usage(n: int) -> dict[str, int]:
        return {
            "input_tokens": n - 10,
            "cached_input_tokens": 0,
            "output_tokens": 10,
            "reasoning_output_tokens": 0,
            "total_tokens": n,
        }

    info = {
        "total_token_usage": usage(total),
        "last_token_usage": usage(last),
        "model_context_window": 200000,
    }
    return {
        "timestamp": "2026-11-23T10:00:30.000Z",
        "type": "event_msg",
        "payload": {"type": "token_count", "info": info, "rate_limits": None},
    }


# --- real public rollouts -----------------------------------------------------------------------


def test_every_shared_rollout_loads_cleanly_and_pairs_its_tools(shared_fixtures: Path) -> None:
    files = sorted((shared_fixtures / "codex").glob("*.jsonl"))
    assert len(files) >= 6
    before = _fingerprint(shared_fixtures / "codex")
    for path in files:
        session, warnings = _load(path)
        assert warnings == [], path.name
        assert [m.index for m in session.messages] == list(range(len(session.messages)))
        assert len({m.id for m in session.messages}) == len(session.messages)
        calls, results = _pairs(session)
        assert results <= calls, path.name  # no tool output without its call
        assert session.info.message_count == len(session.messages)
    assert _fingerprint(shared_fixtures / "codex") == before


def test_exec_rollout_077_shell_tool_and_instructions(shared_fixtures: Path) -> None:
    session, _ = _load(_shared(shared_fixtures, "2026-01-02T18-39-45"))
    info = session.info
    assert info.id == "019b7f94-51b4-7593-922e-ba12b5b73b52"
    assert (info.source_version, info.origin, info.is_subagent) == ("0.77.0", "exec", True)
    assert info.cwd == "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code"
    assert info.model == "gpt-5-1-codex-2025-11-13"
    assert session.instructions and session.instructions.startswith("## Skills")
    assert _kinds(session) == Counter(
        {
            ("user", "text"): 3,
            ("assistant", "reasoning"): 3,
            ("assistant", "tool_call"): 3,
            ("tool", "tool_result"): 3,
        }
    )
    users = [m for m in session.messages if m.role is Role.USER]
    assert [m.injected for m in users] == [True, True, False]
    assert users[2].text.startswith("what is current repository about?")
    reasoning = [m for m in session.messages if m.kind is Kind.REASONING]
    assert [m.opaque for m in reasoning] == [True, True, False]
    assert reasoning[2].text.startswith("**Clarifying documentation instructions**")
    calls = [m for m in session.messages if m.kind is Kind.TOOL_CALL]
    assert {m.tool_name for m in calls} == {"shell"}
    first_result = next(m for m in session.messages if m.kind is Kind.TOOL_RESULT)
    assert first_result.text.startswith("_bmad\n_bmad-output\n")  # JSON envelope unwrapped
    assert not first_result.is_error and first_result.tool_name == "shell"
    # Re-emitted identical token_count events count once: three distinct calls, three usages.
    assert [m.usage.context_tokens for m in calls if m.usage] == [7381, 7606, 7787]
    assert session.measured_context_tokens == 7787 == info.context_tokens
    assert info.context_window == 258400


def test_filtered_desktop_rollout_keeps_event_only_prompts(shared_fixtures: Path) -> None:
    session, _ = _load(_shared(shared_fixtures, "2026-05-11T13-28-45"))
    info = session.info
    assert (info.origin, info.is_subagent, info.source_version) == (
        "vscode",
        False,
        "0.128.0-alpha.1",
    )
    assert info.model is None  # this capture has no turn_context lines
    assert info.title and info.title.startswith("analyze trascript and summarzie action items")
    prompts = [m for m in session.messages if m.role is Role.USER]
    assert [m.id for m in prompts] == ["L2", "L31", "L33"]
    assert prompts[0].text.startswith("analyze trascript")  # "## My request for Codex:" preamble gone
    assert session.messages[0].id == "L2"
    counts = _kinds(session)
    assert counts[("assistant", "tool_call")] == counts[("tool", "tool_result")] == 38
    assert counts[("assistant", "text")] == 3
    assert sum(m.opaque for m in session.messages) == 16
    calls, results = _pairs(session)
    assert calls == results
    failed = [m for m in session.messages if m.is_error]
    assert len(failed) == 1 and "Process exited with code 1" in failed[0].text


def test_interrupted_rollout_ends_with_a_dangling_call(shared_fixtures: Path) -> None:
    session, _ = _load(_shared(shared_fixtures, "2026-02-23T13-19-38"))
    last = session.messages[-1]
    assert last.kind is Kind.TOOL_CALL and last.call_id == "call_UtYwHmwWekzvq83m8Rb9K8jJ"
    calls, results = _pairs(session)
    assert calls - results == {"call_UtYwHmwWekzvq83m8Rb9K8jJ"}
    assert last.usage is not None and last.usage.context_tokens == 34900
    assert last.usage.cached_input_tokens == 3456 and last.usage.reasoning_tokens == 264
    assert session.info.model == "gpt-5.3-codex"
    assert session.info.origin == "vscode" and session.extra["originator"] == "Codex Desktop"
    developer = [m for m in session.messages if m.role is Role.DEVELOPER]
    assert len(developer) == 4 and all(m.injected for m in developer)


def test_complete_single_turn_rollout(shared_fixtures: Path) -> None:
    session, _ = _load(_shared(shared_fixtures, "2026-02-23T20-34-25"))
    counts = _kinds(session)
    assert counts[("assistant", "tool_call")] == counts[("tool", "tool_result")] == 5
    assert counts[("assistant", "text")] == 6 and counts[("assistant", "reasoning")] == 6
    calls, results = _pairs(session)
    assert calls == results
    assert session.measured_context_tokens == 63727
    assert session.info.updated == "2026-02-23T19:36:02.635Z"


def test_catalogue_rollout_applies_the_last_replacement_history(shared_fixtures: Path) -> None:
    session, _ = _load(_shared(shared_fixtures, "stage0-codex-small"))
    info = session.info
    assert info.id == "019fc8be-3658-7ca3-9e29-000000000000"  # the first of its seven session_meta lines
    assert (info.cwd, info.source_version, info.is_subagent) == ("/tmp/repo", "0.146.0", False)
    assert session.compactions == 6
    assert all(m.id.startswith("L111.") for m in session.messages[:13])
    assert [m.id for m in session.messages[13:]] == ["L114", "L115", "L116"]
    summaries = [m for m in session.messages if m.kind is Kind.SUMMARY]
    assert any(m.opaque for m in summaries)  # the encrypted remote-compaction item
    assert session.messages[15].text.startswith("[agent message from ")
    assert session.measured_context_tokens is None  # zero usage logged after the last compaction


def test_rate_limit_only_rollout_has_no_messages_and_no_warnings(shared_fixtures: Path) -> None:
    session, warnings = _load(_shared(shared_fixtures, "codex_053_rate_limit"))
    assert session.messages == () and warnings == []
    assert session.measured_context_tokens == 12273  # the later info:null line does not erase it
    assert session.info.title is None


# --- discovery on the fixture home ---------------------------------------------------------------


def test_discovery_lists_every_rollout_newest_first(fake_home: dict[str, Path]) -> None:
    source = _source()
    warnings: list[ReadWarning] = []
    infos = list(source.discover(warnings.append))
    assert warnings == []
    assert [info.id for info in infos] == [TRUNCATED, CORRUPT, EXEC, OTHER, SUBAGENT, MAIN, BARE]
    by_id = {info.id: info for info in infos}
    main = by_id[MAIN]
    assert main.title == "Add --verbose flag to the CLI"  # session_index.jsonl, last row wins
    assert (main.cwd, main.project, main.model, main.source_version) == (
        "/home/user/proj",
        "/home/user/proj",
        "gpt-5.5",
        "0.128.0",
    )
    assert main.created == "2026-11-20T10:00:00.000Z"
    assert main.updated == "2026-11-20T10:03:33.490Z"
    assert (main.context_tokens, main.context_window) == (10570, 258400)
    assert main.message_count is None  # unknown until a full read
    assert by_id[OTHER].title == "What does the Makefile's check target run?"
    assert by_id[OTHER].cwd == "/home/user/other" and by_id[OTHER].origin == "vscode"
    assert (by_id[EXEC].is_subagent, by_id[EXEC].origin) == (True, "exec")
    sub = by_id[SUBAGENT]
    assert (sub.is_subagent, sub.parent_id, sub.origin) == (True, MAIN, "subagent:thread_spawn")
    bare = by_id[BARE]
    assert (bare.cwd, bare.title, bare.is_subagent) == (
        "/home/user/legacy",
        "Port the setup.py to pyproject.toml.",
        False,
    )


def test_services_hide_exec_and_subagents_unless_asked(fake_home: dict[str, Path]) -> None:
    paths = resolve_paths()
    services = Services(paths=paths, sources=[CodexSource(codex_home())])
    shown = {info.id for info in services.list_sessions()}
    assert shown == {MAIN, OTHER, CORRUPT, TRUNCATED, BARE}
    everything = {info.id for info in services.list_sessions(include_subagents=True)}
    assert everything == shown | {EXEC, SUBAGENT}
    in_other = [info.id for info in services.list_sessions(cwd="/home/user/other")]
    assert in_other == [OTHER]
    assert services.find_session(MAIN[:13]).id == MAIN


def test_reading_never_modifies_the_codex_home(fake_home: dict[str, Path]) -> None:
    before = _fingerprint(fake_home["codex"])
    source = _source()
    for info in source.discover(lambda _: None):
        source.load(info, lambda _: None)
    assert _fingerprint(fake_home["codex"]) == before


THREADS_DDL = (
    "CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL,"
    " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, source TEXT NOT NULL,"
    " model_provider TEXT NOT NULL, cwd TEXT NOT NULL, title TEXT NOT NULL,"
    " sandbox_policy TEXT NOT NULL, approval_mode TEXT NOT NULL,"
    " tokens_used INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0,"
    " archived_at INTEGER, git_sha TEXT, git_branch TEXT, git_origin_url TEXT,"
    " model TEXT, first_user_message TEXT)"
)
"""FORMATS.md 1.12: the initial migration plus the later columns smig reads."""


def _threads_db(path: Path, rows: list[dict[str, Any]], columns: str | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    connection.execute(columns or THREADS_DDL)
    for row in rows:
        keys = ", ".join(row)
        connection.execute(f"INSERT INTO threads ({keys}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
    connection.commit()
    connection.close()


def _row(thread_id: str, title: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": thread_id,
        "rollout_path": f"/gone/{thread_id}.jsonl",
        "created_at": 1,
        "updated_at": 2,
        "source": "cli",
        "model_provider": "openai",
        "cwd": "/home/user/proj",
        "title": title,
        "sandbox_policy": "read-only",
        "approval_mode": "on-request",
        **extra,
    }


def test_state_db_titles_fill_in_but_files_stay_authoritative(fake_home: dict[str, Path]) -> None:
    codex = fake_home["codex"]
    _threads_db(codex / "state_5.sqlite", [_row(OTHER, "stale schema title")])
    _threads_db(
        codex / "state_7.sqlite",
        [
            _row(OTHER, "Makefile check target", model="gpt-5.4-mini"),
            _row(MAIN, "db title loses to the thread name"),
            _row("0199ffff-0000-7000-8000-000000000000", "file is gone"),
        ],
    )
    before = _fingerprint(codex)
    found, warnings = _discover()
    assert warnings == []
    assert found[OTHER].title == "Makefile check target"  # from state_7, the highest number
    assert found[MAIN].title == "Add --verbose flag to the CLI"
    assert "0199ffff-0000-7000-8000-000000000000" not in found
    assert CORRUPT in found  # not in the DB, still listed
    assert _fingerprint(codex) == before  # opened read-only


def test_state_db_with_few_columns_and_sqlite_home(
    fake_home: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "sqlite-home"
    _threads_db(
        elsewhere / "state_5.sqlite",
        [{"id": CORRUPT, "title": "Release workflow on tags"}],
        columns="CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT)",
    )
    monkeypatch.setenv("CODEX_SQLITE_HOME", str(elsewhere))
    found, warnings = _discover()
    assert warnings == []
    assert found[CORRUPT].title == "Release workflow on tags"


def test_corrupt_state_db_is_a_warning_not_a_failure(fake_home: dict[str, Path]) -> None:
    db = fake_home["codex"] / "state_5.sqlite"
    db.write_bytes(b"this is not a database" * 100)
    found, warnings = _discover()
    assert len(found) == 7
    assert len(warnings) == 1 and warnings[0].path == str(db)
    assert "using the rollout files only" in warnings[0].message


def test_damaged_compressed_rollouts_get_one_warning_each(fake_home: dict[str, Path]) -> None:
    day = fake_home["codex"] / "sessions" / "2026" / "11" / "23"
    day.mkdir(parents=True)
    names = [f"rollout-2026-11-23T0{n}-00-00-0199{n}000-0000-7000-8000-000000000000.jsonl.zst" for n in range(3)]
    (day / names[0]).write_bytes(b"\x28\xb5\x2f\xfd")  # a frame header and nothing else
    (day / names[1]).write_bytes(b"not zstd at all\n")
    whole = zstd_files.compress(b'{"timestamp":"2026-11-23T02:00:00Z","type":"session_meta","payload":{}}\n' * 50)
    (day / names[2]).write_bytes(whole[: len(whole) // 2])  # truncated mid-frame
    found, warnings = _discover()
    assert len(found) == 7  # every other session still lists
    assert sorted(w.path.rsplit("/", 1)[1] for w in warnings) == sorted(names)
    assert all(w.message.startswith("compressed rollout is damaged (") for w in warnings)


def test_missing_codex_home_lists_nothing(isolated_homes: dict[str, Path]) -> None:
    assert not isolated_homes["codex"].exists()
    found, warnings = _discover()
    assert found == {} and warnings == []


def test_empty_and_metaless_files_are_skipped_with_a_warning(fake_home: dict[str, Path]) -> None:
    day = fake_home["codex"] / "sessions" / "2026" / "11" / "24"
    day.mkdir(parents=True)
    empty = day / "rollout-2026-11-24T10-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl"
    empty.write_bytes(b"")
    stray = _write_rollout(
        day / "rollout-2026-11-24T11-00-00-0199aaaa-0000-7000-8000-000000000002.jsonl",
        [_item({"type": "message", "role": "user", "content": []})],
    )
    found, warnings = _discover()
    assert len(found) == 7
    assert {(w.path, w.message.split(";")[0]) for w in warnings} == {
        (str(stray), "no session_meta line at the start"),
        (str(empty), "empty rollout file"),
    }


def test_unreadable_folder_is_named_and_the_rest_listed(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = str(fake_home["codex"] / "sessions" / "2026" / "11" / "21")
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if os.fspath(path) == blocked:
            raise PermissionError(13, "Permission denied", blocked)
        return real_scandir(path)

    monkeypatch.setattr(codex_scan.os, "scandir", scandir)
    found, warnings = _discover()
    assert OTHER not in found and EXEC not in found and MAIN in found
    assert [(w.path, w.message) for w in warnings] == [
        (blocked, "cannot read folder (Permission denied); its sessions are not listed")
    ]


_DISCOVER_AS_NOBODY = """
import json, sys
from smig_tui.adapters.agents.codex.home import resolve_home
from smig_tui.adapters.agents.codex.source import CodexSource
warnings = []
ids = [info.id for info in CodexSource(resolve_home()).discover(warnings.append)]
print(json.dumps({"ids": ids, "warned": [warning.path for warning in warnings]}))
"""


def test_chmod_000_folder_is_reported(fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder the user cannot read, for real: root reads any folder, so the listing runs as `nobody`
    (as root without setpriv, and as any other user, it runs in process)."""
    import shutil
    import subprocess
    import sys
    import tempfile

    shared = Path(tempfile.mkdtemp(prefix="smig-nonroot-"))
    try:
        shared.chmod(0o755)
        codex = shared / "codex"
        shutil.copytree(fake_home["codex"], codex)
        blocked = codex / "sessions" / "2026" / "11" / "22"
        blocked.chmod(0)
        as_root = hasattr(os, "geteuid") and os.geteuid() == 0
        if as_root and shutil.which("setpriv"):
            done = subprocess.run(
                [
                    "setpriv",
                    "--reuid=nobody",
                    "--regid=nogroup",
                    "--clear-groups",
                    sys.executable,
                    "-c",
                    _DISCOVER_AS_NOBODY,
                ],
                env={"CODEX_HOME": str(codex), "HOME": str(shared), "PYTHONPATH": str(Path(__file__).parents[2])},
                capture_output=True,
                text=True,
                timeout=600,  # a hang guard only
                check=True,
            )
            found = json.loads(done.stdout)
        elif as_root:
            pytest.skip("root reads any folder, and setpriv (to list as nobody) is not installed")
        else:
            monkeypatch.setenv("CODEX_HOME", str(codex))
            ids, warned = _discover()
            found = {"ids": list(ids), "warned": [warning.path for warning in warned]}
    finally:
        for folder in shared.rglob("*"):
            if folder.is_dir():
                folder.chmod(0o755)
        shutil.rmtree(shared, ignore_errors=True)
    assert CORRUPT not in found["ids"] and MAIN in found["ids"]
    assert found["warned"] == [str(blocked)]


def test_discovery_reads_only_head_and_tail_of_a_big_file(
    isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = (
        isolated_homes["codex"]
        / "sessions"
        / "2026"
        / "11"
        / "23"
        / ("rollout-2026-11-23T10-00-00-0199bbbb-0000-7000-8000-000000000000.jsonl")
    )
    filler = (
        json.dumps(
            _item({"type": "function_call_output", "call_id": "c", "output": "x" * 4000}),
            separators=(",", ":"),
        ).encode()
        + b"\n"
    )
    head = [
        _meta("0199bbbb-0000-7000-8000-000000000000"),
        {
            "timestamp": "2026-11-23T10:00:00.200Z",
            "type": "event_msg",
            "payload": {"type": "user_message", "message": "Big one"},
        },
        {
            "timestamp": "2026-11-23T10:00:00.300Z",
            "type": "turn_context",
            "payload": {"model": "gpt-5.5"},
        },
    ]
    tail = json.dumps(_token_count(900, 500), separators=(",", ":")).encode() + b"\n"
    _write_rollout(path, head, filler * 8000 + tail)  # ~32 MB
    read: list[int] = []
    real_open = open

    class Counting:
        def __init__(self, *args: Any) -> None:
            self._handle = real_open(*args)

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self._handle.close()

        def seek(self, *args: Any) -> int:
            return self._handle.seek(*args)

        def read(self, size: int = -1) -> bytes:
            data = self._handle.read(size)
            read.append(len(data))
            return data

    monkeypatch.setattr(jsonl, "open", Counting, raising=False)
    monkeypatch.setattr(codex_scan, "open", Counting, raising=False)
    [info] = _source().discover(lambda _: None)
    assert (info.title, info.model, info.context_tokens) == ("Big one", "gpt-5.5", 500)
    assert sum(read) < 512 * 1024 < path.stat().st_size // 50  # one head chunk and one tail read


# --- full loads of the fixture sessions ----------------------------------------------------------


def _load_fixture(session_id: str) -> tuple[Session, list[ReadWarning]]:
    found, _ = _discover()
    warnings: list[ReadWarning] = []
    return _source().load(found[session_id], warnings.append), warnings


def test_main_session_is_replaced_by_its_compaction(fake_home: dict[str, Path]) -> None:
    session, warnings = _load_fixture(MAIN)
    assert warnings == [] and session.compactions == 1
    first, summary = session.messages[:2]
    assert (first.id, first.text) == ("L16.1", "How does the CLI parse its arguments?")
    assert summary.kind is Kind.SUMMARY and summary.text.endswith("main() dispatches on it.")
    assert not any("<environment_context>" in m.text for m in session.messages)  # replaced away
    assert _kinds(session) == Counter(
        {
            ("user", "text"): 3,
            ("user", "summary"): 1,
            ("assistant", "reasoning"): 2,
            ("assistant", "tool_call"): 6,
            ("tool", "tool_result"): 6,
            ("assistant", "text"): 2,
        }
    )
    patch = next(m for m in session.messages if m.tool_name == "apply_patch")
    assert patch.text.startswith("*** Begin Patch\n*** Update File: src/proj/cli.py")
    results = {m.call_id: m for m in session.messages if m.kind is Kind.TOOL_RESULT}
    assert results["call_fx02"].text == "Success. Updated the following files:\nM src/proj/cli.py\n"
    assert [cid for cid, m in results.items() if m.is_error] == ["call_fx03", "call_fx05"]
    reasoning = [m for m in session.messages if m.kind is Kind.REASONING]
    assert [m.opaque for m in reasoning] == [False, True]
    assert session.measured_context_tokens == 10570 == session.info.context_tokens
    assert session.messages[-1].usage is not None and session.messages[-1].usage.cached_input_tokens == 9528
    assert session.instructions == "You are Codex, a coding agent running in a terminal. Be concise and precise."
    assert session.extra["git_branch"] == "main"
    info = session.info
    assert (info.message_count, info.model, info.updated) == (
        20,
        "gpt-5.5",
        "2026-11-20T10:03:33.490Z",
    )


def test_image_input_is_marked_not_copied(fake_home: dict[str, Path]) -> None:
    session, _ = _load_fixture(OTHER)
    prompt = next(m for m in session.messages if m.role is Role.USER and not m.injected)
    assert prompt.text == "What does the Makefile's check target run?\n[image]"


def test_corrupt_middle_line_warns_and_the_rest_loads(fake_home: dict[str, Path]) -> None:
    session, warnings = _load_fixture(CORRUPT)
    assert [(Path(w.path).name, w.line) for w in warnings] == [(f"rollout-2026-11-22T08-00-00-{CORRUPT}.jsonl", 5)]
    assert "corrupt JSON line skipped" in warnings[0].message
    assert session.warnings == tuple(warnings)
    assert [m.role for m in session.messages] == [Role.USER, Role.ASSISTANT]


def test_truncated_last_line_warns_and_the_rest_loads(fake_home: dict[str, Path]) -> None:
    session, warnings = _load_fixture(TRUNCATED)
    assert [w.line for w in warnings] == [8] and "truncated last line" in warnings[0].message
    assert session.info.updated == "2026-11-22T11:30:02.770Z"
    assert _discover()[0][TRUNCATED].updated == session.info.updated  # listing skips the half line too
    assert [m.kind for m in session.messages] == [Kind.TEXT, Kind.TOOL_CALL, Kind.TOOL_RESULT]


def test_bare_era_rollout_loads(fake_home: dict[str, Path]) -> None:
    session, warnings = _load_fixture(BARE)
    assert warnings == []
    assert session.info.cwd == "/home/user/legacy"
    assert [m.id for m in session.messages] == ["L2", "L4", "L5", "L6", "L7", "L9"]
    assert session.messages[0].injected and not session.messages[1].injected
    assert session.messages[4].text.startswith("from setuptools import setup")
    assert session.extra == {"git_branch": "master", "git_commit": "9e8d7c6"}


def test_invalid_utf8_is_replaced_and_reported(tmp_path: Path) -> None:
    path = _write_rollout(
        tmp_path / "rollout-2026-11-23T10-00-00-0199cccc-0000-7000-8000-000000000000.jsonl",
        [_meta("0199cccc-0000-7000-8000-000000000000")],
    )
    with path.open("ab") as handle:
        handle.write(
            b'{"timestamp":"2026-11-23T10:00:01.000Z","type":"response_item","payload":{"type":"message",'
            b'"role":"user","content":[{"type":"input_text","text":"caf\xe9 au lait"}]}}\n'
        )
    session, warnings = _load(path)
    assert [(w.line, w.message) for w in warnings] == [(2, "invalid UTF-8 replaced with U+FFFD")]
    assert session.messages[0].text == "caf\ufffd au lait"


def test_missing_file_is_a_one_sentence_error(tmp_path: Path) -> None:
    path = _write_rollout(
        tmp_path / "rollout-2026-11-23T10-00-00-0199dddd-0000-7000-8000-000000000000.jsonl",
        [_meta("0199dddd-0000-7000-8000-000000000000")],
    )
    info = _info_for(path)
    path.unlink()
    with pytest.raises(SessionReadError, match=r"^Cannot read .*: No such file or directory\.$"):
        _source().load(info, lambda _: None)


def test_reemitted_token_count_is_not_attached_twice(tmp_path: Path) -> None:
    path = _write_rollout(
        tmp_path / "rollout-2026-11-23T10-00-00-0199eeee-0000-7000-8000-000000000000.jsonl",
        [
            _meta("0199eeee-0000-7000-8000-000000000000"),
            _item(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "one"}],
                }
            ),
            _token_count(1000, 1000),
            _item(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "two"}],
                }
            ),
            _token_count(1000, 1000),  # the same event again: no new model call
        ],
    )
    session, _ = _load(path)
    one, two = session.messages
    assert one.usage is not None and one.usage.context_tokens == 1000
    assert two.usage is None
    assert session.measured_context_tokens == 1000


def test_less_common_item_shapes(tmp_path: Path) -> None:
    path = _write_rollout(
        tmp_path / "rollout-2026-11-23T10-00-00-0199ffff-0000-7000-8000-000000000000.jsonl",
        [
            _meta("0199ffff-0000-7000-8000-000000000000"),
            _item(
                {
                    "type": "local_shell_call",
                    "call_id": "ls1",
                    "status": "completed",
                    "action": {"type": "exec", "command": ["bash", "-lc", "echo 'hi there'"]},
                }
            ),
            _item(
                {
                    "type": "function_call_output",
                    "call_id": "ls1",
                    "output": [
                        {"type": "input_text", "text": "hi there"},
                        {"type": "input_image", "image_url": "https://x.invalid/a.png"},
                    ],
                }
            ),
            _item(
                {
                    "type": "web_search_call",
                    "status": "completed",
                    "action": {"type": "search", "query": "textual datatable"},
                }
            ),
            _item(
                {
                    "type": "function_call",
                    "name": "search",
                    "namespace": "mcp__docs",
                    "arguments": '{"q":1}',
                    "call_id": "m1",
                }
            ),
            _item(
                {
                    "type": "function_call_output",
                    "call_id": "m1",
                    "output": {"content": "nope", "success": False},
                }
            ),
            _item({"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}}),
            {
                "timestamp": "2026-11-23T10:00:09.000Z",
                "type": "world_state",
                "payload": {"full": True},
            },
            {"timestamp": "2026-11-23T10:00:09.000Z", "type": "something_new", "payload": {"x": 1}},
        ],
    )
    session, warnings = _load(path)
    assert warnings == []
    shell, output, search, call, failed = session.messages
    assert (shell.tool_name, shell.text) == (
        "local_shell",
        "bash -lc 'echo '\"'\"'hi there'\"'\"''",
    )
    assert (output.tool_name, output.text) == (
        "local_shell",
        "hi there\n[image: https://x.invalid/a.png]",
    )
    assert (search.tool_name, search.text) == ("web_search", "search: textual datatable")
    assert call.tool_name == "mcp__docs.search" and failed.is_error and failed.text == "nope"


def test_mtime_fallback_is_iso_utc() -> None:
    assert iso_from_mtime(0.5) == "1970-01-01T00:00:00.500Z"


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        ({"source": "cli"}, (False, None, "cli")),
        ({}, (False, None, "vscode")),  # serde default when the field is absent
        ({"source": "exec", "originator": "codex_exec"}, (True, None, "exec")),
        ({"source": "mcp"}, (True, None, "mcp")),
        ({"source": {"custom": "ci-bot"}}, (True, None, "custom:ci-bot")),
        (
            {"source": {"internal": "memory_consolidation"}},
            (True, None, "internal:memory_consolidation"),
        ),
        ({"source": {"subagent": "review"}}, (True, None, "subagent:review")),
        (
            {"source": {"subagent": {"thread_spawn": {"parent_thread_id": "p-1", "depth": 1}}}},
            (True, "p-1", "subagent:thread_spawn"),
        ),
        ({"source": "cli", "thread_source": "subagent"}, (True, None, "cli")),
        ({"source": "cli", "originator": "codex_exec"}, (True, None, "cli")),
        ({"source": "vscode", "forked_from_id": "f-1"}, (False, "f-1", "vscode")),
    ],
)
def test_sources_that_codex_hides_are_flagged(meta: dict[str, Any], expected: tuple[Any, ...]) -> None:
    assert classify(meta) == expected


def test_title_is_one_line_and_capped(isolated_homes: dict[str, Path]) -> None:
    prompt = "Fix   the\nflaky test " + "in the payments module " * 10
    day = isolated_homes["codex"] / "sessions" / "2026" / "11" / "23"
    _write_rollout(
        day / "rollout-2026-11-23T10-00-00-0199abab-0000-7000-8000-000000000000.jsonl",
        [
            _meta("0199abab-0000-7000-8000-000000000000"),
            {
                "timestamp": "2026-11-23T10:00:01.000Z",
                "type": "event_msg",
                "payload": {
                    "type": "user_message",
                    "message": "\n# Files mentioned by the user:\n\n## a.py: /x/a.py\n\n"
                    "## My request for Codex:\n" + prompt,
                },
            },
        ],
    )
    [info] = _discover()[0].values()
    assert info.title is not None and len(info.title) == 120 and info.title.endswith("…")
    assert info.title.startswith("Fix the flaky test in the payments module in the")


def test_title_falls_back_to_the_first_typed_user_item(isolated_homes: dict[str, Path]) -> None:
    day = isolated_homes["codex"] / "sessions" / "2026" / "11" / "23"
    _write_rollout(
        day / "rollout-2026-11-23T10-00-00-0199acac-0000-7000-8000-000000000000.jsonl",
        [
            _meta("0199acac-0000-7000-8000-000000000000", history_mode="paginated"),
            _item(
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>",
                        }
                    ],
                }
            ),
            _item(
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "Bump the version"}],
                }
            ),
        ],
    )
    [info] = _discover()[0].values()
    assert info.title == "Bump the version"


def test_locked_state_db_is_a_warning(fake_home: dict[str, Path]) -> None:
    db = fake_home["codex"] / "state_5.sqlite"
    _threads_db(db, [_row(OTHER, "never read")])
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        found, warnings = _discover()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert found[OTHER].title == "What does the Makefile's check target run?"
    assert [w.path for w in warnings] == [str(db)] and "locked" in warnings[0].message


def _user(text: str, second: int = 1) -> dict[str, Any]:
    return _item(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        second,
    )


def _assistant(text: str, second: int = 1) -> dict[str, Any]:
    return _item(
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text}],
        },
        second,
    )


def _event(payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-11-23T10:00:20.000Z", "type": "event_msg", "payload": payload}


def test_compaction_without_replacement_keeps_typed_prompts_and_the_summary(tmp_path: Path) -> None:
    path = _write_rollout(
        tmp_path / "rollout-2026-11-23T10-00-00-0199adad-0000-7000-8000-000000000000.jsonl",
        [
            _meta("0199adad-0000-7000-8000-000000000000"),
            _user("<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"),
            _user("first ask"),
            _assistant("first answer"),
            _event({"type": "user_message", "message": "second ask, seen only as an event"}),
            _assistant("second answer"),
            {
                "timestamp": "2026-11-23T10:00:30.000Z",
                "type": "compacted",
                "payload": {"message": "Short summary."},
            },
            _user("third ask", 40),
        ],
    )
    session, warnings = _load(path)
    assert warnings == [] and session.compactions == 1
    assert [(m.kind, m.text) for m in session.messages] == [
        (Kind.TEXT, "first ask"),
        (Kind.TEXT, "second ask, seen only as an event"),
        (Kind.SUMMARY, "Short summary."),
        (Kind.TEXT, "third ask"),
    ]
    assert [m.index for m in session.messages] == [0, 1, 2, 3]


def test_thread_rollback_drops_the_newest_user_turns(tmp_path: Path) -> None:
    path = _write_rollout(
        tmp_path / "rollout-2026-11-23T10-00-00-0199aeae-0000-7000-8000-000000000000.jsonl",
        [
            _meta("0199aeae-0000-7000-8000-000000000000"),
            _user("# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>\nbe brief\n</INSTRUCTIONS>"),
            _user("turn one"),
            _assistant("answer one"),
            _user("turn two"),
            _assistant("answer two"),
            _token_count(900, 900),
            _user("turn three"),
            _assistant("answer three"),
            _event({"type": "thread_rolled_back", "num_turns": 2}),
            _user("turn two, edited", 50),
            _assistant("answer two, edited", 51),
        ],
    )
    session, _ = _load(path)
    assert [m.text for m in session.messages] == [
        "# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>\nbe brief\n</INSTRUCTIONS>",
        "turn one",
        "answer one",
        "turn two, edited",
        "answer two, edited",
    ]
    assert all(m.usage is None for m in session.messages)  # the call that produced it was rolled back
    assert session.measured_context_tokens is None and session.info.context_tokens is None


def test_a_line_that_is_not_an_object_is_reported(tmp_path: Path) -> None:
    path = _write_rollout(
        tmp_path / "rollout-2026-11-23T10-00-00-0199afaf-0000-7000-8000-000000000000.jsonl",
        [_meta("0199afaf-0000-7000-8000-000000000000")],
        b'["not", "a", "record"]\n' + json.dumps(_user("still read")).encode() + b"\n",
    )
    session, warnings = _load(path)
    assert [(w.line, w.message) for w in warnings] == [(2, "line is JSON list, not an object; skipped")]
    assert [m.text for m in session.messages] == ["still read"]


def test_byte_test_skips_noise_and_keeps_only_iso_times() -> None:
    from smig_tui.adapters.agents.codex.load import RolloutLoader

    def line(stamp: str, kind: str, inner: str) -> bytes:
        return json.dumps(
            {"timestamp": stamp, "type": kind, "payload": {"type": inner, "x": 1}}, separators=(",", ":")
        ).encode()

    loader = RolloutLoader("unused.jsonl")
    assert loader.skippable(line("2026-11-23T10:00:01.000Z", "event_msg", "exec_command_end"))
    assert loader.last_timestamp == "2026-11-23T10:00:01.000Z"
    assert loader.skippable(line("yesterday at noon", "event_msg", "task_started"))
    assert loader.last_timestamp == "2026-11-23T10:00:01.000Z"  # not a time: the last one stands
    assert loader.skippable(line("2026-11-23T10:00:02Z", "world_state", "x"))
    assert loader.last_timestamp == "2026-11-23T10:00:02Z"
    for kind, inner in (("response_item", "message"), ("event_msg", "token_count"), ("event_msg", "user_message")):
        assert not loader.skippable(line("2026-11-23T10:00:03.000Z", kind, inner))
        assert not loader.skippable(line("not a time at all", kind, inner))
    assert loader.last_timestamp == "2026-11-23T10:00:02Z"  # a kept line's time is taken when it is fed
