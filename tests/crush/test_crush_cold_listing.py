"""The first listing counts rows without building their messages (`convert.listed`): what it lists must be what a load reads."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from crush_builders import fixture_home as _fixture_home
from crush_builders import generated_home as _generated_home

from smig_tui.adapters.agents.crush import source as crush_source
from smig_tui.adapters.agents.crush.convert import Listed, Row, listed, to_conversation
from smig_tui.adapters.agents.crush.database import connect
from smig_tui.adapters.agents.crush.home import projects
from smig_tui.core.models import ReadWarning


@pytest.mark.parametrize("make_home", [_fixture_home, _generated_home], ids=["fixtures", "generated"])
def test_the_listing_counts_what_the_conversion_builds(make_home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env = make_home(tmp_path)
    compared = 0
    for project in projects(env):
        with connect(project.database) as connection:
            sessions = connection.execute("SELECT id, summary_message_id FROM sessions").fetchall()
            for session_id, summary in sessions:
                rows = crush_source._rows(connection, session_id)
                built = to_conversation(rows, summary or "")
                shown = listed(rows, summary or "")
                assert shown == Listed(
                    len(built.messages),
                    any(not m.injected for m in built.messages),
                    next((m.text for m in built.messages if m.role.value == "user"), None),
                    built.model,
                    built.damaged,
                )
                compared += 1
    assert compared >= 3


@pytest.mark.parametrize("make_home", [_fixture_home, _generated_home], ids=["fixtures", "generated"])
def test_each_listed_session_counts_what_its_load_reads(make_home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env = make_home(tmp_path)
    warnings: list[ReadWarning] = []
    source = crush_source.CrushSource(env, listing_cache=None)
    listed = list(source.discover(warnings.append))
    assert len(listed) >= 3
    for info in listed:
        loaded = source.load(info, warnings.append)
        # the full read adds the count where the listing left it None, and changes nothing else
        assert loaded.info == replace(info, message_count=info.message_count or len(loaded.messages))
        assert loaded.info.message_count == len(loaded.messages)
        first_user = next((m.text for m in loaded.messages if m.role.value == "user"), None)
        assert first_user is not None


def test_odd_rows_are_counted_as_converted() -> None:
    """Rows no fixture has: a reply of neither text nor calls, a result of no call, a binary attachment,
    a shell command, a call answered twice, a summary that is not the first row."""
    call = {"type": "tool_call", "data": {"id": "c1", "name": "view", "input": "{}"}}
    odd = [
        Row("a", "user", json.dumps([{"type": "binary", "data": {"MIMEType": "image/png", "Path": "p.png"}}])),
        Row("b", "assistant", json.dumps([{"type": "text", "data": "not an object"}])),
        Row("c", "assistant", "[]"),
        Row("d", "tool", json.dumps([{"type": "tool_result", "data": {"tool_call_id": "x", "content": "y"}}])),
        Row("e", "assistant", json.dumps([[1]])),
        Row("f", "assistant", json.dumps([call, call]), model="m1"),
        Row(
            "s", "assistant", json.dumps([{"type": "text", "data": {"text": " summed "}}]), model="m2", is_summary=True
        ),
        Row("g", "user", json.dumps([{"type": "shell_command", "data": {"command": "ls", "output": "x"}}])),
        Row("h", "assistant", json.dumps([call]), model="m3"),
        Row("t", "tool", json.dumps([{"type": "tool_result", "data": {"tool_call_id": "c1", "content": "z"}}] * 2)),
    ]
    for summary in (None, "s", "a", "no-such-row"):
        for rows in (odd, odd[1:], odd[:6], odd[2:3]):
            built = to_conversation(rows, summary)
            assert listed(rows, summary) == Listed(
                len(built.messages),
                any(not m.injected for m in built.messages),
                next((m.text for m in built.messages if m.role.value == "user"), None),
                built.model,
                built.damaged,
            )
