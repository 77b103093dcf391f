"""Provides the memory screen: each agent's memory files, the pending diff, and sync on confirm."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Label, Static

from smig_tui.core.errors import SmigError
from smig_tui.core.memory_sync import Direction, MemoryPlan, Mode
from smig_tui.core.words import size_text
from smig_tui.plugins import memory_agents, memory_directions
from smig_tui.services import Services
from smig_tui.tui.backend import shown
from smig_tui.tui.screens.base import SmigScreen
from smig_tui.tui.widgets.key_footer import KeyFooter
from smig_tui.tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from smig_tui.services import ApplyResult


def direction_choices() -> tuple[tuple[Direction, ...], ...]:
    """Every way at once, then to each agent alone (agents not set up here are skipped)."""
    return (memory_directions(), *((direction,) for direction in memory_directions()))


MODES = (Mode.AUTO, Mode.FULL, Mode.INDEX)


def diff_content(plan: MemoryPlan) -> Content:
    """The plan's diffs, coloured by line kind with theme variables."""
    if not plan.writes:
        return Content("Nothing to sync: every agent is up to date.")
    parts: list[Content] = []
    for write in plan.writes:
        for line in write.diff.splitlines():
            if line.startswith(("+++", "---", "@@")):
                style = "$text-accent"
            elif line.startswith("+"):
                style = "$text-success"
            elif line.startswith("-"):
                style = "$text-error"
            else:
                style = ""
            parts.append(Content.styled(line, style) if style else Content(line))
    return Content("\n").join(parts)


class MemorySyncModal(ModalScreen[bool]):
    """Ask before writing: lists every file a sync would write and why.

    Sync is the one button focus can reach, so Enter always means it and says so; Escape (or a click)
    cancels; the arrows scroll a long list. Tab never moves to Cancel for Enter to do nothing.
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Write nothing.", id="memory-sync.cancel"),
        Binding("enter", "confirm", "Sync", tooltip="Write the files listed.", id="memory-sync.confirm"),
        Binding("down", "scroll('down')", "Down", show=False, id="memory-sync.down"),
        Binding("up", "scroll('up')", "Up", show=False, id="memory-sync.up"),
        Binding("pagedown", "scroll('page_down')", "Page down", show=False, id="memory-sync.page-down"),
        Binding("pageup", "scroll('page_up')", "Page up", show=False, id="memory-sync.page-up"),
    ]
    DEFAULT_CSS = """
    MemorySyncModal { align: center middle; }
    MemorySyncModal > Vertical {
        width: 100%; max-width: 100; height: auto; max-height: 100%; border: thick $primary;
        background: $surface; padding: 0 1;
    }
    MemorySyncModal #memory-sync-title { text-style: bold; }
    MemorySyncModal VerticalScroll { height: auto; max-height: 1fr; }
    MemorySyncModal .where { height: auto; padding: 0 0 0 2; color: $text-muted; }
    MemorySyncModal Horizontal { height: 3; align-horizontal: right; }
    MemorySyncModal Button { margin-left: 2; }
    """

    def __init__(self, plan: MemoryPlan) -> None:
        super().__init__()
        self._plan = plan

    def compose(self) -> ComposeResult:
        lines = [f"{w.action.value} {shown(Path(w.path))}\n    {w.reason}" for w in self._plan.writes]
        redacted = sum(report.redaction_total for report in self._plan.reports)
        with Vertical():
            yield Label(f"Write {len(self._plan.writes)} file(s)?", id="memory-sync-title")
            with VerticalScroll(can_focus=False):
                yield Static(Content("\n".join(lines)), classes="where")
                if redacted:
                    yield Static(Content(f"{redacted} secret(s) redacted before crossing over."), classes="where")
            with Horizontal():
                cancel = Button("Cancel (Esc)", id="cancel")
                cancel.can_focus = False
                yield cancel
                yield Button("Sync (Enter)", variant="primary", id="confirm")

    def on_mount(self) -> None:
        self.query_one("#confirm", Button).focus()

    def action_scroll(self, how: str) -> None:
        """Scroll the list of files (the arrows, Page Up and Page Down)."""
        getattr(self.query_one(VerticalScroll), f"scroll_{how}")(animate=False)

    @on(Button.Pressed, "#confirm")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)


class MemoryScreen(SmigScreen[None]):
    """Shows every agent's memory side by side (Codex, Claude Code, Gemini CLI, OpenCode) and syncs on confirm."""

    CSS_PATH = "memory.tcss"
    BINDINGS = [
        Binding("s", "sync", "Sync", tooltip="Write the pending changes (asks first).", id="memory.sync"),
        Binding(
            "r",
            "refresh",
            "Refresh",
            tooltip="Read the agents' memory again.",
            id="memory.refresh",
        ),
        Binding("m", "cycle_mode", "Mode", tooltip="Cycle auto, full text and index.", id="memory.mode"),
        Binding(
            "d",
            "cycle_direction",
            "Direction",
            tooltip=f"Cycle every way, {', '.join(f'to {entry.label}' for entry in memory_agents())}.",
            id="memory.direction",
        ),
        Binding("escape", "close", "Back", tooltip="Back to the sessions.", id="memory.close"),
    ]

    @dataclass
    class PlanReady(Message):
        """A fresh memory plan was read and worked out."""

        plan: MemoryPlan

    @dataclass
    class Synced(Message):
        """A sync was applied."""

        result: ApplyResult

    @dataclass
    class Failed(Message):
        """Reading or syncing failed with a one-sentence reason."""

        error: str

    def __init__(self, services: Services) -> None:
        super().__init__()
        self._services = services
        self._direction_index = 0
        self._mode_index = 0
        self.plan: MemoryPlan | None = None
        """The plan on show; None while loading."""
        self._busy = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="memory-sides"):
            for entry in memory_agents():
                with Vertical(classes="memory-side"):
                    yield Label(entry.label, classes="memory-title")  # the screen says it is memory
                    yield RowTable(id=f"{entry.agent}-files", cursor_type="row", zebra_stripes=True)
        yield Static("Reading memory…", id="memory-status")
        with VerticalScroll(id="memory-diff"):
            yield Static(id="memory-diff-text")
        yield KeyFooter()

    def on_mount(self) -> None:
        for table in self.query(DataTable):
            table.add_columns("file", "kind", "size")
        self.load_plan()

    @property
    def directions(self) -> tuple[Direction, ...]:
        """The directions chosen with `d`."""
        return direction_choices()[self._direction_index]

    @property
    def mode(self) -> Mode:
        """The mode chosen with `m`."""
        return MODES[self._mode_index]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "sync":
            return bool(self.plan and self.plan.writes and not self._busy) or None
        return True

    def _reload(self) -> None:
        """Mark the plan stale and read it again."""
        self.plan = None
        self.query_one("#memory-status", Static).update("Reading memory…")
        self.refresh_bindings()
        self.load_plan()

    @work(thread=True, exclusive=True, group="memory.plan", exit_on_error=False)
    def load_plan(self) -> None:
        """Read both sides and plan the sync off the UI thread."""
        try:
            self.post_message(self.PlanReady(self._services.memory_plan(self.directions, self.mode)))
        except SmigError as error:
            self.post_message(self.Failed(str(error)))

    @work(thread=True, exclusive=True, group="memory.apply", exit_on_error=False)
    def apply_plan(self, plan: MemoryPlan) -> None:
        """Write the confirmed plan off the UI thread."""
        try:
            self.post_message(self.Synced(self._services.memory_apply(plan)))
        except SmigError as error:
            self.post_message(self.Failed(str(error)))

    @on(PlanReady)
    def _show_plan(self, message: PlanReady) -> None:
        self.plan = message.plan
        self._fill_tables(message.plan)
        self.query_one("#memory-status", Static).update(self._status(message.plan))
        self.query_one("#memory-diff-text", Static).update(diff_content(message.plan))
        self.refresh_bindings()

    def _fill_tables(self, plan: MemoryPlan) -> None:
        """Show each agent's own files that the planned directions carry to another agent."""
        shown: set[str] = set()
        for table in self.query(DataTable):
            table.clear()
        for report in plan.reports:
            for source in report.sources:
                if source.path in shown:
                    continue
                shown.add(source.path)
                name = source.path.rsplit("/", 1)[-1]
                label = f"{source.project}/{name}" if source.project else name
                table = self.query_one(f"#{source.owner}-files", DataTable)
                table.add_row(label, source.role.value, size_text(source.size), key=source.path)

    def _status(self, plan: MemoryPlan) -> Content:
        """One line per direction, then problems."""
        lines = [f"Mode: {self.mode.value}   Directions: {', '.join(d.value for d in self.directions)}"]
        for report in plan.reports:
            pending = sum(1 for write in plan.writes if write.direction is report.direction)
            blocked = any(p.direction is report.direction for p in plan.problems)
            state = f"{pending} pending write(s)" if pending else "up to date"
            state = "not synced (see below)" if blocked and not pending else state
            redacted = f", {report.redaction_total} secret(s) redacted" if report.redaction_total else ""
            lines.append(f"{report.direction.value}: {report.note}{redacted} — {state}")
        lines += [f"⚠ {problem.message}" for problem in plan.problems]
        return Content("\n".join(lines))

    @on(Synced)
    def _synced(self, message: Synced) -> None:
        self._busy = False
        result = message.result
        for skipped in result.skipped:
            self.notify(skipped, severity="warning", timeout=8)
        self.notify(f"Memory sync wrote {len(result.written)} file(s).", title="smig")
        self._reload()

    def worker_failed(self, group: str, error: BaseException) -> None:
        """An unforeseen error reading or syncing: the status says so instead of "Reading memory…"."""
        self._busy = False
        self.query_one("#memory-status", Static).update(
            Content("Memory sync stopped: an unexpected error (see the notice).")
        )
        self.refresh_bindings()

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        self._busy = False
        self.query_one("#memory-status", Static).update(Content(message.error))
        self.notify(message.error, title="smig", severity="error", timeout=8)
        self.refresh_bindings()

    def action_sync(self) -> None:
        plan = self.plan
        if plan is None or not plan.writes or self._busy:
            return

        def confirmed(ok: bool | None) -> None:
            if not ok:
                self.notify("Memory sync cancelled: nothing was written.")
                return
            self._busy = True
            self.refresh_bindings()
            self.apply_plan(plan)

        self.app.push_screen(MemorySyncModal(plan), confirmed)

    def action_refresh(self) -> None:
        self._reload()

    def action_cycle_mode(self) -> None:
        self._mode_index = (self._mode_index + 1) % len(MODES)
        self._reload()

    def action_cycle_direction(self) -> None:
        self._direction_index = (self._direction_index + 1) % len(direction_choices())
        self._reload()

    def action_close(self) -> None:
        self.dismiss(None)
