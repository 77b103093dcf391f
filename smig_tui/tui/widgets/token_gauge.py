"""Provides the gauge of a session's tokens against a target's window."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from smig_tui.core.models import Decision

FAR_OVER = 2.0
"""From this many budgets on, the gauge says "N× the budget" instead of a percentage nobody can picture."""


def gauge_label(decision: Decision) -> str:
    """The figure after the bar: the share of the window, or how many budgets when far over."""
    times = decision.session_tokens / max(1, decision.budget)
    if times >= FAR_OVER:
        return f"{times:,.0f}× the budget"
    return f"{100 * decision.session_tokens / max(1, decision.window):.0f}%"


def gauge_markup(decision: Decision, width: int) -> str:
    """Draw the bar in `width` cells, label included: used share, the reserve at the end, overflow marked."""
    window = max(1, decision.window)
    label = gauge_label(decision)
    cells = max(10, width - len(label) - 1)
    used = min(cells, round(cells * decision.session_tokens / window))
    reserve = min(cells - used, round(cells * decision.reserve / window))
    free = cells - used - reserve
    colour = "$success" if decision.fits else "$error"
    bar = f"[{colour}]{'█' * used}[/][$foreground-muted]{'░' * free}[/][$warning]{'▒' * reserve}[/]"
    return f"{bar} [b]{label}[/b]"


class TokenGauge(Static):
    """A bar of session tokens over the window, with the reserve for the reply."""

    DEFAULT_CSS = """
    TokenGauge { height: 1; width: 1fr; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.decision: Decision | None = None
        """The decision drawn, or None before a target is measured."""

    def show(self, decision: Decision | None) -> None:
        """Redraw for a new decision (None clears the bar)."""
        self.decision = decision
        self._redraw()

    def on_resize(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        if self.decision is None:
            self.update("")
            return
        width = max(10, self.size.width)
        self.update(Content.from_markup(gauge_markup(self.decision, width)))
