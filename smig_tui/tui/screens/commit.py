"""Provides the commit confirmation: what plan is written (its figures, whether it fits), where, and for which agent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from smig_tui.core.models import Plan
from smig_tui.core.strategies import STRATEGIES
from smig_tui.services import agent_profiles
from smig_tui.tui.fitting import fit_parts
from smig_tui.tui.screens.confirm import ConfirmModal
from smig_tui.tui.widgets.preview_tabs import over_budget, over_budget_text

SHORT = 32
"""Screens shorter than this list four destinations at a time."""


def native_choices() -> tuple[tuple[str, str], ...]:
    """Each agent a native session can be written for (the registry's) in the order a user picks among them,
    then none."""
    writable = (entry for entry in agent_profiles() if entry.writer is not None and not entry.rules.read_only)
    entries = sorted(writable, key=lambda entry: (entry.rules.choice_rank, entry.id))
    return (*((entry.id, f"{entry.name} session") for entry in entries), ("", "No native session"))


def plan_parts(plan: Plan) -> list[str]:
    """The figures of what is written: strategy, tokens before → after, and whether it fits (by how much not)."""
    title = next((info.title for info in STRATEGIES if info.strategy is plan.strategy), str(plan.strategy))
    budget = plan.decision.budget
    if over_budget(plan):
        fit = f"✗ {over_budget_text(plan)}"
    else:
        fit = f"fits the {budget:,}-token budget ({budget - plan.tokens_after:,} to spare)"
    about = "" if plan.decision.exact else "≈"
    return [title, f"{about}{plan.tokens_before:,} → {about}{plan.tokens_after:,} tokens", fit]


@dataclass(frozen=True, slots=True)
class CommitChoice:
    """What the user confirmed: the outputs, the plan written for them, and the folder to write it for."""

    chosen: set[str]
    plan: Plan
    note: str = ""
    """Why the plan differs from the preview's (planned again for the chosen agent), or ''."""
    cwd: str | None = None
    """The folder typed in the dialog when it differs from the source's, else None."""


class CommitModal(ModalScreen[CommitChoice | None]):
    """Confirm a commit; returns what was chosen, or None when cancelled.

    Focus starts on the destination list: arrows move the choice, the paths and the plan's figures
    follow it, and Enter commits the highlighted destination, so what is read is what is written. A
    plan over its budget is committed only after a second, explicit yes.
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Write nothing.", id="commit.cancel"),
        Binding("enter", "confirm", "Commit", tooltip="Write the files listed.", id="commit.confirm"),
    ]
    DEFAULT_CSS = """
    CommitModal { align: center middle; }
    CommitModal > Vertical {
        width: 100%; max-width: 100; height: auto; max-height: 100%; border: thick $primary;
        background: $surface; padding: 0 1;
    }
    CommitModal VerticalScroll { height: auto; max-height: 1fr; }
    CommitModal #commit-title { text-style: bold; }
    CommitModal #commit-plan { height: auto; }
    CommitModal #commit-plan.-over { color: $text-error; text-style: bold; }
    CommitModal #commit-note { height: auto; color: $text-warning; }
    CommitModal .where { height: auto; padding: 0 0 0 2; color: $text-muted; }
    CommitModal OptionList, CommitModal OptionList:focus { height: auto; border: none; padding: 0; }
    CommitModal.-short OptionList, CommitModal.-short OptionList:focus { max-height: 4; }
    CommitModal Input { margin: 0; }
    CommitModal #commit-buttons { height: 3; align-horizontal: right; }
    CommitModal Button { margin-left: 2; }
    """

    def __init__(
        self,
        preview: Any,
        choices: dict[str, str],
        native: str,
        cwd: str = "",
        plans: dict[str, tuple[Plan, str]] | None = None,
    ) -> None:
        super().__init__()
        self._preview = preview
        self._choices = choices
        """Destination -> where it writes, from the dry run."""
        self._native = native if native in choices else ""
        self._cwd = cwd
        """The source's project folder: the native session is written for it unless changed."""
        self._plans = plans or {}
        """Destination ('' for none) -> the plan written for it and why it differs from the preview's."""
        self._labels = dict(native_choices())
        self._keys = [key for key in self._labels if not key or key in choices]
        """The destinations offered, in list order."""

    def compose(self) -> ComposeResult:
        labels = self._labels
        with Vertical():
            with VerticalScroll():
                yield Label("Commit this migration?", id="commit-title")
                yield Static("", id="commit-plan")
                yield Static("", id="commit-note")
                yield Static(Content.from_markup("[b]Always:[/b] smig's storage record"))
                yield Static(Content(self._choices.get("store", "(storage)")), classes="where")
                yield Static(Content.from_markup("[b]Also a native session for:[/b] (↑↓ choose)"), id="native-title")
                yield OptionList(
                    *(Option(labels[key], id=f"native-{key or 'none'}") for key in self._keys), id="native"
                )
                yield Static("", classes="where", id="native-where")
                yield Label("Project folder to write it for (change it for a moved or cloned repo):")
                yield Input(value=self._cwd, id="cwd")
            with Horizontal(id="commit-buttons"):
                cancel = Button("Cancel (Esc)", id="cancel")
                cancel.can_focus = False  # Tab never lands on it: Enter always commits, Escape cancels
                yield cancel
                yield Button("Commit (Enter)", variant="primary", id="confirm")

    def on_mount(self) -> None:
        destinations = self.query_one("#native", OptionList)
        destinations.highlighted = self._keys.index(self._native)
        destinations.focus()
        self._show_where()

    def on_resize(self) -> None:
        # ten agents' destinations do not fit beside the paths and the buttons on a short screen: the list
        # scrolls there, the highlighted one always in view (the paths below follow it)
        short = self.app.size.height < SHORT and len(self._keys) > 4
        self.set_class(short, "-short")
        more = f"; {len(self._keys)}, 4 shown" if short else ""
        self.query_one("#native-title", Static).update(
            Content.from_markup(f"[b]Also a native session for:[/b] (↑↓ choose{more})")
        )
        self._show_where()

    @on(OptionList.OptionHighlighted, "#native")
    def _native_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._native = (event.option.id or "").removeprefix("native-").replace("none", "")
        self._show_where()

    @on(OptionList.OptionSelected, "#native")
    def _native_selected(self, event: OptionList.OptionSelected) -> None:
        self._native = (event.option.id or "").removeprefix("native-").replace("none", "")
        self.action_confirm()

    @property
    def plan(self) -> Plan | None:
        """The plan written with the current choice."""
        found = self._plans.get(self._native) or self._plans.get("")
        return found[0] if found else None

    def _show_where(self) -> None:
        where = self._choices.get(self._native, "Only the storage record is written.")
        self.query_one("#native-where", Static).update(Content(where))
        plan = self.plan
        width = self.query_one("#commit-plan", Static).content_region.width
        line = self.query_one("#commit-plan", Static)
        line.update(Content(fit_parts(plan_parts(plan), width) if plan is not None else ""))
        line.set_class(plan is not None and bool(over_budget(plan)), "-over")
        note = self._plans.get(self._native, (None, ""))[1]
        self.query_one("#commit-note", Static).update(Content(note))
        self.query_one("#commit-note", Static).display = bool(note)

    @property
    def chosen(self) -> set[str]:
        """The destinations that would be written with the current choice."""
        return {"store", self._native} - {""}

    @property
    def landing(self) -> str | None:
        """The folder typed in the dialog when it differs from the source's, else None."""
        typed = self.query_one("#cwd", Input).value.strip()
        return typed if typed and typed != self._cwd else None

    def choice(self) -> CommitChoice | None:
        """What would be committed now (None before the plans are known)."""
        plan = self.plan
        if plan is None:
            return None
        note = self._plans.get(self._native, (plan, ""))[1]
        return CommitChoice(self.chosen, plan, note, self.landing)

    @on(Input.Submitted, "#cwd")
    @on(Button.Pressed, "#confirm")
    def action_confirm(self) -> None:
        choice = self.choice()
        if choice is None:
            self.dismiss(None)
            return
        if not over_budget(choice.plan):
            self.dismiss(choice)
            return
        question = (
            f"This plan is still {over_budget_text(choice.plan)} tokens: the receiving agent may compact"
            " it or refuse it at once. Unpin messages or pick a larger model to make it fit. Commit it anyway?"
        )
        self.app.push_screen(
            ConfirmModal(question, yes="Commit anyway", no="Back"), lambda yes: self._over_answered(choice, yes)
        )

    def _over_answered(self, choice: CommitChoice, yes: bool | None) -> None:
        if yes:
            self.dismiss(choice)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
