"""`b` lists the sessions of the folder smig started in that were last on its current git branch, as
the pickers users like scope by branch (issue 29)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import HERE, settle, tree_of
from daily_keys import Keys, text_of
from tui_pilot import resized

from smig_tui.tui.widgets import sources_panel


async def test_b_lists_this_folders_sessions_on_its_branch_and_back(make_app, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    monkeypatch.setattr(sources_panel, "current_branch", lambda folder: read.append(folder) or "main")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        every = tree.visible_sessions()
        await Keys(pilot)("b")
        on_main = tree.visible_sessions()
        assert {info.id for info in on_main} == {
            "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9",  # Codex: session_meta.git.branch
            "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c",  # Claude Code: gitBranch (7a1b2c3d is on ci-fix)
        }
        assert all(info.cwd == HERE for info in on_main) and read == [HERE]
        progress = text_of(app.screen.query_one("#progress"))
        assert progress == f"2 of {len(tree.sessions)} on main"  # 80 columns: the figures and the branch whole
        assert f"Sessions of {HERE} on branch main only." in [n.message for n in app._notifications]
        await resized(pilot, 120, 40)
        wide = text_of(app.screen.query_one("#progress"))
        assert wide == f"2 of {len(tree.sessions)} sessions here on main · b: all branches"
        await Keys(pilot)("b")
        assert tree.visible_sessions() == every
        await Keys(pilot)("h", "b", "slash", *"ci", "enter")  # with the filter: none of main's matches "ci"
        await settle(pilot)
        assert tree.visible_sessions() == []
        assert text_of(app.screen.query_one("#progress")) == "No session matches “ci” · Escape shows all"
        await Keys(pilot)("escape", "b")
        assert tree.visible_sessions() == [info for info in every if info.cwd == HERE]  # h is still on


async def test_b_outside_a_repository_says_so_and_a_real_repository_is_read(
    make_app, tmp_path: Path, fake_home: dict[str, Path]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    app = make_app(here=str(plain))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree = tree_of(pilot)
        every = tree.visible_sessions()
        await Keys(pilot)("b")
        assert tree.visible_sessions() == every and tree.branch_only is None
        [warning] = [n.message for n in app._notifications if n.severity == "warning"]
        assert (
            warning == f"{plain} is not on a git branch (no repository, or a detached HEAD): b has no branch to list."
        )
        await Keys(pilot)("h")  # no session ran in this folder: the hint whole in the 28 columns there are
        assert tree.visible_sessions() == [] and text_of(app.screen.query_one("#progress")) == "None here · h: all"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    app = make_app(here=str(repo))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await Keys(pilot)("b")
        assert tree_of(pilot).branch_only == "main" and tree_of(pilot).visible_sessions() == []
        assert text_of(app.screen.query_one("#progress")) == "None on main · b: all"  # whole in 28 columns
        await resized(pilot, 120, 40)
        assert text_of(app.screen.query_one("#progress")) == "No session is on main here · b shows all"
