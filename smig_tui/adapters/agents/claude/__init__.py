"""Reads and writes Claude Code sessions: transcripts under CLAUDE_CONFIG_DIR/projects, and new ones Claude Code resumes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.claude import rules
from smig_tui.adapters.agents.claude.home import HOME_VARIABLE, resolve_home
from smig_tui.adapters.agents.claude.mcp import MCP
from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead, lazy, lazy_value
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource, Watched


def _home(env: Env) -> Path:
    return resolve_home(env).root


def _projects(env: Env) -> Path:
    return resolve_home(env).projects


def _source(paths: Paths, env: Env) -> SessionSource:
    from smig_tui.adapters.agents.claude.source import ClaudeSource

    return ClaudeSource(resolve_home(env), listing_cache=PROFILE.listing_cache(paths))


def _watched(_paths: Paths, env: Env) -> list[Watched]:
    """A listing reads the project folders' tree: every transcript and sub-agent file is in it."""
    from smig_tui.core.ports import Watched

    return [Watched(str(resolve_home(env).projects), tree=True)]


def _writer(_paths: Paths, env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.claude.writer import ClaudeWriter

    return ClaudeWriter(resolve_home(env))


PROFILE = AgentProfile(
    AgentRules(
        "claude",
        "Claude Code",
        providers=("anthropic",),
        usable=rules.usable,
        raises_1m=True,
        max_window_how="with the [1m] model suffix",
        usage_context=rules.usage_context,
        memory=lazy_value(f"{__name__}.memory:RULES"),
        choice_rank=1,
    ),
    hand_to="codex",
    default_target="gpt-5.5",
    shown_when_empty=True,
    home=_home,
    source=_source,
    watched=_watched,
    writer=_writer,
    home_variables=(HOME_VARIABLE,),
    program="claude",
    sessions_folder=_projects,
    memory=lazy(f"{__name__}.memory:read"),
    resume_argv=lazy(f"{__name__}.writer:resume_argv"),
    window_settings=rules.window_settings,
    # One request of `claude -p "hello there"` to a local fake model server from a fresh home (no MCP
    # servers or memory files), counted by o200k_base (2026-12-03).
    overhead=Overhead(
        11_296,
        "Claude Code 2.1.332",
        (
            ("system prompt", 1_557),
            ("tool definitions (12 tools)", 7_484),
            ("injected context (attribution reminder, role:system environment message)", 2_255),
        ),
    ),
    mcp=MCP,
)
