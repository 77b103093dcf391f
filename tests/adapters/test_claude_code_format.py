"""The Claude Code reader on the public transcripts in ../shared and on the fixture home."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from smig_tui.adapters.agents.claude import load as claude_load
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.paths import resolve_paths
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import Kind, ReadWarning, Role, Session, SessionInfo
from smig_tui.services import Services

MAIN = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"
CORRUPT = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
MY_APP = "9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f"
SUBAGENT = "agent-a1b2c3d"
OLD_SUBAGENT = "agent-4f3e2d1c"
SHAPE_CATALOG = "stage0-claude-small"
"""jazzyalex's catalogue of record shapes: values trimmed or invented; only robustness counts."""


def _source() -> ClaudeSource:
    return ClaudeSource(claude_home())


def _discover(
    source: ClaudeSource | None = None,
) -> tuple[dict[str, SessionInfo], list[ReadWarning]]:
    warnings: list[ReadWarning] = []
    infos = {info.id: info for info in (source or _source()).discover(warnings.append)}
    return infos, warnings


def _load(info: SessionInfo) -> tuple[Session, list[ReadWarning]]:
    warnings: list[ReadWarning] = []
    return _source().load(info, warnings.append), warnings


def _records(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_bytes().splitlines() if line.strip()]


def _place_shared(shared: Path, claude_home: Path) -> dict[str, Path]:
    """Lay the public files out as Claude Code does: a project per repo, sub-agents nested."""
    placed: dict[str, Path] = {}
    for source in sorted((shared / "claude").glob("*.jsonl")):
        owner, repo, *rest = source.name.split("__")
        relative = Path(rest[-3], "subagents", rest[-1]) if "subagents" in rest else Path(rest[-1])
        target = claude_home / "projects" / f"-src-{repo}" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        placed[target.stem] = target
    return placed


@pytest.fixture
def shared_home(shared_fixtures: Path, isolated_homes: dict[str, Path]) -> dict[str, Path]:
    return _place_shared(shared_fixtures, isolated_homes["claude"])


def _eligible(records: list[dict[str, Any]], subagent: bool) -> list[dict[str, Any]]:
    return [
        record
        for record in records
        if record.get("type") in ("user", "assistant") and (subagent or not record.get("isSidechain"))
    ]


def _last_usage(records: list[dict[str, Any]], subagent: bool) -> tuple[int, str]:
    """The context size and model of the last real assistant record, straight from the JSON."""
    for record in reversed(_eligible(records, subagent)):
        message = record["message"]
        if record["type"] == "assistant" and message.get("model") != "<synthetic>":
            usage = message["usage"]
            total = (
                usage["input_tokens"]
                + usage.get("cache_creation_input_tokens", 0)
                + usage.get("cache_read_input_tokens", 0)
            )
            if total:
                return total, message["model"]
    raise AssertionError("no assistant usage")


# --- the public transcripts -------------------------------------------------------------------


def test_every_shared_file_is_discovered_and_loads_cleanly(shared_home: dict[str, Path]) -> None:
    infos, warnings = _discover()
    assert warnings == []
    assert set(infos) == set(shared_home)
    for name, info in infos.items():
        session, load_warnings = _load(info)
        assert load_warnings == [], name
        assert session.messages, name
        assert [message.index for message in session.messages] == list(range(len(session.messages)))
        assert len({message.id for message in session.messages}) == len(session.messages), name
        assert session.info.message_count == len(session.messages)
        calls = {m.call_id: m.index for m in session.messages if m.kind is Kind.TOOL_CALL}
        results = {m.call_id: m.index for m in session.messages if m.kind is Kind.TOOL_RESULT}
        assert set(calls) == set(results), name  # every tool_use is answered, nothing dangles
        assert all(calls[call] < results[call] for call in calls), name


def test_shared_linear_files_keep_every_content_block(shared_home: dict[str, Path]) -> None:
    """Split records give one message per block; parallel results on side branches are kept."""
    infos, _ = _discover()
    skipped = {
        SHAPE_CATALOG,
        "agent-acompact-e1f845",
    }  # the latter starts with 3 records whose parents are elsewhere
    for name, info in infos.items():
        if name in skipped:
            continue
        eligible = _eligible(_records(info.path), info.is_subagent)
        blocks = sum(1 if isinstance(r["message"]["content"], str) else len(r["message"]["content"]) for r in eligible)
        session, _ = _load(info)
        assert len(session.messages) == blocks, name
        kinds = Counter(m.kind for m in session.messages)
        raw_uses = sum(
            1
            for r in eligible
            if isinstance(r["message"]["content"], list)
            for b in r["message"]["content"]
            if b["type"] == "tool_use"
        )
        assert kinds[Kind.TOOL_CALL] == raw_uses == kinds[Kind.TOOL_RESULT], name


def test_turn_2_parallel_results_hang_off_side_branches_yet_are_kept(
    shared_home: dict[str, Path],
) -> None:
    records = _records(str(shared_home["turn-2"]))
    parents = Counter(r.get("parentUuid") for r in records if r.get("type") in ("user", "assistant"))
    assert max(parents.values()) >= 2  # the file really branches
    infos, _ = _discover()
    session, _ = _load(infos["turn-2"])
    assert Counter(m.kind for m in session.messages)[Kind.TOOL_RESULT] == 14


def test_split_assistant_records_share_one_usage(shared_home: dict[str, Path]) -> None:
    infos, _ = _discover()
    session, _ = _load(infos["short"])
    records = _eligible(_records(str(shared_home["short"])), False)
    responses = {r["message"]["id"] for r in records if r["type"] == "assistant"}
    assert len(responses) == 1  # five records, one API response
    assistant = [m for m in session.messages if m.role is Role.ASSISTANT]
    assert [m.kind for m in assistant] == [
        Kind.TEXT,
        Kind.REASONING,
        Kind.TEXT,
        Kind.TOOL_CALL,
        Kind.TOOL_CALL,
    ]
    with_usage = [m for m in session.messages if m.usage is not None]
    assert with_usage == [assistant[-1]]
    assert with_usage[0].usage is not None and with_usage[0].usage.context_tokens == 3 + 13835 + 11515
    assert with_usage[0].usage.cached_input_tokens == 11515
    assert session.measured_context_tokens == 25353
    rejected = [m for m in session.messages if m.kind is Kind.TOOL_RESULT]
    assert [m.is_error for m in rejected] == [True, True]
    interrupted = [m for m in session.messages if m.text.startswith("[Request interrupted")]
    assert len(interrupted) == 1 and interrupted[0].injected
    assert not any(m.text == "" and m.kind is Kind.REASONING for m in session.messages)


def test_shared_usage_model_cwd_and_version_come_from_the_records(
    shared_home: dict[str, Path],
) -> None:
    infos, _ = _discover()
    for name, info in infos.items():
        if name == SHAPE_CATALOG:
            continue
        records = _records(info.path)
        tokens, model = _last_usage(records, info.is_subagent)
        session, _ = _load(info)
        assert (info.context_tokens, info.model) == (tokens, model), name
        assert (session.measured_context_tokens, session.info.model) == (tokens, model), name
        first_cwd = next(r["cwd"] for r in records if "cwd" in r)
        assert info.cwd == session.info.cwd == first_cwd, name
        assert info.source_version == records[-1].get("version", info.source_version), name
        assert info.updated == [r["timestamp"] for r in records if "timestamp" in r][-1], name
    assert infos["short"].cwd == "/home/marco/projects/spotter"
    assert infos["short"].source_version == "2.1.38" and infos["session-9eda1058"].source_version == "2.1.4"
    assert infos["4c2ddfdc-b619-4525-8d03-1950fb1b0257"].cwd == "/tmp/private"


def test_shared_titles(shared_home: dict[str, Path]) -> None:
    infos, _ = _discover()
    catalogue = infos[SHAPE_CATALOG]
    assert catalogue.title == "Stage0 small fixture"  # custom-title beats ai-title and summary
    session, _ = _load(catalogue)
    assert session.info.title == "Stage0 small fixture"
    summaries = [r["summary"] for r in _records(infos["session-9eda1058"].path) if r["type"] == "summary"]
    assert len(summaries) == 16
    assert infos["session-9eda1058"].title == summaries[-1]
    assert infos["short"].title == "mix phx.server doesnt seem to start"
    assert infos["subagent"].title is not None and infos["subagent"].title.startswith(
        "/handgemacht:create-beads websearch to learn"
    )


def test_shared_subagents_are_recognised_with_their_parents(shared_home: dict[str, Path]) -> None:
    infos, _ = _discover()
    subagents = {name for name, info in infos.items() if info.is_subagent}
    assert subagents == {
        "agent-36541525",
        "agent-a485154",
        "agent-a2898e3",
        "agent-acompact-e1f845",
    }
    assert infos["agent-36541525"].parent_id == "4c2ddfdc-b619-4525-8d03-1950fb1b0257"  # old layout: sessionId
    assert infos["agent-a2898e3"].parent_id == "4d5611e5-241a-462a-8d15-5122611a9569"  # new layout: the path
    assert infos["agent-a485154"].parent_id == "turn-2"
    session, _ = _load(infos["agent-a2898e3"])
    assert sum(m.is_error for m in session.messages) == 8
    assert session.messages[0].role is Role.USER and not session.messages[0].injected


def test_sidechain_records_in_a_main_file_are_left_out(shared_home: dict[str, Path]) -> None:
    infos, _ = _discover()
    records = _records(infos[SHAPE_CATALOG].path)
    sidechain = {r["uuid"] for r in records if r.get("isSidechain") and r.get("type") in ("user", "assistant")}
    assert sidechain
    session, _ = _load(infos[SHAPE_CATALOG])
    assert not any(m.id.split("#")[0] in sidechain for m in session.messages)
    assert not infos[SHAPE_CATALOG].is_subagent


# --- the checked-in fixture home ---------------------------------------------------------------


def test_discovery_groups_by_project_with_the_real_cwd(fake_home: dict[str, Path]) -> None:
    infos, _ = _discover()
    assert set(infos) == {MAIN, CORRUPT, MY_APP, SUBAGENT, OLD_SUBAGENT}
    by_project = Counter(info.project for info in infos.values())
    assert by_project == {"-home-user-proj": 3, "-home-user-my-app": 2}
    assert infos[MY_APP].cwd == "/home/user/my_app"  # not the lossy /home/user/my/app
    assert infos[MAIN].cwd == "/home/user/proj"
    assert (infos[MAIN].title, infos[MY_APP].title) == (
        "Verbose flag for the CLI",
        "Fix login redirect loop",
    )
    assert infos[CORRUPT].title == "Why does the build fail on CI? It passes locally."
    assert infos[MAIN].context_tokens == 4 + 500 + 12000 and infos[MAIN].model == "claude-sonnet-4-5-20250929"
    assert infos[MAIN].origin == "cli" and infos[MAIN].source_version == "2.1.39"
    assert infos[MAIN].created == "2026-03-02T10:00:14.518Z"
    assert infos[MAIN].message_count is None  # unknown until a full read


def test_subagents_hidden_unless_asked(fake_home: dict[str, Path]) -> None:
    services = Services(paths=resolve_paths(), sources=[_source()])
    shown = [info.id for info in services.list_sessions()]
    assert shown == [MY_APP, CORRUPT, MAIN]  # newest first
    everything = {info.id: info for info in services.list_sessions(include_subagents=True)}
    assert set(everything) == {MAIN, CORRUPT, MY_APP, SUBAGENT, OLD_SUBAGENT}
    assert everything[SUBAGENT].parent_id == MAIN and everything[SUBAGENT].is_subagent
    assert everything[OLD_SUBAGENT].parent_id == MY_APP and everything[OLD_SUBAGENT].is_subagent
    assert [info.id for info in services.list_sessions(cwd="/home/user/my_app")] == [MY_APP]


def test_main_session_follows_the_kept_branch_across_the_compaction(
    fake_home: dict[str, Path],
) -> None:
    infos, _ = _discover()
    session, warnings = _load(infos[MAIN])
    assert warnings == []
    texts = [m.text for m in session.messages]
    assert "Now rename it to --debug" not in texts and "Renaming the flag to --debug." not in texts
    assert "Actually keep --verbose, but add a short -v alias" in texts
    assert texts[0] == "Add a --verbose flag to the CLI"  # pre-compaction messages are kept
    assert session.compactions == 1
    [summary] = [m for m in session.messages if m.kind is Kind.SUMMARY]
    assert summary.role is Role.USER and summary.text.startswith("This session is being continued")
    before = [m for m in session.messages if m.index < summary.index]
    assert [m.kind for m in before].count(Kind.TOOL_RESULT) == 3
    assert [m.kind for m in session.messages] == [
        Kind.TEXT,
        Kind.REASONING,
        Kind.TEXT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TEXT,
        Kind.TEXT,
        Kind.TEXT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.SUMMARY,
        Kind.TEXT,
        Kind.TEXT,
        Kind.TEXT,
        Kind.IMAGE,
        Kind.TEXT,
        Kind.TOOL_CALL,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TOOL_RESULT,
        Kind.TEXT,
    ]
    assert [m.index for m in session.messages if m.injected] == [13, 14, 15]
    assert session.info.message_count == 23 and session.info.title == "Verbose flag for the CLI"
    assert session.extra == {"gitBranch": "main", "slug": "quiet-amber-river"}


def test_main_session_blocks_usage_and_ids(fake_home: dict[str, Path]) -> None:
    infos, _ = _discover()
    session, _ = _load(infos[MAIN])
    by_id = {m.id: m for m in session.messages}
    read_call = by_id["a0000004-0000-4000-8000-000000000004"]
    assert (read_call.tool_name, read_call.call_id) == ("Read", "toolu_01Read")
    assert json.loads(read_call.text) == {"file_path": "/home/user/proj/cli.py"}
    assert read_call.usage is not None and read_call.usage.output_tokens == 120  # the final split record's count
    assert read_call.usage.context_tokens == 3 + 1200 + 8000
    assert by_id["a0000002-0000-4000-8000-000000000002"].usage is None
    assert "signature" not in by_id["a0000002-0000-4000-8000-000000000002"].text
    failed = by_id["a0000007-0000-4000-8000-000000000007"]
    assert failed.is_error and failed.role is Role.TOOL and failed.call_id == "toolu_02Bash"
    image, prompt = (
        by_id["a0000019-0000-4000-8000-000000000019#0"],
        by_id["a0000019-0000-4000-8000-000000000019#1"],
    )
    assert (image.kind, image.text) == (
        Kind.IMAGE,
        "[image: image/png]",
    ) and prompt.kind is Kind.TEXT
    assert by_id["a0000023-0000-4000-8000-000000000023"].text == "3 passed in 0.04s"
    assert sum(1 for m in session.messages if m.usage is not None) == 6  # one per API response on the path
    assert session.measured_context_tokens == 12504
    first = session.messages[0]
    assert first.line == 3 and first.timestamp == "2026-03-02T10:00:14.518Z"
    raw = Path(infos[MAIN].path).read_bytes()
    assert first.offset is not None and raw[first.offset :].startswith(b'{"parentUuid":"a0000000')


def test_parallel_tool_results_follow_both_calls(fake_home: dict[str, Path]) -> None:
    infos, _ = _discover()
    session, _ = _load(infos[MAIN])
    tail = session.messages[-5:]
    assert [(m.kind, m.call_id) for m in tail[:4]] == [
        (Kind.TOOL_CALL, "toolu_04Write"),
        (Kind.TOOL_CALL, "toolu_05Bash"),
        (Kind.TOOL_RESULT, "toolu_04Write"),
        (Kind.TOOL_RESULT, "toolu_05Bash"),
    ]
    assert tail[1].usage is not None and tail[0].usage is None


def test_subagent_file_loads_as_its_own_session(fake_home: dict[str, Path]) -> None:
    infos, _ = _discover()
    session, _ = _load(infos[SUBAGENT])
    assert [m.kind for m in session.messages] == [
        Kind.TEXT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TEXT,
    ]
    assert session.info.model == "claude-haiku-4-5-20251001" and session.measured_context_tokens == 3155
    old, _ = _load(infos[OLD_SUBAGENT])
    assert [m.text for m in old.messages] == ["Warmup", "Ready to help."]


def test_corrupt_middle_line_is_reported_and_bridged(fake_home: dict[str, Path]) -> None:
    infos, discover_warnings = _discover()
    path = infos[CORRUPT].path
    assert discover_warnings == []  # a listing leaves line damage to the full read
    session, warnings = _load(infos[CORRUPT])
    assert len(warnings) == 1 and warnings[0].line == 4 and "corrupt JSON line skipped" in warnings[0].message
    assert str(warnings[0]).startswith(f"{path}:4: ")
    assert session.warnings == tuple(warnings)
    assert [m.text for m in session.messages if m.role is Role.USER] == [
        "Why does the build fail on CI?\nIt passes locally.",
        "Bump CI to 3.12 then",
    ]
    assert len(session.messages) == 5


def test_truncated_last_line_is_reported_and_the_rest_loads(fake_home: dict[str, Path]) -> None:
    infos, _ = _discover()
    session, warnings = _load(infos[MY_APP])
    assert [(w.line, w.message) for w in warnings] == [
        (8, "truncated last line skipped (is the session still being written?)")
    ]
    assert len(session.messages) == 5 and session.messages[-1].kind is Kind.TOOL_RESULT
    assert session.measured_context_tokens == 2 + 200 + 7100
    assert session.info.title == "Fix login redirect loop"


def test_invalid_utf8_is_replaced_with_a_warning(isolated_homes: dict[str, Path]) -> None:
    project = isolated_homes["claude"] / "projects" / "-home-user-proj"
    project.mkdir(parents=True)
    source = Path(__file__).parent.parent / "fixtures" / "claude_home" / "projects" / "-home-user-proj"
    raw = (source / f"{MAIN}.jsonl").read_bytes().replace(b"Add a --verbose flag", b"Add a --verb\xffse flag", 1)
    (project / f"{MAIN}.jsonl").write_bytes(raw)
    infos, _ = _discover()
    session, warnings = _load(infos[MAIN])
    assert [(w.line, w.message) for w in warnings] == [(3, "invalid UTF-8 replaced with U+FFFD")]
    assert session.messages[0].text == "Add a --verb\ufffdse flag to the CLI"
    assert len(session.messages) == 23


def test_empty_file_is_skipped_with_a_warning(fake_home: dict[str, Path]) -> None:
    empty = fake_home["claude"] / "projects" / "-home-user-proj" / "0e0e0e0e-0000-4000-8000-000000000000.jsonl"
    empty.write_bytes(b"")
    infos, warnings = _discover()
    assert empty.stem not in infos and len(infos) == 5
    assert ReadWarning(str(empty), None, "empty file; skipped") in warnings


def test_unreadable_directory_is_a_warning(fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = str(fake_home["claude"] / "projects" / "-home-user-my-app")
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:  # root ignores chmod, so the refusal is simulated
        if os.fspath(path) == blocked:
            raise PermissionError(13, "Permission denied", blocked)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    infos, warnings = _discover()
    assert set(infos) == {MAIN, CORRUPT, SUBAGENT}
    assert ReadWarning(blocked, None, "cannot read directory (Permission denied); skipped") in warnings


def test_missing_home_finds_nothing(isolated_homes: dict[str, Path]) -> None:
    assert not isolated_homes["claude"].exists()
    assert _discover() == ({}, [])


def test_unreadable_file_on_load_is_a_session_read_error(fake_home: dict[str, Path]) -> None:
    infos, _ = _discover()
    Path(infos[MAIN].path).unlink()
    with pytest.raises(SessionReadError, match="Cannot read .*5f0c2a9e"):
        _load(infos[MAIN])


def test_reading_never_modifies_files(fake_home: dict[str, Path], shared_fixtures: Path) -> None:
    _place_shared(shared_fixtures, fake_home["claude"])

    def state() -> dict[str, tuple[str, int]]:
        return {
            str(path): (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
            for path in sorted(fake_home["claude"].rglob("*"))
            if path.is_file()
        }

    before = state()
    infos, _ = _discover()
    for info in infos.values():
        _load(info)
    assert state() == before


# --- cost and edge cases on generated files -----------------------------------------------------


def _envelope(uuid: str, parent: str | None, kind: str, **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/work/big",
        "sessionId": "b1b1b1b1-0000-4000-8000-000000000000",
        "version": "2.1.40",
        "gitBranch": "main",
        "type": kind,
    }
    record.update(fields)
    record["uuid"] = uuid
    record["timestamp"] = "2026-04-01T08:00:00.000Z"
    return record


def _write(path: Path, records: list[dict[str, Any] | bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        for record in records:
            line = record if isinstance(record, bytes) else json.dumps(record, separators=(",", ":")).encode()
            handle.write(line + b"\n")


def _progress(uuid: str, parent: str) -> dict[str, Any]:
    nested = {
        "type": "user",
        "uuid": "nested-" + uuid,
        "message": {"role": "user", "content": "x" * 2000},
    }
    return _envelope(uuid, parent, "progress", data={"type": "agent_progress", "message": nested})


def _big_session(path: Path, middle: int) -> None:
    """A session whose bulk is progress records, with a corrupt line deep in the middle."""
    records: list[dict[str, Any] | bytes] = [
        _envelope("u1", None, "user", message={"role": "user", "content": "Index the repository"}),
    ]
    parent = "u1"
    for number in range(middle):
        records.append(_progress(f"p{number}", parent))
        parent = f"p{number}"
        if number == middle // 2:
            records.append(b'{"parentUuid":"p0","isSidechain":false,"type":"user","message":{"role":"us')
    usage = {
        "input_tokens": 7,
        "cache_creation_input_tokens": 70,
        "cache_read_input_tokens": 700,
        "output_tokens": 9,
    }
    message = {
        "model": "claude-opus-4-6",
        "id": "msg_big",
        "role": "assistant",
        "content": [{"type": "text", "text": "Indexed."}],
        "usage": usage,
    }
    records.append(_envelope("a1", parent, "assistant", message=message, requestId="req_big"))
    records.append({"type": "custom-title", "customTitle": "Repository index", "sessionId": "b1"})
    _write(path, records)


def test_discover_reads_only_head_and_tail(isolated_homes: dict[str, Path]) -> None:
    path = isolated_homes["claude"] / "projects" / "-work-big" / "b1b1b1b1-0000-4000-8000-000000000000.jsonl"
    _big_session(path, 2000)
    assert path.stat().st_size > 4 * 1024 * 1024
    infos, warnings = _discover()
    assert warnings == []  # the corrupt line in the middle was never read
    info = infos[path.stem]
    assert (info.title, info.model, info.context_tokens, info.cwd) == (
        "Repository index",
        "claude-opus-4-6",
        777,
        "/work/big",
    )
    session, load_warnings = _load(info)
    assert [w.line for w in load_warnings] == [1003]
    assert [m.text for m in session.messages] == [
        "Index the repository",
        "Indexed.",
    ]  # chained through progress


@pytest.mark.source_only  # counts the compiled reader's calls of the parser
def test_bulky_records_skip_the_json_parser(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    path = isolated_homes["claude"] / "projects" / "-work-big" / "b1b1b1b1-0000-4000-8000-000000000000.jsonl"
    _big_session(path, 300)
    infos, _ = _discover()
    calls = Counter[str]()
    real_parse = claude_load.parse_line

    def counting_parse(*args: Any) -> Any:
        calls["parses"] += 1
        return real_parse(*args)

    monkeypatch.setattr(claude_load, "parse_line", counting_parse)
    _load(infos[path.stem])
    assert calls["parses"] == 4  # user, corrupt line, assistant, custom-title: no progress record


@pytest.mark.parametrize("padding", [0, 400], ids=["small", "summaries-only-in-the-head"])
def test_title_prefers_a_summary_of_its_own_leaf(isolated_homes: dict[str, Path], padding: int) -> None:
    path = isolated_homes["claude"] / "projects" / "-work-big" / "c1c1c1c1-0000-4000-8000-000000000000.jsonl"
    records: list[dict[str, Any] | bytes] = [
        {"type": "summary", "summary": "About this session", "leafUuid": "u1"},
        {"type": "summary", "summary": "About some other session", "leafUuid": "elsewhere"},
        _envelope("u1", None, "user", message={"role": "user", "content": "hello"}),
    ]
    records += [_progress(f"p{number}", "u1") for number in range(padding)]
    _write(path, records)
    assert (path.stat().st_size > 512 * 1024) == bool(padding)
    infos, _ = _discover()
    assert infos[path.stem].title == "About this session"
    session, _ = _load(infos[path.stem])
    assert session.info.title == "About this session"


def test_first_prompt_title_skips_harness_text(isolated_homes: dict[str, Path]) -> None:
    path = isolated_homes["claude"] / "projects" / "-work-big" / "d1d1d1d1-0000-4000-8000-000000000000.jsonl"
    _write(
        path,
        [
            _envelope(
                "u1",
                None,
                "user",
                isMeta=True,
                message={"role": "user", "content": "<local-command-caveat>Caveat: x"},
            ),
            _envelope(
                "u2",
                "u1",
                "user",
                message={"role": "user", "content": "<command-name>/clear</command-name>"},
            ),
            _envelope(
                "u3",
                "u2",
                "user",
                message={"role": "user", "content": "<system-reminder>be brief</system-reminder>"},
            ),
            _envelope(
                "u4",
                "u3",
                "user",
                message={
                    "role": "user",
                    "content": [{"type": "text", "text": "  Real\n  question " + "y" * 200}],
                },
            ),
        ],
    )
    infos, _ = _discover()
    title = infos[path.stem].title
    assert title is not None and title.startswith("Real question yyy") and len(title) == 120
    session, _ = _load(infos[path.stem])
    assert session.info.title == title
    assert [m.injected for m in session.messages] == [True, True, True, False]


def test_cwd_falls_back_to_the_directory_name_only_without_records(
    isolated_homes: dict[str, Path],
) -> None:
    path = isolated_homes["claude"] / "projects" / "-work-lost" / "e1e1e1e1-0000-4000-8000-000000000000.jsonl"
    _write(path, [{"type": "custom-title", "customTitle": "Nothing but a title", "sessionId": "e1"}])
    infos, _ = _discover()
    assert infos[path.stem].cwd == "/work/lost" and infos[path.stem].title == "Nothing but a title"
    session, _ = _load(infos[path.stem])
    assert session.messages == ()


def test_the_newest_leaf_wins_and_a_trailing_sidechain_does_not(
    isolated_homes: dict[str, Path],
) -> None:
    path = isolated_homes["claude"] / "projects" / "-work-big" / "f1f1f1f1-0000-4000-8000-000000000000.jsonl"
    side = _envelope("s1", "u1", "user", message={"role": "user", "content": "side question"})
    side["isSidechain"] = True
    _write(
        path,
        [
            _envelope("u1", None, "user", message={"role": "user", "content": "first try"}),
            _envelope("u2", None, "user", message={"role": "user", "content": "second try"}),
            _envelope("u3", "u2", "user", message={"role": "user", "content": "go on"}),
            side,
        ],
    )
    infos, _ = _discover()
    session, _ = _load(infos[path.stem])
    assert [m.text for m in session.messages] == ["second try", "go on"]


def test_a_huge_first_record_still_yields_cwd_and_title(isolated_homes: dict[str, Path]) -> None:
    path = isolated_homes["claude"] / "projects" / "-work-big" / "a2a2a2a2-0000-4000-8000-000000000000.jsonl"
    pasted = "Explain this log:\n" + "log line\n" * 20_000  # ~180 KB, more than the first head read
    _write(path, [_envelope("u1", None, "user", message={"role": "user", "content": pasted})])
    infos, _ = _discover()
    assert infos[path.stem].cwd == "/work/big"
    assert infos[path.stem].title is not None and infos[path.stem].title.startswith("Explain this log: log line")


def test_typed_text_that_looks_like_a_notice_is_not_flagged(
    isolated_homes: dict[str, Path],
) -> None:
    path = isolated_homes["claude"] / "projects" / "-work-big" / "a3a3a3a3-0000-4000-8000-000000000000.jsonl"
    _write(
        path,
        [
            _envelope(
                "u1",
                None,
                "user",
                message={"role": "user", "content": "Caveat: the API is rate limited"},
            ),
            _envelope("u2", "u1", "user", message={"role": "user", "content": "so retry slowly"}),
        ],
    )
    infos, _ = _discover()
    assert infos[path.stem].title == "so retry slowly"  # never a title
    session, _ = _load(infos[path.stem])
    assert [m.injected for m in session.messages] == [
        False,
        False,
    ]  # but kept as what the user typed


@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.8])
def test_shared_files_cut_anywhere_still_load(
    shared_fixtures: Path, isolated_homes: dict[str, Path], fraction: float
) -> None:
    project = isolated_homes["claude"] / "projects" / "-src-cut"
    project.mkdir(parents=True)
    for source in sorted((shared_fixtures / "claude").glob("*.jsonl")):
        raw = source.read_bytes()
        cut = int(len(raw) * fraction)
        lines = raw[:cut].split(b"\n")
        del lines[len(lines) // 2]  # and lose one line in the middle too
        (project / source.name).write_bytes(b"\n".join(lines))
    infos, _ = _discover()
    assert len(infos) == len(list((shared_fixtures / "claude").glob("*.jsonl")))
    for info in infos.values():
        session, warnings = _load(info)
        assert all(w.path == info.path and w.line is not None for w in warnings)
        assert session.info.message_count == len(session.messages)


def test_hostile_records_are_skipped_not_fatal(isolated_homes: dict[str, Path]) -> None:
    path = isolated_homes["claude"] / "projects" / "-work-big" / "a4a4a4a4-0000-4000-8000-000000000000.jsonl"
    odd_usage = {"input_tokens": "many", "output_tokens": None, "cache_read_input_tokens": True}
    _write(
        path,
        [
            b"[1, 2, 3]",
            b"null",
            _envelope("u1", None, "user", message="not an object"),
            _envelope(
                "u2",
                "u1",
                "user",
                message={
                    "role": "user",
                    "content": [7, None, {"type": "mystery"}, {"type": "text", "text": "hi"}],
                },
            ),
            _envelope(
                "a1",
                "u2",
                "assistant",
                message={"model": 5, "content": {"oops": 1}, "usage": odd_usage},
            ),
            _envelope(
                "a2",
                "a1",
                "assistant",
                message={
                    "id": "m2",
                    "model": "claude-x",
                    "content": [{"type": "tool_use", "input": {"a": {1, 2}.__class__.__name__}}],
                    "usage": odd_usage,
                },
            ),
            {"type": "summary", "summary": 42},
            {"type": "custom-title", "customTitle": None},
        ],
    )
    infos, _ = _discover()
    session, warnings = _load(infos[path.stem])
    assert [w.line for w in warnings] == [1, 2, 3, 4]
    assert "not an object" in warnings[0].message and "unknown type 'mystery'" in warnings[3].message
    assert [(m.kind, m.text) for m in session.messages] == [
        (Kind.TEXT, "hi"),
        (Kind.TOOL_CALL, '{"a": "set"}'),
    ]
    assert session.messages[1].usage is not None and session.messages[1].usage.context_tokens == 0
    assert session.measured_context_tokens is None and session.info.title == "hi"


def test_prompts_queued_mid_turn_are_kept_as_user_messages(isolated_homes: dict[str, Path]) -> None:
    path = isolated_homes["claude"] / "projects" / "-work-big" / "a5a5a5a5-0000-4000-8000-000000000000.jsonl"
    use = {"type": "tool_use", "id": "toolu_q", "name": "Bash", "input": {"command": "make"}}
    call = {"id": "m1", "model": "claude-x", "content": [use]}
    result = [{"type": "tool_result", "tool_use_id": "toolu_q", "content": "ok"}]
    queued = {"type": "queued_command", "prompt": "also run the linter", "commandMode": "prompt"}
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
    }
    blocks = [image, {"type": "text", "text": "and look at this"}]
    _write(
        path,
        [
            _envelope("u1", None, "user", message={"role": "user", "content": "build it"}),
            _envelope("a1", "u1", "assistant", message=call),
            _envelope("q1", "a1", "attachment", attachment=queued),
            _envelope("t1", "q1", "attachment", attachment={"type": "task_reminder", "content": []}),
            {"type": "attachment", "attachment": {"type": "queued_command", "prompt": blocks}},
            _envelope("r1", "t1", "user", message={"role": "user", "content": result}),
        ],
    )
    infos, _ = _discover()
    session, warnings = _load(infos[path.stem])
    assert warnings == []
    assert [(m.role, m.kind, m.text) for m in session.messages] == [
        (Role.USER, Kind.TEXT, "build it"),
        (Role.ASSISTANT, Kind.TOOL_CALL, '{"command": "make"}'),
        (Role.USER, Kind.TEXT, "also run the linter"),
        (Role.USER, Kind.IMAGE, "[image: image/png]"),
        (Role.USER, Kind.TEXT, "and look at this"),
        (Role.TOOL, Kind.TOOL_RESULT, "ok"),
    ]
    assert session.messages[2].id == "q1" and session.messages[3].id == "L5#0"


def test_subagent_type_comes_from_its_meta_sidecar(fake_home: dict[str, Path]) -> None:
    infos, _ = _discover()
    sidecar = Path(infos[SUBAGENT].path).with_suffix(".meta.json")
    assert _load(infos[SUBAGENT])[0].extra == {"gitBranch": "main", "slug": "quiet-amber-river"}
    sidecar.write_text('{"agentType":"general-purpose","spawnDepth":1}')
    assert _load(infos[SUBAGENT])[0].extra["agentType"] == "general-purpose"
    sidecar.write_text("{not json")
    assert "agentType" not in _load(infos[SUBAGENT])[0].extra
