"""Provides the one table of compression strategies: every front end and writer reads it.

Adding a strategy is one row here (and its planner in `plans.make_plan`); the TUI's tabs, the
"needs a summary first" checks and the MCP tool descriptions follow from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from smig_tui.core.models import Strategy


@dataclass(frozen=True, slots=True)
class StrategyInfo:
    """What the front ends need to know about one strategy."""

    strategy: Strategy
    title: str
    """The TUI tab's title."""
    needs_summary: bool
    """Its plan has a hole for an LLM-written summary, which must exist before it is committed."""
    tab: bool
    """Shown as a preview tab (as-is is the plan of a session that fits, not a choice)."""
    description: str
    """One line for MCP clients and help texts."""


STRATEGIES: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        Strategy.TRUNCATE,
        "Truncation",
        False,
        True,
        "keep the newest whole messages that fit; a note replaces the older ones",
    ),
    StrategyInfo(
        Strategy.TOOLS_FIRST,
        "Tools first",
        False,
        True,
        "shorten or drop old tool output first, then truncate like truncate",
    ),
    StrategyInfo(Strategy.SUMMARY, "Summary", True, True, "an LLM summary of the older messages plus the newest ones"),
    StrategyInfo(
        Strategy.SUMMARY_TAIL, "Summary + tail", True, True, "an LLM summary of everything before the last user turn"
    ),
    StrategyInfo(Strategy.AS_IS, "As is", False, False, "keep everything (only when it fits, else an error)"),
)

TAB_STRATEGIES = tuple(info.strategy for info in STRATEGIES if info.tab)
"""The strategies the TUI plans and shows, in tab order."""
SUMMARY_STRATEGIES = tuple(info.strategy for info in STRATEGIES if info.needs_summary)
"""The strategies whose plan needs a summary written first."""


def needs_summary(strategy: Strategy | str) -> bool:
    """Tell whether a plan of this strategy must get its summary before it can be committed."""
    return Strategy(strategy) in SUMMARY_STRATEGIES


def info_of(strategy: Strategy | str) -> StrategyInfo:
    """The table row of one strategy."""
    wanted = Strategy(strategy)
    return next(info for info in STRATEGIES if info.strategy is wanted)
