"""Provides the preview tabs: one per compression strategy."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import ProgressBar, Static, TabbedContent, TabPane

from smig_tui.core.models import Plan, Strategy
from smig_tui.core.plans import left_out
from smig_tui.core.strategies import STRATEGIES, SUMMARY_STRATEGIES
from smig_tui.tui.widgets.plan_table import PlanTable
from smig_tui.tui.widgets.summary_pane import SummaryPane

TABS: tuple[tuple[Strategy, str, str], ...] = tuple(
    (info.strategy, info.strategy.value, info.title) for info in STRATEGIES if info.tab
)
"""(strategy, tab id, title) of each preview tab, from the strategy table."""
PLANNING = "Planning… (the tab on show is planned first; this one follows)"


def plan_line(plan: Plan, exact: bool = True) -> str:
    """One line about a plan: what it costs first (the part a narrow screen must keep), then what
    survives and what it leaves out (the note's figures)."""
    omitted, omitted_tokens = left_out(plan)
    about = "" if exact and not plan.decision.partial else "≈"
    after = "" if exact else "≈"
    return (
        f"{about}{plan.tokens_before:,} → {after}{plan.tokens_after:,} tokens"
        f" · keeps {len(plan.kept):,} messages · leaves out {omitted:,} ({omitted_tokens:,} tokens)"
    )


def _same(shown: frozenset[str], estimated: frozenset[str]) -> bool:
    """Whether two sets of estimated ids are equal: the same set object (the services cache it per count)
    is, without comparing 150,000 ids."""
    return shown is estimated or shown == estimated


class PreviewTabs(Vertical):
    """Truncation, tools-first, summary and summary-plus-tail previews of the selected session."""

    DEFAULT_CSS = """
    PreviewTabs { height: 1fr; }
    PreviewTabs TabbedContent { height: 1fr; }
    PreviewTabs TabPane { height: 1fr; padding: 0; }
    PreviewTabs .plan-line { height: 1; padding: 0 1; color: $text-muted; }
    PreviewTabs #tail-summary { height: 2fr; }
    PreviewTabs PlanTable { height: 1fr; }
    PreviewTabs #loading { height: auto; padding: 0 1; display: none; }
    PreviewTabs.-loading #loading { display: block; }
    PreviewTabs.-loading TabbedContent { display: none; }
    PreviewTabs #loading-bar { width: 100%; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: dict[str, tuple[Plan, bool]] = {}
        """The plan (and exactness) each tab's line was written from: a line is worked out once per
        plan, not again each time the plans are shown (the other tabs' arrival shows them all)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="loading"):
            yield Static("", id="loading-text")
            yield ProgressBar(id="loading-bar", show_eta=False)
        with TabbedContent(id="tabs"):
            for strategy, key, title in TABS:
                with TabPane(title, id=f"tab-{key}"):
                    yield Static("", classes="plan-line", id=f"line-{key}")
                    if strategy is Strategy.SUMMARY:
                        yield SummaryPane(id="full-summary")
                    elif strategy is Strategy.SUMMARY_TAIL:
                        yield SummaryPane(id="tail-summary")
                        yield PlanTable(id=f"table-{key}")
                    else:
                        yield PlanTable(id=f"table-{key}")

    @property
    def strategy(self) -> Strategy:
        """The strategy of the tab on show."""
        active = self.query_one(TabbedContent).active.removeprefix("tab-")
        return next(strategy for strategy, key, _ in TABS if key == active)

    def activate(self, strategy: Strategy) -> None:
        """Switch to a strategy's tab."""
        key = next(key for item, key, _ in TABS if item is strategy)
        self.query_one(TabbedContent).active = f"tab-{key}"

    def table(self, strategy: Strategy | None = None) -> PlanTable | None:
        """The kept/dropped table of a tab (the summary-only tab has none)."""
        key = next(key for item, key, _ in TABS if item is (strategy or self.strategy))
        found = self.query(f"#table-{key}")
        return found.first(PlanTable) if found else None

    def summary_pane(self, strategy: Strategy | None = None) -> SummaryPane | None:
        """The summary pane of a summary tab."""
        strategy = strategy or self.strategy
        if strategy is Strategy.SUMMARY:
            return self.query_one("#full-summary", SummaryPane)
        if strategy is Strategy.SUMMARY_TAIL:
            return self.query_one("#tail-summary", SummaryPane)
        return None

    def show_plans(
        self,
        plans: dict[Strategy, Plan],
        pins: frozenset[str],
        estimated: frozenset[str] = frozenset(),
        exact: bool = True,
        pending: frozenset[Strategy] = frozenset(),
    ) -> None:
        """Fill every tab from its plan; `estimated` rows (or all, when not `exact`) are marked ≈.

        A `pending` strategy's tab is emptied and says it is being planned, so it never shows
        figures of the previous target or session; a table already showing this very plan is left
        as it is.
        """
        for strategy, key, _ in TABS:
            plan = plans.get(strategy)
            line = self.query_one(f"#line-{key}", Static)
            table = self.table(strategy)
            if plan is None:
                self._lines.pop(key, None)
                line.update(PLANNING if strategy in pending else "The planner has no plan for this strategy yet.")
                if table is not None and table.plan is not None:
                    table.forget()
                continue
            written = self._lines.get(key)
            if written is None or written[0] is not plan or written[1] != exact:
                line.update(plan_line(plan, exact))
                self._lines[key] = plan, exact
            if table is None or (table.plan is plan and table.exact == exact and _same(table.estimated, estimated)):
                continue
            table.show_plan(plan, pins, estimated, exact)

    def clear_plans(self) -> None:
        """Empty every table at once, so no row of the previous session stays on show."""
        for strategy, _, _ in TABS:
            table = self.table(strategy)
            if table is not None:
                table.forget()
        for strategy in SUMMARY_STRATEGIES:
            pane = self.summary_pane(strategy)
            if pane is not None:
                pane.finish("")
                pane.show_notice("")

    def show_loading(self, done: int, total: int) -> None:
        """Show how much of the session file is read: a bar, the bytes, and how to stop."""
        self.add_class("-loading")
        mb = 1024 * 1024
        self.query_one("#loading-text", Static).update(
            f"Reading the session… {done / mb:,.1f} of {total / mb:,.1f} MB · Escape cancels"
        )
        self.query_one("#loading-bar", ProgressBar).update(total=max(1, total), progress=done)

    def hide_loading(self) -> None:
        """Back to the tabs."""
        self.remove_class("-loading")

    def show_note(self, text: str) -> None:
        """Put the same note on every tab (nothing selected, planner missing)."""
        self._lines.clear()
        for _, key, _ in TABS:
            self.query_one(f"#line-{key}", Static).update(text)
