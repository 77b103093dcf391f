"""Pilot steps the TUI tests of every folder share (imported by bare name, like `cli_runner`)."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import OptionList

from smig_tui.core.models import SessionInfo
from smig_tui.tui.screens.commit import CommitModal
from smig_tui.tui.widgets.source_tree import SourceTree


async def settle(pilot: Pilot[None], rounds: int = 12) -> None:
    """Wait until every worker, and every worker those start, has finished and its result been applied:
    rounds of waiting go on until one starts no new worker (at most `rounds`, so a loop cannot hang)."""
    for _ in range(rounds):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if all(worker.is_finished for worker in pilot.app.workers):
            return


async def commit_dialog_choosing(
    pilot: Pilot[None], match: Callable[[SessionInfo], bool], destination: str
) -> CommitModal:
    """Open the first listed session `match` accepts, press `c`, and highlight `destination` in the dialog."""
    await settle(pilot)
    app = pilot.app
    tree = app.screen.query_one(SourceTree)
    leaf = next(
        node
        for line in range(tree.last_line + 1)
        if (node := tree.get_node_at_line(line)) is not None and node.data is not None and match(node.data)
    )
    tree.focus()
    tree.move_cursor(leaf)
    await pilot.pause()
    await pilot.press("enter")
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)
    dialog = app.screen
    assert isinstance(dialog, CommitModal)
    destinations = dialog.query_one("#native", OptionList)
    destinations.highlighted = destinations.get_option_index(f"native-{destination}")
    await pilot.pause()
    assert dialog.chosen == {"store", destination}
    return dialog
