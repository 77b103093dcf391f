"""Writes the README screenshots by driving the real app on the checked-in fixture homes.

Run `python scripts/screenshots.py`: it copies `tests/fixtures/*_home` (and the recorded Gemini CLI
home and OpenCode database) into a temp folder, points HOME / CODEX_HOME / CLAUDE_CONFIG_DIR /
SMIG_TUI_HOME there, measures the sessions' ages from the fixtures' day, and saves SVGs (and PNGs
when `rsvg-convert` is installed) into `screenshots/`.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots"
SIZE = (120, 36)
FIXTURES_DAY = 1_796_299_200.0
"""2026-12-03 12:00 UTC: the sessions' ages ("13d ago") are measured from it, so the shots do not age."""
TINY_CONFIG = '[models."small-window"]\ncontext_window = 300\nmax_output = 20\nprovider = "example"\n'


def prepare_homes(root: Path) -> None:
    """Copy the fixture homes of the four agents and point smig at them."""
    shutil.copytree(ROOT / "tests/fixtures/codex_home", root / "codex")
    shutil.copytree(ROOT / "tests/fixtures/claude_home", root / "claude")
    shutil.copytree(ROOT / "tests/fixtures/gemini/home/.gemini", root / ".gemini")
    sys.path.insert(0, str(ROOT / "tests"))
    from opencode_builders import install_database

    install_database(root / ".local/share/opencode")
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "OPENCODE_DB", "GEMINI_CLI_HOME"):
        os.environ.pop(name, None)
    (root / "smig/config").mkdir(parents=True)
    (root / "smig/config/config.toml").write_text(TINY_CONFIG, encoding="utf-8")
    os.environ.update(
        HOME=str(root),
        CODEX_HOME=str(root / "codex"),
        CLAUDE_CONFIG_DIR=str(root / "claude"),
        SMIG_TUI_HOME=str(root / "smig"),
    )
    shared = ROOT.parent / "shared" / "tiktoken"
    if shared.is_dir():
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(shared))


async def settle(pilot: object) -> None:
    """Wait for every worker and what it triggers."""
    for _ in range(4):
        await pilot.app.workers.wait_for_complete()  # type: ignore[attr-defined]
        await pilot.pause()  # type: ignore[attr-defined]


async def open_first(pilot: object, title_start: str) -> None:
    """Open the first session whose title starts with `title_start`."""
    tree = pilot.app.screen.query_one("#tree")  # type: ignore[attr-defined]
    for line in range(tree.last_line + 1):
        node = tree.get_node_at_line(line)
        if node is not None and node.data is not None and (node.data.title or "").startswith(title_start):
            tree.move_cursor(node)
            break
    await pilot.press("enter")  # type: ignore[attr-defined]
    await settle(pilot)


async def shoot(name: str, steps: Callable[[object], Awaitable[None]], size: tuple[int, int] = SIZE) -> Path:
    """Run the app through `steps` and save the screen."""
    from smig_tui.services import build_services
    from smig_tui.tui.app import SmigApp
    from smig_tui.tui.widgets.source_tree import SourceTree

    SourceTree.clock = staticmethod(lambda: FIXTURES_DAY)  # type: ignore[method-assign]
    app = SmigApp(services=build_services(), here="/home/user/proj")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await steps(pilot)
        await settle(pilot)
        app.clear_notifications()
        await pilot.pause()
        return Path(app.save_screenshot(f"{name}.svg", path=str(OUT)))


async def main() -> None:
    async def truncation(pilot: object) -> None:
        await open_first(pilot, "Add --verbose")
        await pilot.press("t")  # type: ignore[attr-defined]
        await settle(pilot)
        await pilot.press(*"small-window", "enter")  # type: ignore[attr-defined]

    async def picker(pilot: object) -> None:
        await open_first(pilot, "Add --verbose")
        await pilot.press("t", *"claude")  # type: ignore[attr-defined]

    async def commit(pilot: object) -> None:
        await truncation(pilot)
        await settle(pilot)
        await pilot.press("c")  # type: ignore[attr-defined]

    async def selected(pilot: object) -> None:
        await open_first(pilot, "Verbose flag")

    async def viewer(pilot: object) -> None:
        await truncation(pilot)
        await settle(pilot)
        screen = pilot.app.screen  # type: ignore[attr-defined]
        table = screen.query_one("#table-truncate")
        call = next(item.message for item in screen.plans.plans["truncate"].items if item.message.kind == "tool_call")
        table.focus()
        table.move_cursor(row=table.get_row_index(call.id))
        await pilot.press("enter")  # type: ignore[attr-defined]

    async def help_panel(pilot: object) -> None:
        await pilot.press("question_mark")  # type: ignore[attr-defined]

    async def listed(pilot: object) -> None:
        """The list before a session is opened: ages, sizes, and each agent's count."""

    async def peek(pilot: object) -> None:
        pilot.app.screen.query_one("#tree").focus()  # type: ignore[attr-defined]
        await pilot.press("space")  # type: ignore[attr-defined]

    async def filtered(pilot: object) -> None:
        await pilot.press("slash", *"verbose", "down")  # type: ignore[attr-defined]

    shots = {
        "hero": truncation,
        "session": selected,
        "model-picker": picker,
        "commit": commit,
        "message-viewer": viewer,
        "help": help_panel,
        "filter": filtered,
    }
    sized = {
        "small-terminal": (truncation, (80, 24)),
        "small-list": (listed, (80, 24)),
        "small-commit": (commit, (80, 24)),
        "small-peek": (peek, (80, 24)),
    }
    OUT.mkdir(exist_ok=True)
    runs = [(name, steps, SIZE) for name, steps in shots.items()]
    runs += [(name, steps, size) for name, (steps, size) in sized.items()]
    for name, steps, size in runs:
        svg = await shoot(name, steps, size)
        print(svg.relative_to(ROOT))
        if shutil.which("rsvg-convert"):
            to_png(svg)
            print(svg.with_suffix(".png").relative_to(ROOT))


def to_png(svg: Path) -> None:
    """Render an SVG screenshot with rsvg-convert, keeping the spaces between text runs.

    Rich writes each styled run as its own <text>, spaces as U+00A0. Under the default
    xml:space librsvg trims leading and trailing white space of every run, NBSP included, so
    "agent" and " codex" render glued ("agentcodex"); `xml:space="preserve"` keeps them.
    """
    text = svg.read_text(encoding="utf-8").replace("<svg ", '<svg xml:space="preserve" ', 1)
    subprocess.run(["rsvg-convert", "-o", str(svg.with_suffix(".png"))], input=text.encode(), check=True)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="smig-shots-") as temp:
        prepare_homes(Path(temp))
        sys.path.insert(0, str(ROOT))
        asyncio.run(main())
