"""Pilot steps the TUI tests of every folder share (imported by bare name, like `cli_runner`)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import OptionList
from textual.worker import WorkerCancelled

from smig_tui.core.models import Agent, SessionInfo, Strategy
from smig_tui.services import build_services
from smig_tui.tui.app import SmigApp
from smig_tui.tui.screens.commit import CommitModal
from smig_tui.tui.screens.model_picker import ModelPickerModal
from smig_tui.tui.widgets.source_tree import SourceTree


async def source_tree_labels() -> list[str]:
    """The labels of the session tree's top nodes (one per agent with sessions), listed as smig lists now."""

    class TreeApp(App[None]):
        def compose(self) -> ComposeResult:
            yield SourceTree(here=None, id="tree")

    async with TreeApp().run_test() as pilot:
        tree = pilot.app.query_one(SourceTree)
        tree.add_sessions(build_services().list_sessions())
        await pilot.pause()
        return [str(node.label) for node in tree.root.children]


async def settle(pilot: Pilot[None], rounds: int = 12) -> None:
    """Wait until every worker, and what each one triggers, has finished and been applied.

    A worker's result arrives as a message whose handler may start another worker, so one wait is not
    enough: at least four rounds of waiting and pausing, then more while any worker still runs (at most
    `rounds`, so a loop of workers cannot hang the test). A worker the app cancelled has settled too: a
    worker that ends the app (`c` continues in the client) can be cancelled by that exit before its own
    return is recorded, more often the busier the machine."""
    for done in range(1, rounds + 1):
        with suppress(WorkerCancelled):  # the app cancelled it (it is exiting, or a newer exclusive one took its place)
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if done >= 4 and all(worker.is_finished for worker in pilot.app.workers):
            return


async def until(pilot: Pilot[None], condition: Callable[[], bool]) -> None:
    """Let the app run until `condition()` holds (workers may still be running)."""
    for _ in range(300):
        if condition():
            return
        await pilot.pause()
    raise AssertionError("the app never got there")


async def resized(pilot: Pilot[None], width: int, height: int) -> None:
    """Resize the terminal and wait until the screen has its new size and what that set off has run.

    `resize_terminal` only posts the app's resize; the screen learns its size at its next layout, and a
    busy machine (CI's five test workers) let `settle` return before that, with the old layout's hints."""
    await pilot.resize_terminal(width, height)
    await until(pilot, lambda: tuple(pilot.app.screen.size) == (width, height))
    await settle(pilot)


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


RESERVE = 20


def biggest_codex_session() -> tuple[SessionInfo, int]:
    """The fixture Codex session with the most tokens, and its size as gpt-5 counts it."""
    services = build_services()
    sized = []
    for info in services.list_sessions(agent=Agent("codex")):
        session = services.load_session(info)
        sized.append((services.plan(session, "gpt-5", Strategy.TRUNCATE).decision.session_tokens, info))
    tokens, info = max(sized, key=lambda pair: pair[0])
    return info, tokens


def build_sized(
    make_app: Callable[[], SmigApp], isolated_homes: dict[str, Path], extra: str = ""
) -> tuple[SmigApp, SessionInfo, int]:
    """The app with two test models in the config: one roomy, one that holds half the session."""
    info, tokens = biggest_codex_session()
    config = isolated_homes["smig"] / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[models."roomy-test"]\ncontext_window = {tokens * 10}\nmax_output = {RESERVE}\n\n'
        f'[models."tiny-test"]\ncontext_window = {tokens // 2 + RESERVE}\nmax_output = {RESERVE}\n' + extra,
        encoding="utf-8",
    )
    return make_app(), info, tokens


async def choose_target(pilot: Pilot[None], name: str) -> None:
    """Pick the target `name` in the model picker (`t`)."""
    await pilot.press("t")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ModelPickerModal)
    await pilot.press(*name, "enter")
    await settle(pilot)
