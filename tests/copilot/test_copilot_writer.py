"""The Copilot CLI writer through `Services.migrate`, and Copilot CLI as a source for the other agents.

Where the session lands, what each event holds (the shape the real client 1.0.102 resumed when written
by hand: the `imported` scenario of tests/fixtures/real/copilot), that smig reads it back and lists it first,
what `copilot --continue` picks in a home with a newer session of the user's own, and that it never
writes over a file. The real client resuming it is tests/e2e/test_copilot_real_client.py.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session

from smig_tui.adapters.agents.copilot.workspace import read_workspace
from smig_tui.adapters.agents.copilot.writer import COPILOT_VERSION, copilot_model
from smig_tui.core.errors import WriteRefusedError
from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent
from smig_tui.core.native import Destination
from smig_tui.services import build_services

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "copilot"
SCENARIOS = json.loads((REAL / "scenarios.json").read_text(encoding="utf-8"))


def _events(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("source", ["codex", "claude", "gemini", "opencode", "qwen", "kilo"])
def test_a_migration_from_each_agent_is_a_session_folder_with_chained_events(
    source: str, isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    project = tmp_path / "My Repo: #1"  # a folder name YAML must quote
    session = make_session(tmp_path / "src", agent=Agent(source), cwd=str(project))
    result = build_services().migrate(session, make_plan(session, "gpt-5.4"), {Destination("copilot")})
    [output] = result.outputs
    folder = isolated_homes["home"] / ".copilot" / "session-state" / output.session_id
    assert Path(output.path) == folder / "events.jsonl" and uuid.UUID(output.session_id).version == 4
    start, *turns = _events(output.path)
    assert start["type"] == "session.start" and start["parentId"] is None
    assert start["data"]["sessionId"] == output.session_id and start["data"]["context"] == {"cwd": str(project)}
    assert (start["data"]["copilotVersion"], start["data"]["producer"]) == (COPILOT_VERSION, "copilot-agent")
    assert start["data"]["smigLineage"]["migrationId"] == result.migration_id
    assert [e["type"] for e in turns] == ["user.message", "assistant.message", "user.message", "assistant.message"]
    assert [e["parentId"] for e in turns] == [e["id"] for e in [start, *turns[:-1]]]
    assert turns[0]["data"]["content"].startswith(NOTE_PREFIX)
    assert turns[1]["data"]["toolRequests"] == [] and turns[1]["data"]["model"] == "gpt-5.4"
    workspace = read_workspace(folder / "workspace.yaml")
    assert (workspace["id"], workspace["cwd"], workspace["user_named"]) == (output.session_id, str(project), "false")
    assert workspace["name"] == f"↪ from {source}: Fix the flaky parser"
    assert output.resume_command == f"cd '{project}' && copilot --resume {output.session_id}"
    [info] = build_services().list_sessions(agent=Agent("copilot"))  # smig reads it back, titled as the picker
    assert (info.id, info.cwd, info.title) == (output.session_id, str(project), workspace["name"])


def test_the_model_named_is_copilots_spelling_of_the_target() -> None:
    assert copilot_model("claude-sonnet-4-5") == "claude-sonnet-4.5"
    assert copilot_model("gpt-5.4") == "gpt-5.4"
    assert copilot_model("qwen3-coder-plus") == "claude-sonnet-4.5"  # not Copilot's: its default


def test_continue_latest_picks_the_migration_in_a_lived_in_home(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """`copilot --continue` takes the newest events.jsonl in any folder: the user's own newer session loses
    to the migration written after it, and a session written since would win (smig says so)."""
    state = isolated_homes["home"] / ".copilot" / "session-state"
    shutil.copytree(REAL / "home" / ".copilot" / "session-state", state)
    own = state / SCENARIOS["chat"]["session"] / "events.jsonl"
    os.utime(own, (time.time(), time.time()))  # the user's own session, just used
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    result = build_services().migrate(session, make_plan(session), {Destination("copilot")})
    [fact] = result.continue_latest
    assert fact.command == "copilot --continue" and fact.migration and fact.picks == result.outputs[0].session_id
    later = time.time() + 60
    os.utime(own, (later, later))
    again = build_services().migrate(session, make_plan(session), {Destination("copilot")})
    [fact] = again.continue_latest
    assert not fact.migration and fact.picks == SCENARIOS["chat"]["session"]
    assert f"copilot --resume {again.outputs[0].session_id}" in fact.sentence


def test_an_existing_session_folder_is_never_written_into(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    services = build_services()
    dry = services.migrate(session, make_plan(session), {Destination("copilot")}, dry_run=True)
    [planned] = [f for f in dry.files if f.native is not None]
    folder = Path(planned.path).parent
    monkeypatch.setattr("smig_tui.adapters.agents.copilot.writer.uuid.uuid4", lambda: planned.native.session_id)
    folder.mkdir(parents=True)
    (folder / "workspace.yaml").write_text("theirs", encoding="utf-8")
    with pytest.raises(WriteRefusedError):
        services.migrate(session, make_plan(session), {Destination("copilot")})
    assert (folder / "workspace.yaml").read_text(encoding="utf-8") == "theirs"
    assert [p.name for p in folder.iterdir()] == ["workspace.yaml"]


@pytest.mark.parametrize("target", ["claude", "codex", "gemini", "qwen"])
def test_a_recorded_copilot_session_migrates_to_each_file_agent(
    target: str, isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    shutil.copytree(REAL / "home" / ".copilot", isolated_homes["home"] / ".copilot")
    services = build_services()
    [info] = [i for i in services.list_sessions(agent=Agent("copilot")) if i.id == SCENARIOS["tools"]["session"]]
    session = services.load_session(info)
    result = services.migrate(session, make_plan(session, "gpt-5.5"), {Destination(target)})
    [output] = [o for o in result.outputs if o.agent == target]
    text = Path(output.path).read_text(encoding="utf-8")
    assert "OSPREY" in text and "TOOLS: read notes.txt" in text and "<current_datetime>" not in text
    assert (result.record.source.agent, result.record.source.id) == ("copilot", info.id)
