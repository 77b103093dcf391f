"""The Aider writer through `Services.migrate`: a history file of smig's own beside the user's, read back
as Aider will restore it, never over a file. The real client restoring it is tests/e2e/test_aider_real_client.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from migration_builders import make_plan, make_session

from smig_tui.adapters.agents.aider import folders as places
from smig_tui.adapters.agents.aider.history import restore
from smig_tui.adapters.agents.aider.writer import render, restored_turns, resume_argv
from smig_tui.core.errors import WriteRefusedError
from smig_tui.core.handoff import NOTE_PREFIX
from smig_tui.core.models import Agent, Kind, Message, Role
from smig_tui.core.native import Destination, Turn
from smig_tui.services import build_services

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "aider" / "projects"
AIDER = Agent("aider")


@pytest.mark.parametrize("source", ["codex", "claude", "gemini", "opencode", "qwen", "kilo"])
def test_a_migration_is_a_history_of_smigs_own_beside_the_users(
    source: str, isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    project = tmp_path / "My Repo"
    shutil.copytree(REAL / "chat", project)
    own = (project / places.DEFAULT_NAME).read_bytes()
    session = make_session(tmp_path / "src", agent=Agent(source), cwd=str(project))
    result = build_services().migrate(session, make_plan(session, "gpt-4.1"), {Destination("aider")})
    [output] = result.outputs
    path = Path(output.path)
    assert path.parent == project and path.name == places.written_name(output.session_id)
    assert (project / places.DEFAULT_NAME).read_bytes() == own  # the user's history untouched
    assert (
        output.argv
        == resume_argv(output.session_id)
        == (
            "aider",
            "--restore-chat-history",
            "--chat-history-file",
            f".aider.smig-{output.session_id}.chat.history.md",
        )
    )
    assert output.resume_command == f"cd '{project}' && {' '.join(output.argv)}"
    text = path.read_text(encoding="utf-8")
    assert (
        text.startswith("\n# aider chat started at ") and f"> smig: ↪ from {source}: Fix the flaky parser  \n" in text
    )
    assert f'"migrationId": "{result.migration_id}"' in text  # the lineage, as a notice the model never gets
    restored = restore(text).messages
    assert [m.role for m in restored] == ["user", "assistant", "user", "assistant"]
    assert restored[0].text.startswith(NOTE_PREFIX)
    # smig lists it, from anywhere (the folder is remembered), titled as written
    found = {info.id: info for info in build_services().list_sessions(agent=AIDER)}
    assert found[output.session_id].title == f"↪ from {source}: Fix the flaky parser"
    assert found[output.session_id].cwd == str(project)
    # a plain restore picks the user's own history, and smig says so with the way to the migration
    [latest] = result.continue_latest
    assert not latest.migration and latest.picks == places.session_id_of(project / places.DEFAULT_NAME)
    assert "aider --restore-chat-history" in latest.sentence and output.argv[-1] in latest.sentence


def test_reply_lines_aider_would_take_for_markup_arrive_as_text() -> None:
    turns = (
        Turn(Role.USER, "first line\n#### not a second prompt\n\n> quoted"),
        Turn(Role.ASSISTANT, "# Heading\n> quote\n#### hashes\nplain\r\nwindows\rold mac\u2028# after a separator"),
        Turn(Role.USER, "lone \ud800 surrogate"),
        Turn(Role.ASSISTANT, "   \n\n"),
        Turn(Role.USER, "last"),
    )
    data = render(turns, "title\nwith a newline", "{}")
    back = restored_turns(data)
    assert [turn.role for turn in back] == [Role.USER, Role.ASSISTANT, Role.USER, Role.USER]  # a blank reply is dropped
    assert back[0].text == "first line  \n#### not a second prompt  \n  \n> quoted  \n"
    assert back[1].text == (
        "\n # Heading\n > quote\n #### hashes\nplain\nwindows\nold mac\u2028 # after a separator\n\n\n"
    )
    assert back[2].text == "lone \ufffd surrogate  \n"
    data.encode("utf-8")  # no surrogate left to fail the write
    assert "> smig: title with a newline  \n" in data


def test_the_read_back_holds_a_conversation_with_tool_calls_flattened(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    session = make_session(tmp_path / "src", cwd=str(tmp_path / "proj"))
    (tmp_path / "proj").mkdir()
    result = build_services().migrate(session, make_plan(session, "gpt-4.1"), {Destination("aider")})
    [output] = result.outputs
    services = build_services()
    info = services.find_session(output.session_id)
    loaded = services.load_session(info)
    assert all(message.kind is Kind.TEXT for message in loaded.messages)
    replies = "".join(message.text for message in loaded.messages if message.role is Role.ASSISTANT)
    assert "pytest -q tests/test_parser.py" in replies and "1 failed: test_unicode" in replies  # Aider has no tools


def test_it_never_writes_over_a_file_and_a_dry_run_writes_nothing(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    session = make_session(tmp_path / "src", cwd=str(project))
    dry = build_services().migrate(session, make_plan(session, "gpt-4.1"), {Destination("aider")}, dry_run=True)
    [planned] = dry.outputs
    assert not Path(planned.path).exists() and list(project.iterdir()) == []
    import uuid

    fixed = uuid.UUID("00000000-0000-4000-8000-000000000001")
    monkeypatch.setattr(uuid, "uuid4", lambda: fixed)
    taken = project / places.written_name(str(fixed))
    taken.write_text("the user's", encoding="utf-8")
    with pytest.raises(WriteRefusedError):
        build_services().migrate(session, make_plan(session, "gpt-4.1"), {Destination("aider")})
    assert taken.read_text(encoding="utf-8") == "the user's"


def test_a_conversation_opening_with_a_reply_gets_the_note_as_its_first_prompt(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    from dataclasses import replace

    session = make_session(tmp_path / "src", cwd=str(tmp_path))
    reply = Message(0, "r0", Role.ASSISTANT, Kind.TEXT, "I answer first.")
    session = replace(session, messages=(reply,))
    result = build_services().migrate(session, make_plan(session, "gpt-4.1"), {Destination("aider")})
    [output] = result.outputs
    restored = restore(Path(output.path).read_text(encoding="utf-8")).messages
    assert [m.role for m in restored] == ["user", "assistant"] and "I answer first." in restored[1].text
