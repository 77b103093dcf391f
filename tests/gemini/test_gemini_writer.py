"""The Gemini CLI writer through `Services.migrate`: where it writes, what, never over a file, read back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session

from smig_tui.adapters.agents.gemini.layout import project_hash
from smig_tui.adapters.agents.gemini.writer import KEEP_AS_PROMPT
from smig_tui.core.errors import WriteRefusedError
from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent, Kind, Message, Role
from smig_tui.core.native import Destination
from smig_tui.services import build_services

FIXTURE = Path(__file__).parents[1] / "fixtures" / "gemini"


def _lines(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


def test_a_migration_lands_in_a_new_project_folder_with_its_owner_file(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    project = tmp_path / "My Repo"
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    result = build_services().migrate(session, make_plan(session, "gemini-2.5-pro"), {Destination("gemini")})
    [output] = result.outputs
    folder = isolated_homes["home"] / ".gemini" / "tmp" / "my-repo"
    assert (folder / ".project_root").read_text(encoding="utf-8") == str(project)
    path = Path(output.path)
    assert path.parent == folder / "chats"
    assert path.name.startswith("session-") and path.name.endswith(f"-{output.session_id[:8]}.jsonl")
    meta, *records = _lines(output.path)
    assert meta["sessionId"] == output.session_id and meta["projectHash"] == project_hash(str(project))
    assert meta["summary"] == "↪ from codex: Fix the flaky parser" and meta["kind"] == "main"
    assert meta["smigLineage"]["migrationId"] == result.migration_id
    assert [r["type"] for r in records] == ["user", "gemini", "user", "gemini"]
    assert records[0]["content"][0]["text"].startswith(NOTE_PREFIX)
    assert output.resume_command == f"cd '{project}' && gemini --resume {output.session_id}"
    assert str(folder / ".project_root") not in result.record.files  # the owner file is no export
    # smig lists it, in that folder, with the migrated text
    [info] = build_services().list_sessions(agent=Agent("gemini"))
    assert (info.id, info.cwd) == (output.session_id, str(project))


def test_a_known_project_keeps_its_folder_and_a_taken_slug_gets_a_number(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    home = isolated_homes["home"] / ".gemini"
    shutil.copytree(FIXTURE / "home" / ".gemini", home)
    known = make_session(tmp_path / "a", agent=Agent("claude"), cwd="/tmp/smig-gemini-fixture/osprey-app")
    other = make_session(tmp_path / "b", agent=Agent("claude"), cwd=str(tmp_path / "elsewhere" / "osprey-app"))
    services = build_services()
    [first] = services.migrate(known, make_plan(known), {Destination("gemini")}).outputs
    [second] = services.migrate(other, make_plan(other), {Destination("gemini")}).outputs
    assert Path(first.path).parent == home / "tmp" / "osprey-app" / "chats"
    assert (home / "tmp" / "osprey-app-1" / ".project_root").read_text() == str(tmp_path / "elsewhere" / "osprey-app")
    assert Path(second.path).parent == home / "tmp" / "osprey-app-1" / "chats"


def test_a_user_turn_the_client_would_take_for_a_command_is_kept_as_a_prompt(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    command = Message(len(session.messages), "slash", Role.USER, Kind.TEXT, "/review the parser")
    session = type(session)(session.info, (*session.messages, command), extra=session.extra)
    [output] = build_services().migrate(session, make_plan(session), {Destination("gemini")}).outputs
    texts = [r["content"][0]["text"] for r in _lines(output.path)[1:] if r["type"] == "user"]
    assert texts[-1] == KEEP_AS_PROMPT + "/review the parser"


def test_an_existing_file_is_never_overwritten(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    services = build_services()
    dry = services.migrate(session, make_plan(session), {Destination("gemini")}, dry_run=True)
    planned = [f for f in dry.files if f.native is not None][0]
    monkeypatch.setattr("smig_tui.adapters.agents.gemini.writer.new_session_id", lambda: planned.native.session_id)
    chats = Path(planned.path).parent
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text(str(tmp_path / "p"), encoding="utf-8")  # the client's project
    Path(planned.path).write_text("theirs", encoding="utf-8")
    with pytest.raises(WriteRefusedError):
        services.migrate(session, make_plan(session), {Destination("gemini")})
    assert Path(planned.path).read_text(encoding="utf-8") == "theirs"
    assert [p.name for p in chats.iterdir()] == [Path(planned.path).name]  # nothing else was left behind


def test_a_folder_named_by_the_older_path_hash_is_written_into(isolated_homes: dict[str, Path], tmp_path: Path) -> None:
    """The client copies it to the slug folder on start only while that folder holds nothing."""
    project = tmp_path / "repo"
    legacy = isolated_homes["home"] / ".gemini" / "tmp" / project_hash(str(project))
    (legacy / "chats").mkdir(parents=True)
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    result = build_services().migrate(session, make_plan(session), {Destination("gemini")})
    assert [Path(f.path).parent for f in result.files if f.destination == Destination("gemini")] == [legacy / "chats"]
    assert not (isolated_homes["home"] / ".gemini" / "tmp" / "repo").exists()
