"""smig's list puts a migration where the receiving client does: by when it was written (issue 29 §9).

The migrated conversation keeps its own times, often months old; Codex and Claude Code list the
written session by its file time (Codex's index takes the rollout's modification time), Gemini CLI
by the start time smig stamps, OpenCode by the update time it imports. So smig lists a session it
wrote by the later of its last message and the time it was written, for every destination.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from migration_builders import make_plan, make_session

from smig_tui.core.migration import written_at
from smig_tui.core.models import Agent
from smig_tui.core.native import Destination
from smig_tui.core.timeline import format_iso
from smig_tui.services import build_services


@pytest.mark.parametrize("destination", [Destination("codex"), Destination("claude"), Destination("gemini")])
def test_a_migration_lists_above_sessions_older_than_its_writing(
    fake_home: dict[str, Path], tmp_path: Path, destination: Destination
) -> None:
    agent = Agent(destination.value)
    theirs = build_services().list_sessions(agent=agent)
    session = make_session(tmp_path / "src", agent=Agent("opencode"), cwd=str(tmp_path / "p"))  # last message: Jan 2026
    result = build_services().migrate(session, make_plan(session), {destination})
    [output] = result.outputs

    listed = build_services().list_sessions(agent=agent)
    [mine] = [info for info in listed if info.id == output.session_id]
    assert listed[0].id == output.session_id
    assert mine.updated == written_at(result.migration_id)
    assert all((info.updated or "") < (mine.updated or "") for info in theirs)
    assert (session.messages[-1].timestamp or "") < (mine.updated or "")


def test_a_migration_resumed_since_lists_by_its_last_message(fake_home: dict[str, Path], tmp_path: Path) -> None:
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(tmp_path / "p"))
    result = build_services().migrate(session, make_plan(session), {Destination("claude")})
    [output] = result.outputs
    later = format_iso(datetime.now(UTC) + timedelta(hours=1))  # the user continued it in Claude Code
    with open(output.path, "a", encoding="utf-8") as transcript:
        transcript.write(
            json.dumps(
                {"type": "user", "timestamp": later, "message": {"role": "user", "content": "later"}},
                separators=(",", ":"),
            )
            + "\n"
        )
    [mine] = [info for info in build_services().list_sessions(agent=Agent("claude")) if info.id == output.session_id]
    assert mine.updated == later
