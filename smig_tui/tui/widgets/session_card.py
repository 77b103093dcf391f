"""Provides the facts about the selected session and how it measures against the target."""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from smig_tui.core.models import Decision, ModelCapacity, Session, SessionInfo
from smig_tui.tui.widgets.token_gauge import TokenGauge


def _stamp(value: str | None) -> str:
    return (value or "—")[:16].replace("T", " ")


def facts_markup(info: SessionInfo, session: Session | None, compact: bool = False) -> str:
    """The header lines: title, agent, model, folder, dates, messages (compact: the first two)."""
    count = len(session.messages) if session is not None else info.message_count
    if compact:
        return "\n".join(
            [
                f"[b]{Content(info.title or info.id).markup}[/b]",
                f"{info.agent.value} · {info.model or '—'} · {'…' if count is None else count} msgs"
                f" · {_stamp(info.updated)}",
            ]
        )
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


def tokens_markup(measured: int | None, estimate: int | None, exact: bool, counter: str) -> str:
    """The token line: what the agent logged and what smig counts, the estimate labelled."""
    logged = f"{measured:,} logged by the agent" if measured is not None else "not logged by the agent"
    if estimate is None:
        counted = "counting…"
    elif exact:
        counted = f"{estimate:,} counted ({counter})"
    else:
        counted = f"{estimate:,} [$warning]estimated[/] ({counter})"
    return f"[$text-muted]tokens[/] {counted} · {logged}"


def decision_markup(target: ModelCapacity, decision: Decision, compact: bool = False) -> str:
    """The verdict line: fits as-is, or must compress by how much (compact: one line)."""
    if compact:
        verdict = "[$success b]✓ fits[/]" if decision.fits else f"[$error b]✗ over by {decision.over_by:,}[/]"
        return f"[b]{target.name}[/b] budget {decision.budget:,} · {verdict}"
    head = (
        f"[$text-muted]target[/] [b]{target.name}[/b] ({target.provider}) window {decision.window:,}"
        f" · reserve {decision.reserve:,}"
        + (f" · agent overhead {decision.overhead:,}" if decision.overhead else "")
        + f" · budget {decision.budget:,}"
    )
    if decision.fits:
        verdict = "[$success b]✓ fits as-is[/]"
    else:
        verdict = f"[$error b]✗ must compress[/] by {decision.over_by:,} tokens"
    return f"{head}\n{verdict}"


class SessionCard(Vertical):
    """Title, agent, model, folder, dates, message count, tokens, gauge and decision."""

    DEFAULT_CSS = """
    SessionCard { height: auto; }
    SessionCard > Static { height: auto; }
    SessionCard.-compact > Static { height: auto; max-height: 2; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.compact = False
        """Two-line facts and a one-line verdict, for small terminals."""
        self._shown: tuple[SessionInfo, Session | None] | None = None
        self._measured: tuple[Session, ModelCapacity, Decision, int, bool, str] | None = None

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

    def compose(self) -> ComposeResult:
        yield Static("Select a session on the left (Enter) to measure it.", id="facts")
        yield Static("", id="tokens")
        yield TokenGauge(id="gauge")
        yield Static("", id="decision")

    def show_session(self, info: SessionInfo, session: Session | None) -> None:
        """Show the header facts; token lines wait for the count."""
        self._shown, self._measured = (info, session), None
        self.query_one("#facts", Static).update(Content.from_markup(facts_markup(info, session, self.compact)))
        measured = session.measured_context_tokens if session else info.context_tokens
        self.query_one("#tokens", Static).update(Content.from_markup(tokens_markup(measured, None, True, "")))
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
        line = tokens_markup(session.measured_context_tokens, estimate, exact, counter)
        self.query_one("#tokens", Static).update(Content.from_markup(line))
        self.query_one(TokenGauge).show(decision)
        self.query_one("#decision", Static).update(Content.from_markup(decision_markup(target, decision, self.compact)))

    def show_empty(self, folders: list[str]) -> None:
        """Say there is nothing to migrate yet, and where smig looked."""
        lines = "\n".join(f"  {folder}" for folder in folders)
        self.query_one("#facts", Static).update(
            Content(
                f"No Codex or Claude Code sessions found. smig looked in:\n{lines}\n"
                "Set CODEX_HOME or CLAUDE_CONFIG_DIR if the agents keep them elsewhere, then press r."
            )
        )

    def show_note(self, text: str) -> None:
        """Show why there is no decision (planner missing, unknown target)."""
        self.query_one(TokenGauge).show(None)
        self.query_one("#decision", Static).update(Content(text))
