"""The Qwen Code writer through `Services.migrate`, and Qwen Code as a source for the other agents.

Where the session lands, what each record holds (the shape the real client 0.24.4 resumed when written
by hand: the `imported` scenario of tests/fixtures/real/qwen), that smig reads it back and lists it
first, and that it never writes over a file. The real client resuming it is tests/e2e/test_qwen_real_client.py.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session

from smig_tui.adapters.agents.qwen.writer import QWEN_VERSION
from smig_tui.core.errors import WriteRefusedError
from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent, Kind, Message, Role
from smig_tui.core.native import Destination
from smig_tui.services import build_services

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "qwen"
SCENARIOS = json.loads((REAL / "scenarios.json").read_text(encoding="utf-8"))
FILE_NAME = re.compile(r"^[0-9a-fA-F-]{32,36}\.jsonl$")
"""The names the client takes for sessions (`SESSION_FILE_PATTERN`, 0.24.4)."""


def _lines(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("source", ["codex", "claude", "gemini", "opencode"])
def test_a_migration_from_each_agent_is_a_chained_session_in_the_projects_chats(
    source: str, isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    project = tmp_path / "My Repo"
    session = make_session(tmp_path / "src", agent=Agent(source), cwd=str(project))
    result = build_services().migrate(session, make_plan(session, "qwen3-coder-plus"), {Destination("qwen")})
    [output] = result.outputs
    path = Path(output.path)
    chats = isolated_homes["home"] / ".qwen" / "projects" / re.sub(r"[^a-zA-Z0-9]", "-", str(project)) / "chats"
    assert path.parent == chats and FILE_NAME.match(path.name) and path.stem == output.session_id
    *turns, title = _lines(output.path)
    assert [r["type"] for r in turns] == ["user", "assistant", "user", "assistant"]
    assert [r["parentUuid"] for r in turns[1:]] == [r["uuid"] for r in turns[:-1]] and turns[0]["parentUuid"] is None
    assert {(r["sessionId"], r["cwd"], r["version"]) for r in turns} == {
        (output.session_id, str(project), QWEN_VERSION)
    }
    assert turns[0]["message"]["role"] == "user" and turns[1]["message"]["role"] == "model"
    assert turns[0]["message"]["parts"][0]["text"].startswith(NOTE_PREFIX)
    assert turns[0]["smigLineage"]["migrationId"] == result.migration_id
    assert turns[1]["model"] == "qwen3-coder-plus"
    assert (title["type"], title["subtype"], title["parentUuid"]) == ("system", "custom_title", turns[-1]["uuid"])
    assert title["systemPayload"]["customTitle"] == f"↪ from {source}: Fix the flaky parser"
    assert output.resume_command == f"cd '{project}' && qwen --resume {output.session_id}"
    # smig lists it first, in that folder, titled as the client's picker shows it
    [info] = build_services().list_sessions(agent=Agent("qwen"))
    assert (info.id, info.cwd, info.title) == (
        output.session_id,
        str(project),
        f"↪ from {source}: Fix the flaky parser",
    )


def test_continue_latest_is_said_to_pick_the_migration(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    result = build_services().migrate(session, make_plan(session), {Destination("qwen")})
    [fact] = result.continue_latest
    assert fact.command == "qwen -c" and fact.migration and fact.picks == result.outputs[0].session_id


def test_an_existing_file_is_never_overwritten(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    services = build_services()
    dry = services.migrate(session, make_plan(session), {Destination("qwen")}, dry_run=True)
    [planned] = [f for f in dry.files if f.native is not None]
    monkeypatch.setattr("smig_tui.adapters.agents.qwen.writer.uuid.uuid4", lambda: planned.native.session_id)
    Path(planned.path).parent.mkdir(parents=True)
    Path(planned.path).write_text("theirs", encoding="utf-8")
    with pytest.raises(WriteRefusedError):
        services.migrate(session, make_plan(session), {Destination("qwen")})
    assert Path(planned.path).read_text(encoding="utf-8") == "theirs"
    assert [p.name for p in Path(planned.path).parent.iterdir()] == [Path(planned.path).name]


@pytest.mark.parametrize("target", ["claude", "codex", "gemini"])
def test_a_recorded_qwen_session_migrates_to_each_file_agent(
    target: str, isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    shutil.copytree(REAL / "home" / ".qwen", isolated_homes["home"] / ".qwen")
    services = build_services()
    [info] = [i for i in services.list_sessions(agent=Agent("qwen")) if i.id == SCENARIOS["tools"]["session"]]
    session = services.load_session(info)
    result = services.migrate(session, make_plan(session, "gpt-5.5"), {Destination(target)})
    [output] = result.outputs
    text = Path(output.path).read_text(encoding="utf-8")
    assert "OSPREY" in text and "TOOLS: read notes.txt" in text
    assert (result.record.source.agent, result.record.source.id) == ("qwen", info.id)


def test_a_user_turn_starting_with_a_slash_is_written_and_read_as_a_prompt(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """Qwen Code records its slash commands as `system` records: a `user` record's text is a prompt."""
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    command = Message(len(session.messages), "slash", Role.USER, Kind.TEXT, "/review the parser")
    session = type(session)(session.info, (*session.messages, command), extra=session.extra)
    [output] = build_services().migrate(session, make_plan(session), {Destination("qwen")}).outputs  # read back whole
    texts = [r["message"]["parts"][0]["text"] for r in _lines(output.path) if r["type"] == "user"]
    assert texts[-1] == "/review the parser"
