"""Planning for a Gemini model: Gemini CLI's share of the window and its own overhead come off the budget."""

from __future__ import annotations

import shutil
from pathlib import Path

from smig_tui.adapters.agents import gemini
from smig_tui.core.models import Agent, Strategy
from smig_tui.services import build_services

FIXTURE = Path(__file__).parents[1] / "fixtures" / "gemini"


def test_a_plan_for_gemini_cli_models_uses_its_compression_point_and_overhead(isolated_homes: dict[str, Path]) -> None:
    shutil.copytree(FIXTURE / "home" / ".gemini", isolated_homes["home"] / ".gemini")
    services = build_services()
    [info] = services.list_sessions(agent=Agent("gemini"))
    session = services.load_session(info)
    for model in ("gemini-2.5-pro", "gemini-3.5-flash", "gemini-3.1-flash-lite", "gemini-3.1-pro-preview"):
        decision = services.plan(session, model, Strategy.AS_IS).decision
        assert decision.window == 1_048_576 and decision.prompt_limit == 524_288  # compresses at 50%
        assert decision.overhead == 6810  # Gemini CLI 0.61.0 adds 6,504 o200k tokens; x 1.047 rounded up
        assert not decision.exact  # Gemini's tokenizer is not tiktoken's: labelled as an estimate
    assert gemini.PROFILE.overhead is not None and gemini.PROFILE.overhead.client == "Gemini CLI 0.61.0"


def test_the_project_folder_gemini_cli_lists_comes_off_the_budget_too(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    """Gemini CLI shows the project folder (up to 200 entries) and, in a git work tree, its git rules in
    every request (checked against the real client in tests/e2e): a plan for the folder counts them."""
    from dataclasses import replace

    from migration_builders import make_session

    project = tmp_path / "project"
    session = make_session(tmp_path / "src", agent=Agent("codex"), cwd=str(project))
    services = build_services()
    empty = services.plan(session, "gemini-2.5-pro", Strategy.AS_IS).decision.overhead  # no such folder yet
    project.mkdir()
    for number in range(12):
        (project / f"notes_{number:02d}.md").write_text("x")
    listed = build_services().plan(session, "gemini-2.5-pro", Strategy.AS_IS).decision.overhead
    (project / ".git").mkdir()
    in_git = build_services().plan(session, "gemini-2.5-pro", Strategy.AS_IS).decision.overhead
    assert empty < listed < in_git and in_git - listed > 379  # the git rules, and the `.git/...` entry
    other = replace(session, info=replace(session.info, cwd=str(tmp_path / "elsewhere")))
    assert build_services().plan(other, "gemini-2.5-pro", Strategy.AS_IS).decision.overhead == empty
    claude = build_services().plan(session, "claude-sonnet-4-5", Strategy.AS_IS).decision.overhead
    assert claude == build_services().plan(other, "claude-sonnet-4-5", Strategy.AS_IS).decision.overhead


def test_the_listing_stops_at_200_entries_and_says_so(tmp_path: Path) -> None:
    from smig_tui.adapters.agents.gemini.context import ELIDED_NOTE, MAX_ENTRIES, folder_listing

    assert folder_listing(str(tmp_path / "missing")) == ("", 0)
    for number in range(250):
        (tmp_path / f"f{number:03d}.txt").write_text("x")
    text, besides = folder_listing(str(tmp_path))
    lines = text.splitlines()
    assert len(lines) == MAX_ENTRIES + 1 and lines[-1] == "└───..." and besides == ELIDED_NOTE
