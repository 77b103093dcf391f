"""GitHub Copilot CLI (npm `@github/copilot`, checked with 1.0.102): its sessions read, and written for it to resume."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from smig_tui.adapters.agents.copilot.home import HOME_VARIABLE, resolve_home, sessions_folder
from smig_tui.adapters.agents.copilot.mcp import MCP
from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead, environment, lazy, lazy_value
from smig_tui.core.agent_rules import AgentRules, WindowAdjust

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.models import AgentWindow, ModelCapacity
    from smig_tui.core.ports import NativeWriter, SessionSource, Watched

COMPACT_PERCENT = 80
"""Copilot CLI compacts in the background at about 80% of the model's prompt limit (`maxPromptTokens`):
measured with a 20,000 limit, it started at 16,392 and not at about 16,050 (docs/formats/copilot.md)."""
PROMPT_LIMIT_VARIABLE = "COPILOT_PROVIDER_MAX_PROMPT_TOKENS"
"""Sets the prompt limit of a custom provider's model (BYOK), in place of the catalog's."""


def usable(window: int, auto_compact: int | None) -> int:
    """What fits before Copilot CLI compacts: 80% of the prompt limit; the user's own limit, when set and lower."""
    share = window * COMPACT_PERCENT // 100
    return min(share, auto_compact) if auto_compact else share


def _window_settings(env: Env) -> WindowAdjust | None:
    """`COPILOT_PROVIDER_MAX_PROMPT_TOKENS` in the environment sets the prompt limit of every model Copilot runs."""
    raw = environment(env).get(PROMPT_LIMIT_VARIABLE, "").strip()
    limit = int(raw) if raw.isdigit() and int(raw) > 0 else None
    if limit is None:
        return None
    given = limit

    def adjust(model: ModelCapacity, agent: AgentWindow, _lookup: Callable[[str], ModelCapacity | None]) -> AgentWindow:
        return replace(agent, window=given, usable=usable(given, None), source=f"{PROMPT_LIMIT_VARIABLE}={given:,}")

    return adjust


def _source(paths: Paths, env: Env) -> SessionSource:
    from smig_tui.adapters.agents.copilot.source import CopilotSource

    return CopilotSource(sessions_folder(env), listing_cache=PROFILE.listing_cache(paths))


def _watched(_paths: Paths, env: Env) -> list[Watched]:
    """A listing reads `session-state/`'s tree (each session's folder)."""
    from smig_tui.core.ports import Watched

    return [Watched(str(sessions_folder(env)), tree=True)]


def _writer(_paths: Paths, env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.copilot.writer import CopilotWriter

    return CopilotWriter(env)


def _sessions(env: Env) -> Path:
    return sessions_folder(env)


PROFILE = AgentProfile(
    AgentRules("copilot", "Copilot CLI", usable=usable, choice_rank=7, memory=lazy_value(f"{__name__}.memory:RULES")),
    hand_to="claude",
    default_target="claude-sonnet-5-5",
    shown_when_empty=False,
    home=resolve_home,
    source=_source,
    watched=_watched,
    writer=_writer,
    memory=lazy(f"{__name__}.memory:read"),
    resume_argv=lazy(f"{__name__}.writer:resume_argv"),
    program="copilot",
    home_variables=(HOME_VARIABLE,),
    sessions_folder=_sessions,
    window_settings=_window_settings,
    # `copilot` (interactive, the mode a user resumes a migration in) given "hello there" in an empty
    # folder, from a fresh home, BYOK Anthropic type against tests/e2e/fake_model_server.py, the first
    # request counted by o200k_base (tests/fixtures/real/copilot/scenarios.json, 2026-12-05). `-p` mode
    # sends less: 10,917 (4,781 + 6,110 for 17 tools + 26).
    overhead=Overhead(
        13_195,
        "Copilot CLI 1.0.102",
        (
            ("system prompt", 5_492),
            ("tool definitions (18 tools, interactive)", 7_677),
            ("injected context (the <current_datetime> line)", 26),
        ),
    ),
    client_words=("copilot",),  # its MCP client calls itself `copilot-cli` (seen by a server it started)
    mcp=MCP,
)
