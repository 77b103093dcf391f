"""Provides where Gemini CLI keeps its files: `$GEMINI_CLI_HOME/.gemini`, default `~/.gemini`."""

from __future__ import annotations

from pathlib import Path

from smig_tui.adapters.agents.profile import Env, environment

HOME_VARIABLE = "GEMINI_CLI_HOME"


def resolve_home(env: Env = None) -> Path:
    """Gemini CLI's folder as the environment sets it, as Gemini CLI does."""
    variables = environment(env)
    return Path(variables.get(HOME_VARIABLE) or variables.get("HOME") or Path.home()) / ".gemini"
