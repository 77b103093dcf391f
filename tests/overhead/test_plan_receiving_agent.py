"""`smig plan` takes off the overhead of the agent that will resume the session, and says which.

Without `--to` the agent is the one the target's provider implies (a gpt-5 target: Codex), and the
output says it was assumed; `--to opencode` plans for OpenCode's smaller overhead instead, because
OpenCode resumes gpt-5 sessions too.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents import registry
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.tokens import calibrate_one
from smig_tui.services import Services

CODEX_MAIN = "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"
SHIPPED = {entry.id: entry.overhead.tokens for entry in registry.AGENTS if entry.overhead is not None}


def _services() -> Services:
    paths = resolve_paths()
    return Services(paths=paths, config={}, sources=[CodexSource(codex_home()), ClaudeSource(claude_home())])


def _plan(*argv: str) -> tuple[int, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    ctx = Context(out=out)
    ctx.__dict__["services"] = _services()
    code = main(["plan", CODEX_MAIN, *argv], ctx)
    return code, out.stdout.getvalue()  # type: ignore[attr-defined]


def _json(*argv: str) -> dict[str, Any]:
    code, stdout = _plan(*argv, "--json")
    assert code == 0
    return dict(json.loads(stdout))


def _shipped(agent: str) -> int:
    return SHIPPED[agent]


def test_a_gpt5_plan_is_for_codex_unless_told_opencode(fake_home: dict[str, Path]) -> None:
    assumed = _json("-t", "gpt-5.5")
    assert assumed["agent_overhead"] == {
        "agent": "codex",
        "tokens": _shipped("codex"),
        "assumed": True,
        "source": "measured with Codex CLI 0.171.0",
    }
    chosen = _json("-t", "gpt-5.5", "--to", "opencode")
    assert chosen["agent_overhead"]["agent"] == "opencode" and chosen["agent_overhead"]["assumed"] is False
    assert chosen["decision"]["overhead"] == _shipped("opencode") == 6_901
    # Each agent's own usable window makes the room: Codex runs gpt-5.5 at its catalog's 272,000 (95% usable),
    # OpenCode at the model's whole window, held to the provider's input cap (before issue 31 both were
    # planned at Codex's window, only the overheads differing: wrong for OpenCode).
    model = _services().capacities.lookup("gpt-5.5")
    room = model.context_window - assumed["decision"]["reserve"]
    assert assumed["decision"]["budget"] == min(room, model.harness_window) - _shipped("codex")
    assert model.max_input is not None and chosen["usable_window"]["agent"] == "opencode"
    assert chosen["decision"]["budget"] == min(room, model.max_input, model.context_window) - _shipped("opencode")

    summary = _json("-t", "gpt-5.5", "--to", "opencode", "--strategy", "summary-tail")  # summary pending, nothing sent
    assert summary["decision"]["overhead"] == 6_901 and summary["agent_overhead"]["agent"] == "opencode"

    _, text = _plan("-t", "gpt-5.5")
    assert "tokens that codex adds to every request (assumed from the openai provider; --to AGENT" in text
    _, text = _plan("-t", "gpt-5.5", "--to", "opencode")
    assert "6,901 tokens that opencode adds to every request (chosen with --to;" in text


def test_a_gemini_target_is_planned_for_gemini_cli(fake_home: dict[str, Path]) -> None:
    capacity = _services().capacities.lookup("gemini-2.5-pro")
    data = _json("-t", "gemini-2.5-pro")
    assert data["agent_overhead"]["agent"] == "gemini"
    assert data["decision"]["overhead"] == calibrate_one(_shipped("gemini"), capacity.calibration)


def test_a_model_no_agent_window_is_known_for_says_why_nothing_is_taken_off(fake_home: dict[str, Path]) -> None:
    data = _json("-t", "deepseek-chat")
    assert data["decision"]["overhead"] == 0 and data["agent_overhead"] is None
    _, text = _plan("-t", "deepseek-chat")
    assert "agent overhead: none taken off: smig knows no agent's usable window for deepseek-chat" in text


def test_a_named_agent_runs_a_model_it_has_no_catalog_window_for_under_its_own_rule(fake_home: dict[str, Path]) -> None:
    """Before issue 31 `--to opencode` took nothing off here (no home agent, so no window): OpenCode runs
    deepseek-chat at its whole window, and its prompt and tools still take their room."""
    model = _services().capacities.lookup("deepseek-chat")
    data = _json("-t", "deepseek-chat", "--to", "opencode")
    assert data["usable_window"]["agent"] == "opencode" and data["usable_window"]["tokens"] == model.context_window
    overhead = calibrate_one(_shipped("opencode"), model.calibration)
    assert data["decision"]["overhead"] == overhead and data["agent_overhead"]["agent"] == "opencode"
    assert data["decision"]["budget"] == model.context_window - data["decision"]["reserve"] - overhead
