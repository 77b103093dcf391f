from __future__ import annotations

import hashlib
import json
import re
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session

from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.writer import CodexWriter, configured_provider, rollout_path, uuid7
from smig_tui.core.handoff import NOTE_PREFIX, migration_note, redact_messages, to_turns
from smig_tui.core.models import Agent, Role, Strategy
from smig_tui.core.native import Destination, Lineage, Turn
from smig_tui.core.plans import left_out, result_messages
from smig_tui.services import build_services

LINEAGE = Lineage("claude", "src-1", "/src.jsonl", "0" * 32, 0, "as-is")
NOW = datetime(2026, 7, 9, 12, 0, 0, tzinfo=UTC)


def test_uuid7_embeds_time_and_version() -> None:
    value = uuid.UUID(uuid7(NOW, bytes(10)))
    assert value.version == 7 and value.variant == uuid.RFC_4122
    assert value.int >> 80 == int(NOW.timestamp() * 1000)


def test_rollout_is_named_in_local_time() -> None:
    path = rollout_path(codex_home(), NOW, "id-1")
    local = NOW.astimezone()
    assert path.parent.parts[-3:] == (f"{local:%Y}", f"{local:%m}", f"{local:%d}")
    assert path.name == f"rollout-{local:%Y-%m-%dT%H-%M-%S}-id-1.jsonl"


def test_provider_comes_from_codex_config(isolated_homes: dict[str, Path]) -> None:
    assert configured_provider(codex_home()) == "openai"
    codex_home().root.mkdir(parents=True)
    (codex_home().root / "config.toml").write_text('model_provider = "fake"\n')
    assert configured_provider(codex_home()) == "fake"


def test_rollout_shape() -> None:
    turns = (
        Turn(Role.USER, "hello", "2026-07-09T11:00:00.000Z"),
        Turn(Role.ASSISTANT, "hi", None),
        Turn(Role.ASSISTANT, "more", None),
        Turn(Role.USER, "again", None),
        Turn(Role.ASSISTANT, "done", None),
    )
    planned = CodexWriter(codex_home()).prepare(
        turns, "/work/proj", LINEAGE, "t", model="gpt-5.5", git_branch="main", now=NOW, note="[smig: note]"
    )
    lines = [json.loads(line) for line in planned.data.splitlines()]
    meta = lines[0]
    assert meta["type"] == "session_meta"
    thread_id = meta["payload"]["id"]
    assert planned.path.endswith(f"-{thread_id}.jsonl") and planned.native.session_id == thread_id
    assert meta["payload"]["source"] == "cli" and meta["payload"]["cwd"] == "/work/proj"
    assert meta["payload"]["model_provider"] == "openai" and meta["payload"]["git"] == {"branch": "main"}
    assert meta["payload"]["smig_lineage"]["source_agent"] == "claude"
    assert "base_instructions" not in meta["payload"]  # it would replace Codex's own system prompt
    events = [(line["type"], line["payload"].get("type")) for line in lines[1:]]
    turn = [("event_msg", "task_started"), ("turn_context", None)]
    close = [("event_msg", "token_count"), ("event_msg", "task_complete")]
    user = [("response_item", "message"), ("event_msg", "user_message")]
    agent = [("response_item", "message"), ("event_msg", "agent_message")]
    note = [("response_item", "message")]  # model-visible, no user_message event: not the preview
    assert events == turn + note + user + agent + agent + close + turn + user + agent + close
    assert lines[3]["payload"]["content"] == [{"type": "input_text", "text": "[smig: note]"}]
    contexts = [line["payload"] for line in lines if line["type"] == "turn_context"]
    assert {c["model"] for c in contexts} == {"gpt-5.5"}
    completes = [line["payload"] for line in lines if line["payload"].get("type") == "task_complete"]
    assert [c["last_agent_message"] for c in completes] == ["more", "done"]
    stamps = [line["timestamp"] for line in lines[1:]]
    assert stamps == sorted(stamps)
    assert planned.native.resume_command == f"cd /work/proj && codex resume {thread_id}"


def test_migrate_writes_rollout_round_trips_and_leaves_source_alone(tmp_path: Path) -> None:
    services = build_services()
    session = make_session(tmp_path / "src", agent=Agent("claude"))
    source_hash = hashlib.sha256(Path(session.info.path).read_bytes()).hexdigest()
    plan = make_plan(session)
    result = services.migrate(session, plan, {Destination("codex")})
    [output] = result.outputs
    assert re.search(r"/sessions/\d{4}/\d{2}/\d{2}/rollout-[\dT-]+-" + output.session_id + r"\.jsonl$", output.path)
    [info] = [i for i in services.list_sessions(agent=Agent("codex")) if i.id == output.session_id]
    back = services.load_session(info)
    lineage = Lineage("claude", session.id, session.info.path, result.migration_id, 0, "as-is")
    expected = [(Role.USER, migration_note(lineage))] + [(t.role, t.text) for t in to_turns(result_messages(plan))]
    assert [(m.role, m.text) for m in back.messages] == expected
    assert back.messages[0].text.startswith(NOTE_PREFIX)
    # Named in session_index.jsonl (one appended line); the preview stays the first typed prompt.
    assert info.title == "↪ from claude: Fix the flaky parser"
    [row] = [json.loads(line) for line in (codex_home().root / "session_index.jsonl").read_text().splitlines()]
    assert row["id"] == output.session_id and row["thread_name"] == info.title
    assert hashlib.sha256(Path(session.info.path).read_bytes()).hexdigest() == source_hash
    assert not list(codex_home().root.glob("state_*.sqlite"))  # the state DB is Codex's


def test_no_cwd_is_a_clear_error(tmp_path: Path) -> None:
    from smig_tui.core.errors import SmigError

    services = build_services()
    session = make_session(tmp_path / "src", cwd=None)
    with pytest.raises(SmigError, match="no working directory"):
        services.migrate(session, make_plan(session), {Destination("codex")})


def _shared_files() -> list[Path]:
    root = Path(__file__).parents[1] / "fixtures" / "public"
    return sorted(p for p in root.glob("*/*.jsonl")) if root.is_dir() else []


@pytest.mark.parametrize("original", _shared_files(), ids=lambda p: p.name[:60])
def test_real_sessions_round_trip_into_both_agents(
    original: Path, isolated_homes: dict[str, Path], shared_fixtures: Path
) -> None:
    from migration_builders import install_shared_fixture

    placed = install_shared_fixture(original, isolated_homes["codex"], isolated_homes["claude"])
    assert placed is not None
    services = build_services()
    info = services.find_session(str(placed))
    session = services.load_session(info)
    source_hash = hashlib.sha256(placed.read_bytes()).hexdigest()
    target = "gpt-5.5" if info.agent == Agent("claude") else "claude-sonnet-4-5"
    plan = services.plan(session, target, "truncate")
    if not session.info.cwd:
        pytest.skip("the fixture records no cwd")
    from smig_tui.core.errors import SmigError
    from smig_tui.services import migrated_messages

    if not to_turns(migrated_messages(plan)):
        with pytest.raises(SmigError, match="no user or assistant messages"):
            services.migrate(session, plan, {Destination("claude"), Destination("codex")})
        assert services.store.list() == []
        return
    result = services.migrate(session, plan, {Destination("claude"), Destination("codex")})
    omitted, omitted_tokens = left_out(plan)
    if plan.strategy is Strategy.AS_IS:
        assert omitted == 0  # harness context is never migrated, so it is not "left out"
    lineage = Lineage(
        info.agent.value,
        session.id,
        session.info.path,
        result.migration_id,
        omitted,
        plan.strategy.value,
        omitted_tokens,
        target,
    )
    note = migration_note(lineage)
    written_messages, redactions = redact_messages(migrated_messages(plan))
    assert result.redactions == redactions
    if plan.placeholder:
        assert plan.placeholder.startswith(f"[smig: {omitted} earlier messages omitted ({omitted_tokens:,} tokens)")
        assert f"{omitted} earlier messages ({omitted_tokens:,} tokens) were left out" in note
    merged = [(t.role, t.text) for t in to_turns(written_messages, note=note)]
    # Codex: the note and the placeholder lead as one model-visible item, out of the picker's preview.
    first, *rest = written_messages
    if plan.placeholder and to_turns(rest):
        separate = [(Role.USER, f"{note}\n\n{first.text}")] + [(t.role, t.text) for t in to_turns(rest)]
    else:
        separate = [(Role.USER, note)] + [(t.role, t.text) for t in to_turns(written_messages)]
    for output in result.outputs:
        [written] = [i for i in services.list_sessions(include_subagents=True) if i.id == output.session_id]
        back = services.load_session(written)
        got = [(m.role, m.text) for m in back.messages]
        assert got == (merged if output.agent == "claude" else separate), output.agent
        roles = [m.role for m in back.messages][1 if output.agent == "codex" else 0 :]
        assert all(a is not b for a, b in zip(roles, roles[1:], strict=False))
    assert hashlib.sha256(placed.read_bytes()).hexdigest() == source_hash
