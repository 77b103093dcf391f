"""Pi coding agent (npm `@mariozechner/pi-coding-agent`, checked with 0.73.1): its sessions read, and written for it to resume."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from smig_tui.adapters.agents.pi.home import (
    HOME_VARIABLE,
    SESSIONS_VARIABLE,
    agent_folder,
    sessions_folder,
)
from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead, lazy, lazy_value
from smig_tui.adapters.agents.settings_files import positive, read_json
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from collections.abc import Callable

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.agent_rules import WindowAdjust
    from smig_tui.core.models import AgentWindow, ModelCapacity
    from smig_tui.core.ports import NativeWriter, SessionSource, Watched

RESERVE_TOKENS = 16_384
"""Pi compacts once a reply's reported context passes the window less this (`compaction.reserveTokens`)."""


def _usable(window: int, auto_compact: int | None) -> int:
    """What fits before Pi compacts: the window less its 16,384-token reserve; the user's own limit, when lower."""
    usable = max(1, window - min(RESERVE_TOKENS, window // 2))
    return min(usable, auto_compact) if auto_compact else usable


def window_settings(env: Env) -> WindowAdjust | None:
    """The user's `compaction` settings in Pi's `settings.json`: another reserve, or compaction turned off."""
    path = agent_folder(env) / "settings.json"
    compaction = read_json(path).get("compaction")
    if not isinstance(compaction, dict):
        return None
    enabled = compaction.get("enabled") is not False
    reserve = positive(compaction.get("reserveTokens"))
    if enabled and reserve is None:
        return None

    def adjust(
        _model: ModelCapacity, agent: AgentWindow, _lookup: Callable[[str], ModelCapacity | None]
    ) -> AgentWindow:
        if not enabled:
            return replace(agent, usable=agent.window, source=f"{agent.source}; compaction off in {path}")
        room = max(1, agent.window - min(reserve or RESERVE_TOKENS, agent.window - 1))
        return replace(agent, usable=room, source=f"{agent.source}; reserveTokens {reserve:,} in {path}")

    return adjust


def _source(paths: Paths, env: Env) -> SessionSource:
    from smig_tui.adapters.agents.pi.projects import KnownProjectsSource

    return KnownProjectsSource(env, paths.cache_dir, paths.data_dir, PROFILE.listing_cache(paths))


def _watched(paths: Paths, env: Env) -> list[Watched]:
    from smig_tui.adapters.agents.pi.projects import watched

    return watched(env, paths.cache_dir, paths.data_dir)


def _writer(paths: Paths, env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.pi.writer import PiWriter

    return PiWriter(env, paths.data_dir)


PROFILE = AgentProfile(
    AgentRules("pi", "Pi", usable=_usable, choice_rank=8, memory=lazy_value(f"{__name__}.memory:RULES")),
    hand_to="claude",
    default_target="claude-sonnet-5-5",
    shown_when_empty=False,
    home=agent_folder,
    source=_source,
    watched=_watched,
    writer=_writer,
    window_settings=window_settings,
    memory=lazy(f"{__name__}.memory:read"),
    resume_argv=lazy(f"{__name__}.writer:resume_argv"),
    program="pi",
    home_variables=(HOME_VARIABLE, SESSIONS_VARIABLE),
    sessions_folder=sessions_folder,
    # `pi -p "hello there"` (a custom provider at tests/e2e/fake_model_server.py, Chat Completions)
    # from a fresh home in an empty folder, counted by o200k_base (tests/fixtures/real/pi/scenarios.json,
    # 2026-12-05); the same in its interactive mode. Its system prompt names Pi's install folder.
    overhead=Overhead(
        1_280,
        "Pi 0.73.1",
        (("system prompt", 540), ("tool definitions (4 tools)", 740), ("injected context", 0)),
    ),
    client_words=("pi-coding-agent",),  # Pi has no MCP client of its own; an extension would name itself so
)
