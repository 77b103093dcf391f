"""Provides Codex's window rules: the share of a window it fills, and what its `config.toml` changes.

Codex fills 95% of `model_context_window` (its `effective_context_window_percent`). In
`$CODEX_HOME/config.toml` (the active `profile`'s values win over the top-level ones),
`model_context_window` moves the window (capped at the catalog's `max_context_window`),
`model_auto_compact_token_limit` compacts earlier, and `model` names the model both are meant for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from smig_tui.adapters.agents.codex.home import resolve_home
from smig_tui.adapters.agents.profile import Env
from smig_tui.adapters.agents.settings_files import positive, read_toml
from smig_tui.core.agent_rules import WindowAdjust
from smig_tui.core.models import AgentWindow, ModelCapacity, Usage

USABLE_PERCENT = 95


def usable(window: int, auto_compact: int | None) -> int:
    """What a conversation can fill of `window` before Codex compacts."""
    share = window * USABLE_PERCENT // 100
    return min(share, auto_compact) if auto_compact else share


def usage_context(usage: Usage) -> int:
    """Codex logs all prompt tokens as `input_tokens`, cached ones being a subset."""
    return usage.input_tokens


def _settings(config: dict[str, Any]) -> dict[str, Any]:
    """Merge the active profile's keys over the top-level ones, as Codex does."""
    merged = dict(config)
    profile = config.get("profile")
    profiles = config.get("profiles")
    if isinstance(profile, str) and isinstance(profiles, dict) and isinstance(profiles.get(profile), dict):
        merged.update(profiles[profile])
    return merged


def window_settings(env: Env) -> WindowAdjust | None:
    """How the user's `config.toml` changes Codex's windows (None: it changes nothing)."""
    where = resolve_home(env).root / "config.toml"
    config = _settings(read_toml(where))
    context_window = positive(config.get("model_context_window"))
    auto_compact = positive(config.get("model_auto_compact_token_limit"))
    model_name = config.get("model") if isinstance(config.get("model"), str) else None
    if not context_window and not auto_compact:
        return None

    def adjust(model: ModelCapacity, agent: AgentWindow, lookup: Callable[[str], ModelCapacity | None]) -> AgentWindow:
        meant_for = lookup(model_name) if model_name else None
        if model_name and (meant_for is None or meant_for.name != model.name):
            return agent  # the settings are for another model (or one smig does not know)
        window, notes = agent.window, []
        if context_window:
            ceiling = agent.max_window or agent.window  # Codex caps model_context_window at its catalog's maximum
            window = min(context_window, ceiling)
            capped = f", capped at Codex's max_context_window {ceiling:,}" if window < context_window else ""
            notes.append(f"model_context_window {context_window:,}{capped}")
        if auto_compact:
            notes.append(f"model_auto_compact_token_limit {auto_compact:,}")
        return replace(
            agent, window=window, usable=usable(window, auto_compact), source=f"{' and '.join(notes)} in {where}"
        )

    return adjust
