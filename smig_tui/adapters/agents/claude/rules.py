"""Provides Claude Code's window rules: its auto-compact margin, its 1M variants, and the switch that turns them off.

Claude Code auto-compacts about 33k tokens before the window (20k kept for output, 13k buffer);
`name[1m]` opens a model's window to its maximum; `CLAUDE_CODE_DISABLE_1M_CONTEXT`, in the
environment or in the `env` table of `$CLAUDE_CONFIG_DIR/settings.json`, holds native-1M models to 200K.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from smig_tui.adapters.agents.claude.home import resolve_home
from smig_tui.adapters.agents.profile import Env, environment
from smig_tui.adapters.agents.settings_files import read_json, truthy
from smig_tui.core.agent_rules import WindowAdjust
from smig_tui.core.models import AgentWindow, ModelCapacity, Usage

COMPACT_MARGIN = 33_000
WINDOW_WITHOUT_1M = 200_000
DISABLE_1M = "CLAUDE_CODE_DISABLE_1M_CONTEXT"


def usable(window: int, _auto_compact: int | None) -> int:
    """What a conversation can fill of `window` before Claude Code auto-compacts."""
    return max(1, window - COMPACT_MARGIN)


def usage_context(usage: Usage) -> int:
    """Claude logs uncached input, cache reads and cache writes separately: they add up."""
    return usage.input_tokens + usage.cached_input_tokens + usage.cache_creation_tokens


def window_settings(env: Env) -> WindowAdjust | None:
    """How the user's settings change Claude Code's windows (None: they change nothing)."""
    if truthy(environment(env).get(DISABLE_1M)):
        where = "the environment"
    else:
        settings = resolve_home(env).root / "settings.json"
        settings_env = read_json(settings).get("env")
        if not (isinstance(settings_env, dict) and truthy(settings_env.get(DISABLE_1M))):
            return None
        where = str(settings)

    def adjust(
        _model: ModelCapacity, agent: AgentWindow, _lookup: Callable[[str], ModelCapacity | None]
    ) -> AgentWindow:
        if agent.window < 1_000_000:
            return agent
        return replace(
            agent,
            window=WINDOW_WITHOUT_1M,
            usable=usable(WINDOW_WITHOUT_1M, None),
            source=f"{DISABLE_1M} in {where} holds it to 200K",
        )

    return adjust
