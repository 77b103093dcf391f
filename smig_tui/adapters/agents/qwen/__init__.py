"""Qwen Code (`@qwen-code/qwen-code`, checked with 0.24.4): its sessions read, and written for it to resume."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead, lazy, lazy_value
from smig_tui.adapters.agents.qwen.home import HOME_VARIABLE, RUNTIME_VARIABLE, projects_folder, resolve_home
from smig_tui.adapters.agents.qwen.mcp import MCP
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource, Watched


def _source(paths: Paths, env: Env) -> SessionSource:
    from smig_tui.adapters.agents.qwen.source import QwenSource

    return QwenSource(projects_folder(env), listing_cache=PROFILE.listing_cache(paths))


def _watched(_paths: Paths, env: Env) -> list[Watched]:
    """A listing reads the projects' tree (each project's `chats/`)."""
    from smig_tui.core.ports import Watched

    return [Watched(str(projects_folder(env)), tree=True)]


def _writer(_paths: Paths, env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.qwen.writer import QwenWriter

    return QwenWriter(env)


PROFILE = AgentProfile(
    AgentRules(
        "qwen",
        "Qwen Code",
        providers=("qwen",),
        usable=lazy(f"{__name__}.rules:usable"),  # what fits before Qwen Code compresses, by default
        choice_rank=5,
        memory=lazy_value(f"{__name__}.memory:RULES"),
    ),
    hand_to="claude",
    default_target="claude-sonnet-5-5",
    shown_when_empty=False,
    home=resolve_home,
    source=_source,
    watched=_watched,
    writer=_writer,
    memory=lazy(f"{__name__}.memory:read"),
    resume_argv=lazy(f"{__name__}.writer:resume_argv"),
    program="qwen",
    home_variables=(HOME_VARIABLE, RUNTIME_VARIABLE),
    sessions_folder=projects_folder,
    # `qwen "hello there"` (OpenAI auth, qwen3-coder-plus) against tests/e2e/fake_model_server.py from a
    # fresh home in an empty folder, counted by o200k_base (tests/fixtures/real/qwen/scenarios.json,
    # 2026-12-05). Interactive: the mode a user resumes a migration in, with all 20 tools.
    overhead=Overhead(
        18_067,
        "Qwen Code 0.24.4",
        (
            ("system prompt", 4_666),
            ("tool definitions (20 tools, interactive)", 11_204),
            ("injected context (startup context and date reminder, empty folder)", 2_197),
        ),
    ),
    client_words=("qwen",),
    window_settings=lazy(f"{__name__}.rules:window_settings"),
    mcp=MCP,
)
