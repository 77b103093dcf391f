"""The Claude Code reader against sessions the real Claude Code 2.1.332 wrote, and what it sent.

`tests/fixtures/real/claude/` holds transcripts made by the real client against a local fake model
server (its README says how), and for each the conversation of the last request the client sent
(plus the model's reply) as the server logged it. `smig show --json` must give the same items, in the
same order. Left out on both sides: harness context the client adds by itself (its own system
prompt, the `role: "system"` environment message it puts after the prompt, `<system-reminder>`
blocks, slash-command echoes), because smig never migrates harness context: the target agent adds
its own. Thinking blocks are left out too (the fake model sends none).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli

from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource

REAL = Path(__file__).parent.parent / "fixtures" / "real" / "claude"
SCENARIOS = sorted(path.stem for path in (REAL / "expected").glob("*.json"))


def _expected(scenario: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / "expected" / f"{scenario}.json").read_text("utf-8"))
    return data


def _run(argv: list[str]) -> tuple[int, str, str]:
    return run_cli(argv, lambda _paths: ClaudeSource(claude_home()))


@pytest.fixture
def real_home(isolated_homes: dict[str, Path]) -> Path:
    """The real transcripts, copied into the temp `CLAUDE_CONFIG_DIR`."""
    projects = isolated_homes["claude"] / "projects"
    shutil.copytree(REAL / "projects", projects)
    return projects


def _show(session_id: str) -> list[dict[str, Any]]:
    code, stdout, stderr = _run(["show", session_id, "--json", "--full"])
    assert code == 0, stderr
    assert stderr == ""
    messages: list[dict[str, Any]] = json.loads(stdout)["messages"]
    return messages


def _as_sent(message: dict[str, Any]) -> tuple[Any, ...]:
    """A smig message in the logged request's terms (a compact summary is a user text there)."""
    kind = "text" if message["kind"] == "summary" else message["kind"]
    return message["role"], kind, message["text"], message["tool_name"], message["call_id"]


def _logged(item: dict[str, Any]) -> tuple[Any, ...]:
    return item["role"], item["kind"], item["text"], item["name"], item["call_id"]


def _conversation(messages: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [_as_sent(m) for m in messages if not m["injected"] and m["kind"] != "reasoning"]


def _last_summary(messages: list[dict[str, Any]]) -> int | None:
    found = [index for index, m in enumerate(messages) if m["kind"] == "summary"]
    return found[-1] if found else None


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_show_equals_what_the_client_sent_last(real_home: Path, scenario: str) -> None:
    expected = _expected(scenario)
    messages = _show(expected["session_id"])
    cut = _last_summary(messages)
    # smig keeps what came before a compaction (a migration to a bigger window can use it); the
    # model's view starts at the summary, so that part is compared with the request.
    in_view = messages if cut is None else messages[cut:]
    assert _conversation(in_view) == [_logged(item) for item in expected["model_saw_last"]]
    if "model_saw_before_compaction" in expected:
        assert cut is not None
        # the history before the summary is what the model saw before the compaction, minus
        # the preserved messages, which now follow the summary as the model receives them
        before = [_logged(item) for item in expected["model_saw_before_compaction"]]
        history = _conversation(messages[:cut])
        assert history == before[: len(history)]
        assert before[len(history) :][:1] == _conversation(messages[cut + 1 :])[:1]


def test_scenarios_cover_the_issue() -> None:
    assert set(SCENARIOS) == {"tools", "fork", "compact", "auto", "synthetic", "workflow"}
    for scenario in ("compact", "auto"):
        assert "model_saw_before_compaction" in _expected(scenario)


@pytest.mark.parametrize("scenario", ["compact", "auto"])
def test_preserved_messages_follow_the_summary(real_home: Path, scenario: str) -> None:
    """Claude Code re-anchors a compaction's preserved messages after its summary; so does smig,
    so that truncation, which keeps the newest messages, keeps them with the summary."""
    expected = _expected(scenario)
    messages = _show(expected["session_id"])
    boundary = _boundary(real_home, expected["session_id"])
    segment = boundary["compactMetadata"]["preservedSegment"]
    ids = [m["id"].split("#")[0] for m in messages]
    summary = ids.index(segment["anchorUuid"])
    assert ids.index(segment["headUuid"]) == summary + 1
    assert ids.index(segment["tailUuid"]) > summary
    assert messages[summary]["kind"] == "summary"


def _boundary(projects: Path, session_id: str) -> dict[str, Any]:
    (path,) = projects.glob(f"*/{session_id}.jsonl")
    for line in path.read_text("utf-8").splitlines():
        record = json.loads(line)
        if record.get("subtype") == "compact_boundary":
            boundary: dict[str, Any] = record
            return boundary
    raise AssertionError("no compact boundary")


def test_synthetic_reply_is_kept_as_the_client_sends_it(real_home: Path) -> None:
    messages = _show(_expected("synthetic")["session_id"])
    (filler,) = [m for m in messages if m["text"] == "No response requested."]
    assert filler["role"] == "assistant" and filler["kind"] == "text"
    assert not filler["injected"]


def test_workflow_agents_are_listed_behind_all(real_home: Path) -> None:
    parent = _expected("workflow")["session_id"]
    code, stdout, _ = _run(["list", "--json"])
    assert code == 0
    assert [row["id"] for row in json.loads(stdout) if row["parent_id"] == parent] == []
    code, stdout, stderr = _run(["list", "--all", "--json"])
    assert code == 0 and stderr == ""
    agents = [row for row in json.loads(stdout) if row["parent_id"] == parent and row["is_subagent"]]
    on_disk = sorted(real_home.glob(f"*/{parent}/subagents/workflows/wf_*/agent-*.jsonl"))
    assert len(on_disk) == 2
    assert sorted(Path(row["path"]).name for row in agents) == [path.name for path in on_disk]
    for row in agents:
        messages = _show(row["id"])
        assert messages[0]["role"] == "user" and "WF-AGENT" in messages[0]["text"]
        assert messages[-1]["role"] == "assistant" and messages[-1]["text"].startswith("ECHO")


def test_a_damaged_workflow_agent_is_one_warning_and_the_rest_list(real_home: Path) -> None:
    parent = _expected("workflow")["session_id"]
    agent = sorted(real_home.glob(f"*/{parent}/subagents/workflows/wf_*/agent-*.jsonl"))[0]
    agent.write_bytes(b"")
    code, stdout, stderr = _run(["list", "--all", "--json"])
    assert code == 0
    [warning, once] = stderr.splitlines()  # the second line: it is not repeated while the file is unchanged
    assert (
        str(agent) in warning and "empty file" in warning and once.startswith("smig: a skipped file is reported once")
    )
    listed = {row["id"] for row in json.loads(stdout)}
    assert {_expected(name)["session_id"] for name in SCENARIOS} <= listed


def test_a_native_fork_is_listed_as_a_fork_of_its_parent(real_home: Path) -> None:
    parent, fork = _expected("tools")["session_id"], _expected("fork")["session_id"]
    code, stdout, _ = _run(["list", "--json"])
    assert code == 0
    rows = {row["id"]: row for row in json.loads(stdout)}
    assert rows[fork]["parent_id"] == parent
    assert rows[fork]["root_record"] == rows[parent]["root_record"] is not None
    assert rows[parent]["parent_id"] is None
    assert rows[fork]["created"] > rows[parent]["created"]  # the fork's own start, not the copied one
    others = [row for row in rows.values() if row["id"] not in (parent, fork)]
    assert all(row["parent_id"] is None for row in others)
    _, table, _ = _run(["list"])  # the table says so too, not only --json
    marked = [line for line in table.splitlines() if f"[fork of {parent[:8]}]" in line]
    assert len(marked) == 1 and fork[:8] in marked[0]
    assert sum("[fork of" in line for line in table.splitlines()) == 1


def test_forks_are_found_again_from_the_listing_cache(real_home: Path, tmp_path: Path) -> None:
    parent, fork = _expected("tools")["session_id"], _expected("fork")["session_id"]
    cache = tmp_path / "listing.json"
    source = ClaudeSource(claude_home(), listing_cache=cache)
    for _ in range(2):  # the second pass takes every entry from the cache
        infos = {info.id: info for info in source.discover(lambda warning: None)}
        assert cache.is_file()
        assert infos[fork].parent_id == parent and infos[parent].parent_id is None


def test_a_lookup_by_id_or_path_keeps_what_it_read_for_the_next_one(
    real_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resolving one session peeks its project's transcripts (to mark forks): what it read is added to the
    listing cache, so the next lookup, in another process, reads none again; a full pass still drops files
    gone since."""
    from smig_tui.adapters.agents.claude import source as claude_source

    peeked: list[str] = []
    real_peek = claude_source._peek

    def counting(candidate: Any, warn: Any) -> Any:
        peeked.append(candidate.path)
        return real_peek(candidate, warn)

    monkeypatch.setattr(claude_source, "_peek", counting)
    cache = tmp_path / "listing.json"
    session = _expected("tools")["session_id"]
    (found,) = ClaudeSource(claude_home(), listing_cache=cache).listed_with_id(session, lambda w: None) or []
    assert found.id == session and peeked and cache.is_file()
    first = len(peeked)
    (again,) = ClaudeSource(claude_home(), listing_cache=cache).listed_with_id(session, lambda w: None) or []
    by_path = ClaudeSource(claude_home(), listing_cache=cache).listed_as(str(Path(found.path).resolve()), print)
    assert again == found == by_path and len(peeked) == first  # no transcript read again
    listed = {info.path for info in ClaudeSource(claude_home(), listing_cache=cache).discover(lambda w: None)}
    Path(found.path).unlink()
    after = {info.path for info in ClaudeSource(claude_home(), listing_cache=cache).discover(lambda w: None)}
    assert after == listed - {found.path}
    assert found.path not in json.loads(cache.read_text(encoding="utf-8"))["files"]


def test_a_persisted_output_counts_as_its_preview_and_points_at_the_full_file(real_home: Path) -> None:
    messages = _show(_expected("tools")["session_id"])
    (persisted,) = [m for m in messages if m["full_output_path"]]
    assert persisted["kind"] == "tool_result"
    assert persisted["text"].startswith("<persisted-output>")  # the preview the model saw
    full = Path(persisted["full_output_path"])
    assert full.parent.name == "tool-results" and full.is_relative_to(real_home)  # found after the move
    assert full.read_text("utf-8").splitlines() == [str(n) for n in range(5001, 30001)]
    assert len(persisted["text"]) < full.stat().st_size // 10


def test_a_persisted_output_whose_file_is_gone_has_no_pointer(real_home: Path) -> None:
    session = _expected("tools")["session_id"]
    (transcript,) = real_home.glob(f"*/{session}.jsonl")
    # as on another machine: the recorded absolute path does not exist, and neither does the copy
    transcript.write_text(transcript.read_text("utf-8").replace("/tmp/smig-real-claude/", "/gone/"), "utf-8")
    for path in real_home.glob(f"*/{session}/tool-results/*"):
        path.unlink()
    messages = _show(session)
    assert all(m["full_output_path"] is None for m in messages)
    assert any(m["text"].startswith("<persisted-output>") for m in messages)


def test_the_markdown_export_says_where_the_full_output_is(real_home: Path) -> None:
    from smig_tui.core.export import to_markdown

    source = ClaudeSource(claude_home())
    (info,) = [i for i in source.discover(lambda w: None) if i.id == _expected("tools")["session_id"]]
    session = source.load(info, lambda w: None)
    markdown = to_markdown(session, session.messages)
    (path,) = {m.full_output_path for m in session.messages if m.full_output_path}
    assert f"_Full output: `{path}` (the model saw the preview above)._" in markdown


def test_a_preserved_segment_that_is_not_there_is_one_warning(real_home: Path) -> None:
    session = _expected("compact")["session_id"]
    (transcript,) = real_home.glob(f"*/{session}.jsonl")
    head = _boundary(real_home, session)["compactMetadata"]["preservedSegment"]["headUuid"]
    text = transcript.read_text("utf-8")
    transcript.write_text(text.replace(f'"headUuid":"{head}"', '"headUuid":"gone"'), "utf-8")
    code, stdout, stderr = _run(["show", session, "--json"])
    assert code == 0
    (warning,) = stderr.splitlines()
    assert str(transcript) in warning and "preservedSegment" in warning and "file order" in warning
    messages = json.loads(stdout)["messages"]
    assert messages[-1]["text"] == _expected("compact")["model_saw_last"][-1]["text"]  # the rest loads
    summary = _last_summary(messages)
    assert summary is not None and [m["id"] for m in messages].index(head) < summary  # as written


@pytest.mark.parametrize("scenario", ["compact", "auto"])
def test_truncation_never_keeps_a_summary_without_its_preserved_messages(real_home: Path, scenario: str) -> None:
    """Whatever the budget, a truncation that keeps the compact summary keeps what the model had
    after it: the preserved messages come after the summary, so newest-first keeps them first."""
    from plan_helpers import measure

    from smig_tui.core.models import Decision, Strategy
    from smig_tui.core.plans import make_plan

    session_id = _expected(scenario)["session_id"]
    source = ClaudeSource(claude_home())
    (info,) = [i for i in source.discover(lambda w: None) if i.id == session_id]
    session = source.load(info, lambda w: None)
    segment = _boundary(real_home, session_id)["compactMetadata"]["preservedSegment"]
    preserved = {m.id for m in session.messages if m.id.split("#")[0] in (segment["headUuid"], segment["tailUuid"])}
    (summary,) = [m.id for m in session.messages if m.kind.value == "summary"]
    counts = [measure(m.text) for m in session.messages]
    total = sum(counts)
    kept_summary = 0
    for budget in range(40, total + 200, 10):
        decision = Decision(target="t", session_tokens=total, window=budget, reserve=0, fits=False)
        kept = {item.message.id for item in make_plan(session, counts, decision, Strategy.TRUNCATE, measure).kept}
        if summary in kept:
            kept_summary += 1
            assert preserved <= kept, budget
    assert kept_summary > 0


def test_lookups_by_id_read_the_listing_cache_once_while_it_is_unchanged(
    real_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lookup by id peeks every transcript of its project (to mark forks), and a preview looks up by id
    each time: the cache file is parsed, and each entry decoded, once while the file is unchanged; the
    entries are the ones a full listing gives, forks marked."""
    from smig_tui.adapters.storage import discovery_cache

    reads: list[Path] = []
    decoded: list[Any] = []
    real_read, real_decode = discovery_cache._read_rows, discovery_cache._decode

    def counting_read(path: Path, version: str) -> Any:
        reads.append(path)
        return real_read(path, version)

    def counting_decode(data: Any) -> Any:
        decoded.append(data)
        return real_decode(data)

    monkeypatch.setattr(discovery_cache, "_read_rows", counting_read)
    monkeypatch.setattr(discovery_cache, "_decode", counting_decode)
    cache = tmp_path / "listing.json"
    listed = {info.id: info for info in ClaudeSource(claude_home(), listing_cache=cache).discover(lambda w: None)}
    parent, fork = _expected("tools")["session_id"], _expected("fork")["session_id"]
    reads.clear()
    for _ in range(3):
        for session in (parent, fork):
            (found,) = ClaudeSource(claude_home(), listing_cache=cache).listed_with_id(session, lambda w: None) or []
            assert found == listed[session]
    assert listed[fork].parent_id == parent
    assert reads == [cache]
    assert 0 < len(decoded) <= len(listed)
    cache.write_text(cache.read_text(encoding="utf-8") + " ", encoding="utf-8")  # another process rewrote it
    (again,) = ClaudeSource(claude_home(), listing_cache=cache).listed_with_id(fork, lambda w: None) or []
    assert again == listed[fork] and reads == [cache, cache]
