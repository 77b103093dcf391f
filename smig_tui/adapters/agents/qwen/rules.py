"""Provides what the user's Qwen Code settings change of its windows.

Qwen Code 0.24.4 reads, from `$QWEN_HOME/settings.json` (`~/.qwen`): `model.generationConfig.
contextWindowSize`, the window it assumes for the selected model (`model.name`); `context.
autoCompactThreshold`, the share of that window at which it compresses (0.85 by default, never later
than 33,000 tokens before the end); and `model.sessionTokenLimit`, past which it refuses to send the
session's next prompt at all. Each lowers (or, the window, sets) what a migrated conversation may fill.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from smig_tui.adapters.agents.profile import Env
from smig_tui.adapters.agents.qwen.home import resolve_home
from smig_tui.adapters.agents.settings_files import positive, read_json
from smig_tui.core.agent_rules import WindowAdjust
from smig_tui.core.models import AgentWindow, ModelCapacity

COMPACT_PERCENT = 85
"""Qwen Code compresses at 85% of the window (`context.autoCompactThreshold`, 0.85 by default) ..."""
COMPACT_RESERVE = 20_000 + 13_000
"""... or earlier, when less than this is left: room for the reply and the compression request (`computeThresholds`)."""


def usable(window: int, auto_compact: int | None, share: float | None = None) -> int:
    """What fits before Qwen Code compresses: `min(share × window, window − 33,000)` (the share alone when
    the window is smaller than the reserve), the share 85% unless set; a limit, when set, and lower."""
    proportional = window * COMPACT_PERCENT // 100 if share is None else int(window * share)
    ceiling = window - COMPACT_RESERVE
    fits = max(0, min(proportional, ceiling) if ceiling > 0 else proportional)
    return min(fits, auto_compact) if auto_compact else fits


def _section(settings: dict[str, Any], *keys: str) -> dict[str, Any]:
    for key in keys:
        value = settings.get(key)
        settings = value if isinstance(value, dict) else {}
    return settings


def window_settings(env: Env) -> WindowAdjust | None:
    """How the user's `settings.json` changes Qwen Code's windows (None: it changes nothing)."""
    where = resolve_home(env) / "settings.json"
    settings = read_json(where)
    model = _section(settings, "model")
    context_window = positive(_section(model, "generationConfig").get("contextWindowSize"))
    limit = positive(model.get("sessionTokenLimit"))
    threshold = _section(settings, "context").get("autoCompactThreshold")
    share = threshold if isinstance(threshold, int | float) and not isinstance(threshold, bool) else None
    share = share if share is not None and 0 < share <= 1 else None
    model_name = model.get("name") if isinstance(model.get("name"), str) else None
    if not context_window and not limit and share is None:
        return None

    def adjust(
        capacity: ModelCapacity, agent: AgentWindow, lookup: Callable[[str], ModelCapacity | None]
    ) -> AgentWindow:
        meant_for = lookup(model_name) if model_name else None
        if context_window and model_name and (meant_for is None or meant_for.name != capacity.name):
            return agent  # the window is set for another model (or one smig does not know)
        window, notes = context_window or agent.window, []
        if context_window:
            notes.append(f"model.generationConfig.contextWindowSize {context_window:,}")
        if share is not None:
            notes.append(f"context.autoCompactThreshold {share:g}")
        if limit:
            notes.append(f"model.sessionTokenLimit {limit:,}")
        fits = usable(window, limit, share)
        return replace(agent, window=window, usable=fits, source=f"{' and '.join(notes)} in {where}")

    return adjust
