"""Provides the preview tabs: one per compression strategy."""

from __future__ import annotations

from rich.cells import cell_len
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
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
SHORT_TITLES: dict[Strategy, str] = {
    Strategy.TRUNCATE: "Trunc.",
    Strategy.TOOLS_FIRST: "Tools",
    Strategy.SUMMARY: "Summary",
    Strategy.SUMMARY_TAIL: "Sum.+tail",
}
"""The tabs' titles on a narrow screen, where the four full ones do not fit side by side."""
SHORT_TITLES_BELOW = 54
"""Below this many columns the tabs use their short titles, so all four show."""
PLANNING = "Planning… (the tab on show is planned first; this one follows)"


def over_budget(plan: Plan) -> int:
    """How many tokens the plan is still over its budget (pins, or a note, that do not fit); 0 when it fits."""
    return max(0, plan.tokens_after - plan.decision.budget)


def over_budget_text(plan: Plan) -> str:
    """The warning for a plan that does not fit, with its figures: the same words in preview, dialog and result."""
    return f"over the {plan.decision.budget:,}-token budget by {over_budget(plan):,}"


def plan_line(plan: Plan, exact: bool = True, width: int = 0) -> str:
    """What a plan costs first (the part a narrow screen must keep), then what survives and what it
    leaves out (the note's figures), in as many words as `width` cells hold (0: all of them).

    Words go before figures do: the long forms give way to short ones, and the line never cuts a number.
    """
    omitted, omitted_tokens = left_out(plan)
    about = "" if exact and not plan.decision.partial else "≈"
    after = "" if exact else "≈"
    cost = f"{about}{plan.tokens_before:,} → {after}{plan.tokens_after:,} tokens"
    kept = len(plan.kept)  # once: each `kept` lists the kept indices anew (2 ms on a 500 MB session)
    for keeps, leaves in (
        (f"keeps {kept:,} messages", f"leaves out {omitted:,} ({omitted_tokens:,} tokens)"),
        (f"keeps {kept:,}", f"leaves out {omitted:,} ({omitted_tokens:,} tokens)"),
        (f"keeps {kept:,}", f"drops {omitted:,}"),
        (f"keeps {kept:,}", ""),
    ):
        line = " · ".join(part for part in (cost, keeps, leaves) if part)
        if not width or cell_len(line) <= width:
            return line
    return cost


def plan_content(plan: Plan, exact: bool, width: int) -> Content:
    """The plan's line, and under it, in the error colour, how far over budget it is when it does not fit."""
    line = Content(plan_line(plan, exact, width))
    if not over_budget(plan):
        return line
    warning = f"✗ {over_budget_text(plan)}"
    hint = ": unpin messages or pick a larger model (t)"
    if not width or cell_len(warning + hint) <= width:
        warning += hint
    return Content.assemble(line, "\n", (warning, "$text-error bold"))


def _contents(strategy: Strategy, key: str) -> list[Widget]:
    """What a tab shows under its plan line: the kept/dropped table, and on a summary tab the summary."""
    if strategy is Strategy.SUMMARY:
        return [SummaryPane(id="full-summary")]
    if strategy is Strategy.SUMMARY_TAIL:
        return [SummaryPane(id="tail-summary"), PlanTable(id=f"table-{key}")]
    return [PlanTable(id=f"table-{key}")]


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
    PreviewTabs .plan-line { height: auto; padding: 0 1; color: $text-muted; }
    PreviewTabs #tail-summary { height: 2fr; }
    PreviewTabs #tail-summary.-empty { height: auto; max-height: 50%; }
    PreviewTabs PlanTable { height: 1fr; }
    PreviewTabs #loading { height: auto; padding: 0 1; display: none; }
    PreviewTabs.-loading #loading { display: block; }
    PreviewTabs.-loading TabbedContent { display: none; }
    PreviewTabs #loading-bar { width: 100%; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: dict[str, tuple[Plan, bool, int]] = {}
        """The plan (exactness, width) each tab's line was written from: a line is worked out once per
        plan and width, not again each time the plans are shown (the other tabs' arrival shows them all)."""
        self.short_titles = False
        """The tabs show their short titles (a narrow screen)."""
        self._complete = False
        """The hidden tabs' tables and summary panes are mounted (`complete`)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="loading"):
            yield Static("", id="loading-text")
            yield ProgressBar(id="loading-bar", show_eta=False)
        with TabbedContent(id="tabs"):
            for index, (strategy, key, title) in enumerate(TABS):
                with TabPane(title, id=f"tab-{key}"):
                    yield Static("", classes="plan-line", id=f"line-{key}")
                    if index == 0:
                        yield from _contents(strategy, key)

    def complete(self) -> None:
        """Mount the hidden tabs' tables and summary panes, once. They are made after the first paint (a
        third of the main screen's widgets, about 80 ms of a start), and at once when something asks for one."""
        if self._complete:
            return
        self._complete = True
        for strategy, key, _ in TABS[1:]:
            self.query_one(f"#tab-{key}", TabPane).mount_all(_contents(strategy, key))

    @on(TabbedContent.TabActivated, "#tabs")
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id != f"tab-{TABS[0][1]}":  # the first tab shows at start, complete already
            self.complete()

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
        self.complete()
        found = self.query(f"#table-{key}")
        return found.first(PlanTable) if found else None

    def summary_pane(self, strategy: Strategy | None = None) -> SummaryPane | None:
        """The summary pane of a summary tab."""
        strategy = strategy or self.strategy
        self.complete()
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
            self._write_line(key, plan, exact)
            if table is None or (table.plan is plan and table.exact == exact and _same(table.estimated, estimated)):
                continue
            table.show_plan(plan, pins, estimated, exact)

    def _write_line(self, key: str, plan: Plan, exact: bool) -> None:
        """Write a tab's plan line for the width there is, unless it shows this very plan at this width."""
        width = max(0, self.content_region.width - 2)  # the line's padding
        written = self._lines.get(key)
        if written is None or written[0] is not plan or written[1:] != (exact, width):
            self.query_one(f"#line-{key}", Static).update(plan_content(plan, exact, width))
            self._lines[key] = plan, exact, width

    def on_resize(self) -> None:
        """Word the plan lines and the tabs' titles again for the new width."""
        self.set_short_titles(self.size.width < SHORT_TITLES_BELOW)
        for key, (plan, exact, _) in list(self._lines.items()):
            self._write_line(key, plan, exact)

    def set_short_titles(self, short: bool) -> None:
        """Use the tabs' short titles (a narrow screen) or their full ones."""
        if short == self.short_titles:
            return
        self.short_titles = short
        tabbed = self.query_one(TabbedContent)
        for strategy, key, title in TABS:
            tabbed.get_tab(f"tab-{key}").label = SHORT_TITLES.get(strategy, title) if short else title

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
        text = f"Reading the session… {done / mb:,.1f} of {total / mb:,.1f} MB · Escape cancels"
        shown = self.query_one("#loading-text", Static)
        # Same length, same words: it wraps as before, so only it is drawn again, not the screen laid out.
        shown.update(text, layout=len(text) != len(str(shown.content)))
        self.query_one("#loading-bar", ProgressBar).update(total=max(1, total), progress=done)

    def hide_loading(self) -> None:
        """Back to the tabs."""
        self.remove_class("-loading")

    def show_note(self, text: str) -> None:
        """Put the same note on every tab (nothing selected, planner missing)."""
        self._lines.clear()
        for _, key, _ in TABS:
            self.query_one(f"#line-{key}", Static).update(text)
