"""Provides the sources panel: the filter box, the line that counts what shows, and the tree of sessions,
with the discovery that fills it and the filter and scope toggles that narrow it."""

from __future__ import annotations

import time
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Static, Tree
from textual.worker import get_current_worker

from smig_tui.core.models import ReadWarning, SessionInfo
from smig_tui.core.words import plural
from smig_tui.services import Services, current_branch
from smig_tui.tui.messages import SessionsFound, SessionsLoaded
from smig_tui.tui.screens.base import SmigWidget
from smig_tui.tui.widgets.filter_box import FilterBox
from smig_tui.tui.widgets.source_tree import SourceTree

BATCH_SECONDS = 0.2
"""How soon discovery posts its first sessions, so the tree shows something at once."""
LATER_BATCH_SECONDS = 1.0
"""How often it posts after that: each batch costs the UI thread a redraw of the tree."""
FIRST_BATCH = 40
"""Sessions that make a first screenful: posted as soon as they are found."""
FILTER_DELAY = 0.15
"""Seconds of no typing before the filter applies: each keystroke restarts the wait."""
FILTER_HINT = "/ filter · ↑↓ pick · Enter opens"
NARROW_FILTER_HINT = "/ filter, ↑↓, Enter"


class SourcesPanel(SmigWidget):
    """Every agent's sessions as a tree, narrowed by the filter (debounced) and the scope toggles."""

    DEFAULT_CSS = "SourcesPanel { layout: vertical; }"
    filter_delay: float = FILTER_DELAY
    """The debounce of the filter; 0 applies it on every keystroke."""

    @dataclass
    class Chosen(Message):
        """The user asked to open a session (Enter on it, in the filter, or in its peek)."""

        info: SessionInfo

    def __init__(self, services: Services, here: str, id: str | None = None) -> None:
        super().__init__(id=id)
        self.services = services
        self.here = here
        self.scanned = False
        """Discovery has finished at least once."""
        self.narrow = False
        """The screen is narrow: shorter hints."""
        self._filter_timer: Timer | None = None
        """The pending filter, restarted by each keystroke."""
        self.branch: str | None = None
        """The git branch `here` is on, read by each scan (off the UI thread); None outside a repository."""

    def compose(self) -> ComposeResult:
        yield FilterBox(placeholder=FILTER_HINT, id="filter")
        yield Static("Scanning…", id="progress")
        yield SourceTree(here=self.here, id="tree")

    @property
    def source_tree(self) -> SourceTree:
        return self.query_one(SourceTree)

    @property
    def filter_box(self) -> FilterBox:
        return self.query_one(FilterBox)

    def fit(self, narrow: bool) -> None:
        """Shorter hints on a narrow screen."""
        self.narrow = narrow
        self.filter_box.placeholder = NARROW_FILTER_HINT if narrow else FILTER_HINT
        if self.scanned:
            self.show_counts()

    # Discovery ------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="sources.scan", exit_on_error=False)
    def scan(self) -> None:
        """Stream sessions in from every source, a batch at a time. A skipped file is reported once per
        version of it, as the CLI does: the same toast on every launch is noise (`smig doctor` lists all)."""
        worker = get_current_worker()
        self.branch = current_branch(self.here)  # `b` lists this branch's sessions; a reload (r) reads it again
        warned = self.services.warned_files
        warnings: list[str] = []
        batch: list[SessionInfo] = []
        seen, last = 0, time.monotonic()

        def sink(warning: ReadWarning) -> None:
            if warning.line is not None or warned.first_time(warning):
                warnings.append(str(warning))

        for info in self.services.iter_sessions(include_subagents=True, warn=sink):
            if worker.is_cancelled:
                return
            batch.append(info)
            seen += 1
            first = seen == len(batch)
            if (first and seen >= FIRST_BATCH) or time.monotonic() - last >= (
                BATCH_SECONDS if first else LATER_BATCH_SECONDS
            ):
                self.post_message(SessionsFound(batch, seen))
                batch, last = [], time.monotonic()
        warned.save()
        self.post_message(SessionsFound(batch, seen))
        self.post_message(SessionsLoaded(seen, warnings))

    @on(SessionsFound)
    def _sessions_found(self, message: SessionsFound) -> None:
        message.stop()
        self.source_tree.add_sessions(message.infos)
        self.query_one("#progress", Static).update(f"Scanning… {message.seen:,} sessions")

    @on(SessionsLoaded)
    def _sessions_loaded(self, message: SessionsLoaded) -> None:
        """Sort the tree and count; the message goes on to the screen (the card, the tokenizers)."""
        self.scanned = True
        self.source_tree.rebuild()
        self.show_counts()
        if message.warnings:
            self.notify(
                f"{plural(len(message.warnings), 'unreadable line or file', 'unreadable lines or files')} skipped;"
                f" first: {message.warnings[0]}. A skipped file is reported once until it changes;"
                " smig doctor lists them all.",
                severity="warning",
                markup=False,
            )

    def reload(self) -> None:
        """Scan the agents' folders again (`r`)."""
        self.source_tree.sessions.clear()
        self.source_tree.rebuild()
        self.scan()

    def show_counts(self) -> None:
        """The line under the filter: how many sessions show of how many, or why none do."""
        tree = self.source_tree
        total, shown = len(tree.sessions), len(tree.visible_sessions())
        branch = tree.branch_only
        scope = f" here on {branch}" if branch else " here" if tree.here_only else ""
        if not total:
            text = "No sessions found."
        elif not shown and (tree.filter_text or tree.here_only or branch):
            where = f"is on {branch} here" if branch else "is in this folder"
            what = f"matches “{tree.filter_text}”" if tree.filter_text else where
            key = "Escape" if tree.filter_text else "b" if branch else "h"
            text = f"No session {what} · {key} shows all"
            if self.narrow:  # 28 columns: the key and the branch whole, the words shorter
                text = (
                    "No match · Esc: all"
                    if tree.filter_text
                    else f"None on {branch} · b: all"
                    if branch
                    else "None here · h: all"
                )
        elif branch and self.narrow:  # the figures and the branch, in the 28 columns there are
            text = f"{shown:,} of {total:,} on {branch}"
        else:
            hint = " · h: here/all" if not tree.here_only else " · h: all"
            hint = "" if self.narrow else " · b: all branches" if branch else hint
            text = f"{shown:,} of {total:,} sessions{scope}{hint}"
        self.query_one("#progress", Static).update(text)

    # Scope ----------------------------------------------------------------------------------

    def toggle_here(self) -> None:
        here = self.source_tree.toggle_here()
        if self.scanned:
            self.show_counts()
        self.notify(f"Sessions of {self.here} only." if here else "Sessions of every folder.", markup=False)

    def toggle_branch(self) -> None:
        """This folder's sessions on its current git branch, or every branch's (`b`)."""
        tree = self.source_tree
        if tree.branch_only is None and self.branch is None:
            self.notify(
                f"{self.here} is not on a git branch (no repository, or a detached HEAD): b has no branch to list.",
                severity="warning",
                markup=False,
            )
            return
        tree.show_branch(None if tree.branch_only else self.branch)
        if self.scanned:
            self.show_counts()
        said = (
            f"Sessions of {self.here} on branch {self.branch} only."
            if tree.branch_only
            else "Sessions of every branch."
        )
        self.notify(said, markup=False)

    def toggle_subagents(self) -> None:
        shown = self.source_tree.toggle_subagents()
        if self.scanned:
            self.show_counts()
        self.notify("Sub-agent and exec sessions shown." if shown else "Sub-agent and exec sessions hidden.")

    # The filter -----------------------------------------------------------------------------

    def focus_filter(self) -> None:
        """Move the focus to the filter at once (not after a refresh), so keys already typed reach it."""
        self.screen.set_focus(self.filter_box)

    def take_paste(self, text: str) -> bool:
        """Filter by pasted text that no text box took, a leading `/` dropped as the key that opens the
        filter; returns whether there was a line to filter by."""
        line = text.splitlines()[0] if text.strip() else ""
        if not line:
            return False
        self.focus_filter()
        self.filter_box.insert_text_at_cursor(line[1:] if line.startswith("/") else line)
        return True

    def clear_filter(self) -> None:
        self.filter_box.value = ""
        self.apply_filter()
        self.source_tree.focus()

    @on(Input.Changed, "#filter")
    def _filter(self, event: Input.Changed) -> None:
        """Wait for a pause in typing: rebuilding the tree per keystroke makes typing lag."""
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        if self.filter_delay <= 0:
            self.apply_filter()
        else:
            self._filter_timer = self.set_timer(self.filter_delay, self.apply_filter)

    def apply_filter(self) -> None:
        """Filter the tree by what the filter box holds now, cancelling any pending wait."""
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        self.source_tree.set_filter(self.filter_box.value)
        if self.scanned:
            self.show_counts()

    @on(FilterBox.Moved)
    def _filter_moved(self, event: FilterBox.Moved) -> None:
        """Up and Down in the filter move through the matches while typing."""
        self.apply_filter()
        self.call_after_refresh(self.source_tree.step, event.delta)

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        """Enter in the filter opens the highlighted match (the best one unless the arrows chose another)."""
        self.apply_filter()
        self.source_tree.focus()
        self.call_after_refresh(self._open_highlighted_match)

    def _open_highlighted_match(self) -> None:
        tree = self.source_tree
        node = tree.cursor_node
        if node is None or node.data is None or node.data not in tree.visible_sessions():
            node = tree.best_match()
        if node is None or node.data is None:
            self.notify("No session matches the filter.", severity="warning")
            return
        tree.move_to(node)
        self.post_message(self.Chosen(node.data))

    # Opening and peeking --------------------------------------------------------------------

    @on(Tree.NodeSelected, "#tree")
    def _session_selected(self, event: Tree.NodeSelected[SessionInfo | None]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.Chosen(event.node.data))

    def peek(self) -> None:
        """Space with the filter focused (the tree takes it itself): peek at the highlighted session."""
        self.source_tree.action_peek()

    @on(SourceTree.PeekRequested)
    def _peek(self, event: SourceTree.PeekRequested) -> None:
        """The session's first and last messages, read without planning it; Enter there opens it."""
        from smig_tui.tui.screens.peek import PeekModal

        info = event.info
        self.app.push_screen(PeekModal(self.services, info), lambda open_it: self._peek_done(info, open_it))

    def _peek_done(self, info: SessionInfo, open_it: bool | None) -> None:
        if open_it:
            self.post_message(self.Chosen(info))
