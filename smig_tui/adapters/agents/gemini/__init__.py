"""Gemini CLI (`@google/gemini-cli`, checked with 0.61.0): its sessions read, and written for it to resume."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.gemini.home import HOME_VARIABLE, resolve_home
from smig_tui.adapters.agents.gemini.mcp import MCP
from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead, lazy, lazy_value
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource, Watched

COMPRESS_PERCENT = 50
"""Gemini CLI compresses the chat at half of the model's token limit (`model.compressionThreshold`)."""


def _usable(window: int, _auto_compact: int | None) -> int:
    return window * COMPRESS_PERCENT // 100


def _tmp(env: Env) -> Path:
    return resolve_home(env) / "tmp"


def _source(paths: Paths, env: Env) -> SessionSource:
    from smig_tui.adapters.agents.gemini.source import GeminiSource

    return GeminiSource(resolve_home(env), listing_cache=PROFILE.listing_cache(paths))


def _watched(_paths: Paths, env: Env) -> list[Watched]:
    """A listing reads `tmp/`'s tree (each project's `chats/` and `.project_root`) and `projects.json`."""
    from smig_tui.core.ports import Watched

    home = resolve_home(env)
    return [Watched(str(home / "tmp"), tree=True), Watched(str(home / "projects.json"))]


def _writer(_paths: Paths, env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.gemini.writer import GeminiWriter

    return GeminiWriter(resolve_home(env))


PROFILE = AgentProfile(
    AgentRules(
        "gemini",
        "Gemini CLI",
        providers=("google",),
        usable=_usable,
        choice_rank=3,
        memory=lazy_value(f"{__name__}.memory:RULES"),
    ),
    hand_to="codex",
    default_target="claude-sonnet-5-5",
    shown_when_empty=False,
    home=resolve_home,
    source=_source,
    watched=_watched,
    writer=_writer,
    memory=lazy(f"{__name__}.memory:read"),
    resume_argv=lazy(f"{__name__}.writer:resume_argv"),
    home_variables=(HOME_VARIABLE,),
    program="gemini",
    sessions_folder=_tmp,
    # `gemini -p "hello there" -m gemini-2.5-pro` against the fake Gemini API of
    # tests/e2e/fake_gemini_server.py (GOOGLE_GEMINI_BASE_URL) from a fresh home, counted by o200k_base
    # (2026-12-03); its <session_context> lists up to 200 entries of the project folder.
    overhead=Overhead(
        6_504,
        "Gemini CLI 0.61.0",
        (
            ("system prompt", 4_718),
            ("tool definitions (8 tools)", 1_667),
            ("injected context (<session_context> of an empty project folder)", 119),
        ),
        for_folder=lazy(f"{__name__}.context:folder_listing"),
    ),
    mcp=MCP,
)
