"""Provides the facts about the selected session and how it measures against the target."""

from __future__ import annotations

import re

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from smig_tui.core.agent_rules import rules_of
from smig_tui.core.models import Decision, ModelCapacity, Session, SessionInfo
from smig_tui.tui.fitting import fit_parts, markup_len
from smig_tui.tui.widgets.token_gauge import TokenGauge


def _stamp(value: str | None) -> str:
    return (value or "—")[:16].replace("T", " ")


def _one_line(text: str, width: int) -> str:
    """Text on one line of `width` cells, its end replaced by `…` when longer (titles only: never figures)."""
    flat = " ".join(text.split())
    if width <= 0 or cell_len(flat) <= width:
        return flat
    while flat and cell_len(flat) > width - 1:
        flat = flat[:-1]
    return flat + "…"


def facts_markup(info: SessionInfo, session: Session | None, compact: bool = False, width: int = 0) -> str:
    """The header lines: title, agent, model, folder, dates, messages (compact: the title on one line,
    then agent, model, messages and age; the model is left out rather than wrapping the figures)."""
    count = len(session.messages) if session is not None else info.message_count
    if compact:
        title = f"[b]{Content(_one_line(info.title or info.id, width)).markup}[/b]"
        figures = f"{'…' if count is None else count} msgs · {_stamp(info.updated)}"
        line = f"{info.agent.value} · {info.model or '—'} · {figures}"
        if width and cell_len(line) > width:
            line = f"{info.agent.value} · {figures}"
        return f"{title}\n{Content(line).markup}"
    lines = [
        f"[b]{Content(info.title or info.id).markup}[/b]",
        f"[$text-muted]agent[/] {info.agent.value}   [$text-muted]model[/] {info.model or '—'}"
        f"   [$text-muted]messages[/] {'…' if count is None else count}",
        f"[$text-muted]cwd[/] {Content(info.cwd or '—').markup}",
        f"[$text-muted]created[/] {_stamp(info.created)}   [$text-muted]updated[/] {_stamp(info.updated)}"
        f"   [$text-muted]id[/] {info.id}",
    ]
    return "\n".join(lines)


def short_counter(label: str) -> str:
    """An estimate's counter label cut to its factor and ± (`× 1.047 ±16%`) for the compact card;
    the label as it is when it has no factor."""
    factor = re.search(r"× [\d.]+", label)
    margin = re.search(r"±\d+%|± not measured", label)
    return " ".join(m.group(0) for m in (factor, margin) if m) if factor else label


def tokens_markup(measured: int | None, estimate: int | None, exact: bool, counter: str, width: int = 0) -> str:
    """The token line: what the agent logged and what smig counts, the estimate labelled."""
    logged = f"{measured:,} logged by the agent" if measured is not None else "not logged by the agent"
    if estimate is None:
        counted = "counting…"
    elif exact:
        counted = f"{estimate:,} counted ({counter})"
    else:
        counted = f"{estimate:,} [$warning]estimated[/] ({counter})"
    return fit_parts([f"[$text-muted]tokens[/] {counted}", logged], width, measure=markup_len)


def decision_markup(target: ModelCapacity, decision: Decision, compact: bool = False, width: int = 0) -> str:
    """The verdict line: fits as-is, or must compress by how much (compact: one line); a figure stays
    on the line of its label when the card is narrow."""
    name = Content(target.name).markup
    if compact:
        verdict = "[$success b]✓ fits[/]" if decision.fits else f"[$error b]✗ over by {decision.over_by:,}[/]"
        return fit_parts([f"[b]{name}[/b] budget {decision.budget:,}", verdict], width, measure=markup_len)
    parts = [
        f"[$text-muted]target[/] [b]{name}[/b] ({Content(target.provider).markup})",
        f"window {decision.window:,}",
        f"reserve {decision.reserve:,}",
        *([usable] if (usable := _usable_part(decision)) else []),
        *([f"agent overhead {decision.overhead:,}"] if decision.overhead else []),
        f"budget {decision.budget:,}",
    ]
    head = fit_parts(parts, width, measure=markup_len)
    if decision.fits:
        verdict = "[$success b]✓ fits as-is[/]"
    else:
        verdict = f"[$error b]✗ must compress[/] by {decision.over_by:,} tokens"
    return f"{head}\n{verdict}"


def _usable_part(decision: Decision) -> str:
    """The receiving agent's usable window when it is what limits the room, named by whose rule gave it."""
    limit = decision.prompt_limit
    if not decision.harness or limit is None or limit >= decision.window - decision.reserve:
        return ""
    rules = rules_of(decision.harness_agent) if decision.harness_agent else None
    return f"{rules.name if rules else 'usable'} share {limit:,}"


class SessionCard(Vertical):
    """Title, agent, model, folder, dates, message count, tokens, gauge and decision."""

    DEFAULT_CSS = """
    SessionCard { height: auto; }
    SessionCard > Static { height: auto; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.compact = False
        """Two-line facts and a one-line verdict, for small terminals."""
        self._shown: tuple[SessionInfo, Session | None] | None = None
        self._note = ""
        """The note shown instead of a decision, kept across a resize."""
        self._idle: list[tuple[str, int]] | None = None
        """The sessions per agent shown while none is open."""
        self._measured: tuple[Session, ModelCapacity, Decision, int, bool, str] | None = None
        self._places: list[tuple[str, str, tuple[str, ...]]] | None = None
        """Where smig looked, while the first-run text is on show."""

    def set_compact(self, compact: bool) -> None:
        """Switch between the full and the compact card, redrawing what is on show."""
        if compact == self.compact:
            return
        self.compact = compact
        self.set_class(compact, "-compact")
        if self._shown is not None:
            self.show_session(*self._shown)
        if self._measured is not None:
            self.show_measure(*self._measured)
        if self._places is not None:
            self.show_empty(self._places)

    def compose(self) -> ComposeResult:
        yield Static("Select a session on the left (Enter) to measure it.", id="facts")
        yield Static("", id="tokens")
        yield TokenGauge(id="gauge")
        yield Static("", id="decision")

    def show_session(self, info: SessionInfo, session: Session | None) -> None:
        """Show the header facts; token lines wait for the count."""
        self._shown, self._measured, self._note, self._places = (info, session), None, "", None
        width = self.content_region.width
        self.query_one("#facts", Static).update(Content.from_markup(facts_markup(info, session, self.compact, width)))
        measured = session.measured_context_tokens if session else info.context_tokens
        self.query_one("#tokens", Static).update(Content.from_markup(tokens_markup(measured, None, True, "", width)))
        self.query_one(TokenGauge).show(None)
        self.query_one("#decision", Static).update("")

    def show_measure(
        self,
        session: Session,
        target: ModelCapacity,
        decision: Decision,
        estimate: int,
        exact: bool,
        counter: str,
    ) -> None:
        """Show the count against the target and the decision."""
        self._measured = (session, target, decision, estimate, exact, counter)
        if self.compact and not exact:  # two lines at 80x24: the factor and its ± say what matters
            counter = short_counter(counter)
        if decision.partial:  # only the newest messages were counted; older ones are length guesses
            exact, counter = False, f"{counter}: newest counted, older ≈"
        width = self.content_region.width
        line = tokens_markup(session.measured_context_tokens, estimate, exact, counter, width)
        self.query_one("#tokens", Static).update(Content.from_markup(line))
        self.query_one(TokenGauge).show(decision)
        verdict = decision_markup(target, decision, self.compact, width)
        self.query_one("#decision", Static).update(Content.from_markup(verdict))

    def show_idle(self, detected: list[tuple[str, int]]) -> None:
        """Before a session is opened: how to open one, and how many sessions each agent has here."""
        self._shown = self._measured = self._places = None
        self._idle = detected
        width = self.content_region.width
        parts = [f"{name} {count:,}" for name, count in detected]
        counts = fit_parts([f"detected: {parts[0]}", *parts[1:]] if parts else [], width)
        self.query_one("#facts", Static).update(
            Content.from_markup(
                "Enter opens the highlighted session and measures it; / filters, Space peeks.\n"
                f"{Content(counts).markup}"
            )
        )

    def on_resize(self) -> None:
        """Lay the lines out again for the new width (figures stay with their labels)."""
        if self._idle is not None and self._shown is None:
            self.show_idle(self._idle)
        elif self._shown is not None:
            measured, note = self._measured, self._note
            self.show_session(*self._shown)
            if measured is not None:
                self.show_measure(*measured)
            elif note:
                self.show_note(note)

    def show_empty(self, places: list[tuple[str, str, tuple[str, ...]]]) -> None:
        """Say there is nothing to migrate yet, where smig looked for each agent, and what to do."""
        self._shown = self._measured = None
        self._places = places
        lines = ["No sessions found. smig looked for each agent's sessions in:"]
        for name, where, variables in places:
            # A small terminal keeps the places whole and leaves the variables to `smig doctor`.
            moved = f" (moved by {' or '.join(variables)})" if variables and not self.compact else ""
            lines.append(f"  {name}: {where}{moved}")
        if self.compact and any(variables for _, _, variables in places):
            lines.append("Each is moved by a variable: `smig doctor` names them.")
        lines.append(
            "If an agent keeps them elsewhere, quit (q) and start smig again with that variable set:"
            " smig reads it at launch. r scans these places again, for sessions written since."
        )
        self.query_one("#facts", Static).update(Content("\n".join(lines)))

    def show_note(self, text: str) -> None:
        """Show why there is no decision (planner missing, unknown target)."""
        self._measured = None
        self._note = text
        self.query_one(TokenGauge).show(None)
        self.query_one("#decision", Static).update(Content(text))
