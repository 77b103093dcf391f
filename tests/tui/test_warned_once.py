"""The TUI reports a skipped file once per version of the file, as the CLI does, and the two share that
memory: the same toast on every launch was noise (issue 29, item 8)."""

from __future__ import annotations

import os
from pathlib import Path

from cli_runner import smig
from conftest import settle


def empty_rollout(codex_home: Path) -> Path:
    day = codex_home / "sessions" / "2026" / "11" / "25"
    day.mkdir(parents=True)
    empty = day / "rollout-2026-11-25T10-00-00-0199aaaa-0000-7000-8000-000000000009.jsonl"
    empty.write_bytes(b"")
    return empty


async def warnings_at_launch(make_app) -> list[str]:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        return [n.message for n in app._notifications if n.severity == "warning"]


async def test_a_skipped_file_is_a_toast_at_the_first_launch_only_until_it_changes(make_app, fake_home) -> None:
    empty = empty_rollout(fake_home["codex"])
    [first] = await warnings_at_launch(make_app)
    assert f"first: {empty}: empty rollout file; skipped." in first and "smig doctor lists them all" in first
    assert await warnings_at_launch(make_app) == []  # the next launch is quiet
    assert smig("list")[2] == ""  # and so is the CLI: one memory for both
    empty.write_text("{", encoding="utf-8")  # a new version of the file: reported again
    [changed] = await warnings_at_launch(make_app)
    assert f"first: {empty}: no session_meta line" in changed
    assert await warnings_at_launch(make_app) == []
    empty.write_bytes(b"")
    os.utime(empty, ns=(1, 1))
    assert "empty rollout file" in (await warnings_at_launch(make_app))[0]


async def test_what_the_cli_reported_is_not_a_toast_again(make_app, fake_home) -> None:
    empty = empty_rollout(fake_home["codex"])
    assert f"{empty}: empty rollout file; skipped" in smig("list")[2]
    assert await warnings_at_launch(make_app) == []
    assert f"codex: {empty}: empty rollout file; skipped" in smig("doctor")[1]  # doctor still lists it
