"""The first listing converts rows without timestamps (`stamped=False`): what it lists must be what a load reads."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from crush_builders import install

from smig_devtools.corpus import SessionEntry
from smig_devtools.crush_corpus import generate_crush
from smig_tui.adapters.agents.crush import source as crush_source
from smig_tui.adapters.agents.crush.convert import to_conversation
from smig_tui.adapters.agents.crush.database import connect
from smig_tui.adapters.agents.crush.home import projects
from smig_tui.core.models import ReadWarning


def _fixture_home(root: Path) -> dict[str, str]:
    install(root)
    return {"CRUSH_GLOBAL_DATA": str(root / ".local" / "share" / "crush"), "HOME": str(root)}


def _generated_home(root: Path) -> dict[str, str]:
    entries = [
        SessionEntry(
            "claude",
            "main",
            f"s{number}",
            "",
            str(root / "work" / f"p{number % 2}"),
            prompt=f"task {number}",
            size=size,
        )
        for number, size in enumerate((3_000, 40_000, 150_000))
    ]
    for entry in entries:
        Path(entry.cwd).mkdir(parents=True, exist_ok=True)
    generate_crush(root / "crush", entries)
    return {"CRUSH_GLOBAL_DATA": str(root / "crush"), "HOME": str(root)}


@pytest.mark.parametrize("make_home", [_fixture_home, _generated_home], ids=["fixtures", "generated"])
def test_unstamped_conversion_is_the_stamped_one_but_its_timestamps(make_home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env = make_home(tmp_path)
    compared = 0
    for project in projects(env):
        with connect(project.database) as connection:
            sessions = connection.execute("SELECT id, summary_message_id FROM sessions").fetchall()
            for session_id, summary in sessions:
                rows = crush_source._rows(connection, session_id)
                stamped = to_conversation(rows, summary or "")
                bare = to_conversation(rows, summary or "", stamped=False)
                assert [replace(m, timestamp=None) for m in stamped.messages] == bare.messages
                assert (bare.model, bare.damaged, bare.compactions) == (
                    stamped.model,
                    stamped.damaged,
                    stamped.compactions,
                )
                assert all(m.timestamp is None for m in bare.messages)
                assert any(m.timestamp is not None for m in stamped.messages) or not stamped.messages
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
        assert loaded.info == info  # count and model unchanged by the full read
        first_user = next((m.text for m in loaded.messages if m.role.value == "user"), None)
        assert first_user is not None
