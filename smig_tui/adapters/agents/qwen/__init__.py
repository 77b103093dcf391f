"""Qwen Code (`@qwen-code/qwen-code`, checked with 0.24.4): its sessions read, and written for it to resume."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead
from smig_tui.adapters.agents.qwen.home import HOME_VARIABLE, RUNTIME_VARIABLE, projects_folder, resolve_home
from smig_tui.adapters.agents.qwen.mcp import MCP
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.memory_files import MemoryContext
    from smig_tui.adapters.paths import Paths
    from smig_tui.core.agent_rules import WindowAdjust
    from smig_tui.core.memory_model import AgentMemory, MemoryRules
    from smig_tui.core.ports import NativeWriter, SessionSource, Watched


def _usable(window: int, auto_compact: int | None) -> int:
    """What fits before Qwen Code compresses, by default (`rules.usable`)."""
    from smig_tui.adapters.agents.qwen.rules import usable

    return usable(window, auto_compact)


def _window_settings(env: Env) -> WindowAdjust | None:
    from smig_tui.adapters.agents.qwen.rules import window_settings

    return window_settings(env)


def _projects(env: Env) -> Path:
    return projects_folder(env)


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


def _resume_argv(session_id: str) -> tuple[str, ...]:
    from smig_tui.adapters.agents.qwen.writer import resume_argv

    return resume_argv(session_id)


def _memory(context: MemoryContext) -> AgentMemory:
    from smig_tui.adapters.agents.qwen.memory import read

    return read(context)


def _memory_rules() -> MemoryRules:
    from smig_tui.adapters.agents.qwen.memory import RULES

    return RULES


PROFILE = AgentProfile(
    AgentRules("qwen", "Qwen Code", providers=("qwen",), usable=_usable, choice_rank=5, memory=_memory_rules),
    hand_to="claude",
    default_target="claude-sonnet-5-5",
    shown_when_empty=False,
    home=resolve_home,
    source=_source,
    watched=_watched,
    writer=_writer,
    memory=_memory,
    resume_argv=_resume_argv,
    program="qwen",
    home_variables=(HOME_VARIABLE, RUNTIME_VARIABLE),
    sessions_folder=_projects,
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
    window_settings=_window_settings,
    mcp=MCP,
)
