"""Planning for a Gemini model: Gemini CLI's share of the window and its own overhead come off the budget."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from smig_tui.core.models import Agent, Strategy
from smig_tui.services import build_services

FIXTURE = Path(__file__).parents[1] / "fixtures" / "gemini"


def test_a_plan_for_gemini_cli_models_uses_its_compression_point_and_overhead(isolated_homes: dict[str, Path]) -> None:
    shutil.copytree(FIXTURE / "home" / ".gemini", isolated_homes["home"] / ".gemini")
    services = build_services()
    [info] = services.list_sessions(agent=Agent.GEMINI)
    session = services.load_session(info)
    for model in ("gemini-2.5-pro", "gemini-3.5-flash", "gemini-3.1-flash-lite", "gemini-3.1-pro-preview"):
        decision = services.plan(session, model, Strategy.AS_IS).decision
        assert decision.window == 1_048_576 and decision.prompt_limit == 524_288  # compresses at 50%
        assert decision.overhead == 6810  # Gemini CLI 0.61.0 adds 6,504 o200k tokens; x 1.047 rounded up
        assert not decision.exact  # Gemini's tokenizer is not tiktoken's: labelled as an estimate
    shipped = json.loads((Path(__file__).parents[2] / "smig_tui" / "data" / "agent_overhead.json").read_text())
    assert shipped["agents"]["gemini"]["client_version"] == "0.61.0"
