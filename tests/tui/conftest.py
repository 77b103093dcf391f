"""TUI test setup: an app factory on the fixture homes, a steady cursor, and settle helpers."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.notifications import Notification
from textual.pilot import Pilot
from textual.widgets import Input, TextArea
from tui_pilot import settle

from smig_tui.core.models import SessionInfo
from smig_tui.services import Services, build_services
from smig_tui.tui.app import SmigApp
from smig_tui.tui.widgets.source_tree import SourceTree

HERE = "/home/user/proj"
"""The working directory the app believes it runs in: a fixture project, so it sorts first."""
NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC).timestamp()
"""The moment the sessions' ages are measured from: the day the fixtures were last written."""


@pytest.fixture(autouse=True)
def steady_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep text cursors from blinking, so screenshots do not depend on timing."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)


@pytest.fixture(autouse=True)
def lasting_toasts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every toast until the test ends, so a test reads the notices a step raised however long the
    step took: a toast's lifetime is wall-clock time (5 seconds), which a busy machine used up between
    a scan's notice and the test reading it (seen with two workers at load 15)."""
    monkeypatch.setattr(Notification, "time_left", property(lambda self: self.timeout + 3600.0))


@pytest.fixture(autouse=True)
def stopped_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Measure the sessions' ages ("17m ago") from a fixed moment, so screens do not change by the day."""
    monkeypatch.setattr(SourceTree, "clock", staticmethod(lambda: NOW))


@pytest.fixture
def estimated_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Count every model with smig's own labelled estimate, the counter a fresh clone without tiktoken's
    files falls back to: snapshots then draw the same figures with or without those files."""
    from smig_tui.adapters.tokenizers.approx_counter import ApproxCounter

    counter = ApproxCounter(reason="tests draw the estimate, the same on every machine")
    monkeypatch.setattr(Services, "counter_for", lambda self, capacity: counter)


@pytest.fixture
def four_agents(fake_home: dict[str, Path]) -> dict[str, Path]:
    """The fixture homes of all four agents: Codex and Claude Code trees, a Gemini CLI session recorded
    with its real client, and OpenCode's recorded database."""
    from opencode_builders import install_database

    shutil.copytree(GEMINI_HOME, fake_home["home"] / ".gemini")
    install_database(fake_home["home"] / ".local" / "share" / "opencode")
    return fake_home


@pytest.fixture
def make_app(fake_home: dict[str, Path]) -> Callable[..., SmigApp]:
    """Build the real app on the real services, reading the fixture homes."""

    def factory(here: str = HERE) -> SmigApp:
        return SmigApp(services=build_services(), here=here)

    return factory


@pytest.fixture
def empty_app(isolated_homes: dict[str, Path]) -> Callable[[], SmigApp]:
    """The app on empty agent homes."""
    return lambda: SmigApp(services=build_services(), here=HERE)


GEMINI_HOME = Path(__file__).parents[1] / "fixtures" / "gemini" / "home" / ".gemini"


def tree_of(pilot: Pilot[None]) -> SourceTree:
    """The sources tree on the browse screen."""
    return pilot.app.screen.query_one(SourceTree)


async def open_session(pilot: Pilot[None], match: Callable[[SessionInfo], bool]) -> SessionInfo:
    """Highlight the first listed session `match` accepts, press Enter, and wait for its plans."""
    tree = tree_of(pilot)
    for line in range(tree.last_line + 1):
        node = tree.get_node_at_line(line)
        if node is not None and node.data is not None and match(node.data):
            tree.focus()
            tree.move_cursor(node)
            await pilot.pause()
            await pilot.press("enter")
            await settle(pilot)
            return node.data
    raise AssertionError("no listed session matches")
