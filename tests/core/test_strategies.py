"""The strategy table is the one place strategies are described; everything else follows from it."""

from __future__ import annotations

from smig_tui.core.models import Strategy
from smig_tui.core.strategies import STRATEGIES, SUMMARY_STRATEGIES, TAB_STRATEGIES, info_of, needs_summary
from smig_tui.mcp.schemas import STRATEGIES as MCP_STRATEGIES
from smig_tui.tui.widgets.preview_tabs import TABS


def test_every_strategy_has_exactly_one_row() -> None:
    assert sorted(info.strategy for info in STRATEGIES) == sorted(Strategy)
    assert all(info_of(strategy).strategy is strategy for strategy in Strategy)


def test_the_summary_strategies_are_the_ones_with_a_summary_hole() -> None:
    assert set(SUMMARY_STRATEGIES) == {Strategy.SUMMARY, Strategy.SUMMARY_TAIL}
    assert needs_summary("summary-tail") and not needs_summary(Strategy.TOOLS_FIRST)


def test_tabs_and_mcp_descriptions_follow_the_table() -> None:
    assert [strategy for strategy, _, _ in TABS] == list(TAB_STRATEGIES)
    assert Strategy.AS_IS not in TAB_STRATEGIES
    assert set(MCP_STRATEGIES) == {strategy.value for strategy in Strategy}
    assert MCP_STRATEGIES["summary"].endswith("(commit needs yes_send=true)")
    assert "yes_send" not in MCP_STRATEGIES["truncate"]
