"""The Pi writer through `Services.migrate`, and Pi as a source for the other agents.

Where the session lands, what each entry holds (the shape the real client 0.73.1 resumed when written
by hand: the `imported` scenario of tests/fixtures/real/pi), that smig reads it back and lists it
first, what `pi -c` picks, and that it never writes over a file. The real client resuming it is
tests/e2e/test_pi_real_client.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session

from smig_tui.adapters.agents.pi.writer import LINEAGE_TYPE
from smig_tui.core.errors import WriteRefusedError
from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent
from smig_tui.core.native import Destination, PlannedFile
from smig_tui.services import build_services

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "pi"
SCENARIOS = json.loads((REAL / "scenarios.json").read_text(encoding="utf-8"))
FILE_NAME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$")
"""How Pi names a session file: its start time with `:` and `.` as `-`, then its id."""


def _lines(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("source", ["codex", "claude", "gemini", "opencode"])
def test_a_migration_from_each_agent_is_a_chained_session_in_the_projects_folder(
    source: str, isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    project = tmp_path / "My Repo"
    session = make_session(tmp_path / "src", agent=Agent(source), cwd=str(project))
    result = build_services().migrate(session, make_plan(session, "claude-sonnet-4-5"), {Destination("pi")})
    [output] = result.outputs
    path = Path(output.path)
    folder = "--" + str(project).lstrip("/").replace("/", "-") + "--"
    assert path.parent == isolated_homes["home"] / ".pi" / "agent" / "sessions" / folder
    assert FILE_NAME.match(path.name) and path.stem.endswith("_" + output.session_id)
    header, lineage, *turns, name = _lines(output.path)
    assert (header["type"], header["version"], header["id"], header["cwd"]) == (
        "session",
        3,
        output.session_id,
        str(project),
    )
    assert (lineage["type"], lineage["customType"], lineage["parentId"]) == ("custom", LINEAGE_TYPE, None)
    assert lineage["data"]["migrationId"] == result.migration_id
    assert [t["message"]["role"] for t in turns] == ["user", "assistant", "user", "assistant"]
    chain = [lineage, *turns, name]
    assert [e["parentId"] for e in chain[1:]] == [e["id"] for e in chain[:-1]]
    assert all(re.fullmatch(r"[0-9a-f]{8}", e["id"]) for e in chain)
    assert turns[0]["message"]["content"][0]["text"].startswith(NOTE_PREFIX)
    reply = turns[1]["message"]
    assert (reply["provider"], reply["model"], reply["api"], reply["stopReason"]) == (
        "anthropic", "claude-sonnet-4-5", "anthropic-messages", "stop"
    )  # fmt: skip
    stamps = [t["message"]["timestamp"] for t in turns]
    assert stamps == sorted(stamps) and abs(stamps[-1] / 1000 - time.time()) < 3600  # the time of writing
    assert (name["type"], name["name"]) == ("session_info", f"↪ from {source}: Fix the flaky parser")
    assert output.resume_command == f"cd '{project}' && pi --session {output.session_id}"
    [info] = build_services().list_sessions(agent=Agent("pi"))
    assert (info.id, info.cwd, info.title) == (
        output.session_id,
        str(project),
        f"↪ from {source}: Fix the flaky parser",
    )


def test_the_users_default_model_is_the_one_written(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    """Pi resumes with the model a session's last reply names, if the user has it set up; their default has."""
    agent = isolated_homes["home"] / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "settings.json").write_text('{"defaultProvider": "ollama", "defaultModel": "qwen3:32b"}')
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    [output] = build_services().migrate(session, make_plan(session), {Destination("pi")}).outputs
    replies = [e["message"] for e in _lines(output.path) if e.get("message", {}).get("role") == "assistant"]
    assert {(r["provider"], r["model"]) for r in replies} == {("ollama", "qwen3:32b")}


def test_continue_latest_is_said_to_pick_the_migration(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    result = build_services().migrate(session, make_plan(session), {Destination("pi")})
    [fact] = result.continue_latest
    assert fact.command == "pi -c" and fact.migration and fact.picks == result.outputs[0].session_id


def test_continue_latest_names_a_newer_file_it_would_pick_instead(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """A session file of the user's modified after the migration (a clock ahead): `pi -c` takes that one."""
    project = tmp_path / "p"
    folder = (
        isolated_homes["home"]
        / ".pi"
        / "agent"
        / "sessions"
        / ("--" + str(project).lstrip("/").replace("/", "-") + "--")
    )
    folder.mkdir(parents=True)
    theirs = folder / "2030-01-01T00-00-00-000Z_0000aaaa-0000-4000-8000-000000000001.jsonl"
    theirs.write_text('{"type":"session","version":3,"id":"0000aaaa-0000-4000-8000-000000000001","cwd":"x"}\n')
    os.utime(theirs, (time.time() + 3600, time.time() + 3600))
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    result = build_services().migrate(session, make_plan(session), {Destination("pi")})
    [fact] = result.continue_latest
    assert not fact.migration and fact.picks == "0000aaaa-0000-4000-8000-000000000001"
    assert f"pi --session {result.outputs[0].session_id}" in fact.sentence


def test_an_existing_file_is_never_overwritten(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from smig_tui.adapters.agents.pi import writer as pi_writer

    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    services = build_services()
    dry = services.migrate(session, make_plan(session), {Destination("pi")}, dry_run=True)
    [planned] = [f for f in dry.files if f.native is not None]
    Path(planned.path).parent.mkdir(parents=True)
    Path(planned.path).write_text("theirs", encoding="utf-8")
    original = pi_writer.PiWriter.prepare

    def same_path(self: pi_writer.PiWriter, *args: object, **kwargs: object) -> PlannedFile:
        laid_out = original(self, *args, **kwargs)  # type: ignore[arg-type]
        return replace(laid_out, path=planned.path)  # the same file name again (same start time and id)

    monkeypatch.setattr(pi_writer.PiWriter, "prepare", same_path)
    with pytest.raises(WriteRefusedError):
        services.migrate(session, make_plan(session), {Destination("pi")})
    assert Path(planned.path).read_text(encoding="utf-8") == "theirs"
    assert [p.name for p in Path(planned.path).parent.iterdir()] == [Path(planned.path).name]


@pytest.mark.parametrize("target", ["claude", "codex", "gemini", "qwen"])
def test_a_recorded_pi_session_migrates_to_each_file_agent(
    target: str, isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    shutil.copytree(REAL / "home" / ".pi", isolated_homes["home"] / ".pi")
    services = build_services()
    [info] = [i for i in services.list_sessions(agent=Agent("pi")) if i.id == SCENARIOS["tools"]["session"]]
    session = services.load_session(info)
    result = services.migrate(session, make_plan(session, "gpt-5.5"), {Destination(target)})
    [output] = result.outputs
    text = Path(output.path).read_text(encoding="utf-8")
    assert "OSPREY" in text and "TOOLS: read notes.txt" in text
    assert (result.record.source.agent, result.record.source.id) == ("pi", info.id)
