"""Reads and writes Codex CLI sessions: rollouts under CODEX_HOME, their lineage, and new rollouts Codex resumes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.codex import rules
from smig_tui.adapters.agents.codex.home import HOME_VARIABLE, resolve_home, sqlite_home_set, watched
from smig_tui.adapters.agents.codex.mcp import MCP
from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead, lazy, lazy_value
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource, Watched


def _home(env: Env) -> Path:
    return resolve_home(env).root


def _sessions(env: Env) -> Path:
    return resolve_home(env).sessions


def _source(paths: Paths, env: Env) -> SessionSource:
    from smig_tui.adapters.agents.codex.source import CodexSource

    return CodexSource(resolve_home(env), listing_cache=PROFILE.listing_cache(paths))


def _watched(_paths: Paths, env: Env) -> list[Watched]:
    return watched(resolve_home(env), sqlite_home_set())


def _writer(_paths: Paths, env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.codex.writer import CodexWriter

    return CodexWriter(resolve_home(env), env)


PROFILE = AgentProfile(
    AgentRules(
        "codex",
        "Codex",
        providers=("openai",),
        usable=rules.usable,
        usage_context=rules.usage_context,
        max_window_how="via model_context_window",
        memory=lazy_value(f"{__name__}.memory:RULES"),
        choice_rank=2,
    ),
    hand_to="claude",
    default_target="claude-sonnet-5-5",
    shown_when_empty=True,
    home=_home,
    source=_source,
    watched=_watched,
    writer=_writer,
    home_variables=(HOME_VARIABLE,),
    program="codex",
    sessions_folder=_sessions,
    memory=lazy(f"{__name__}.memory:read"),
    resume_argv=lazy(f"{__name__}.writer:resume_argv"),
    window_settings=rules.window_settings,
    # One request of `codex exec --skip-git-repo-check "hello there"` to a local fake model server from
    # a fresh home (no MCP servers, memory files or skills), counted by o200k_base (2026-12-03).
    overhead=Overhead(
        7_820,
        "Codex CLI 0.171.0",
        (
            ("tool definitions (10 tools)", 2_194),
            ("injected context (developer instructions, skills list, environment_context)", 5_626),
        ),
    ),
    mcp=MCP,
)
