"""Regenerates the marked blocks of README.md and docs/*.md from the code, so they cannot drift.

A generated block sits between two HTML comments that Markdown does not show:

    <!-- generated: NAME -->
    ...
    <!-- end generated -->

NAME is one of:
- `tui-keys`: the main screen's key table, built as the help panel (`?`) builds it, from the real
  `BINDINGS` of the browse screen and the app;
- `tui-screen-keys`: one table per other screen and dialog, from each one's `BINDINGS`;
- `json-shapes`: every object's JSON keys with their meanings, from `SHAPES` in
  `smig_tui/services/json_shapes.py` (the functions `--json` and the MCP tools share);
- `help:COMMAND` (`help:` alone for `smig --help`, `help:history show` for a subcommand): the
  command's `--help` text, at a fixed width of 100 columns.

Run `python scripts/docs.py` to rewrite the blocks, `python scripts/docs.py --check` to exit 1 and name
the stale blocks without writing (tests/test_docs.py runs the check).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import pkgutil
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HELP_COLUMNS = 100
"""argparse wraps help to the terminal's width; the docs show it at this one."""
BLOCK = re.compile(r"(<!-- generated: (?P<name>[^>]*?) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)


def pages() -> list[Path]:
    """Every Markdown page the generator and the docs tests look after."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


# --- the TUI's keys -----------------------------------------------------------------------------


def main_screen_keys() -> str:
    """The main screen's keys, as the help panel lists them: the browse screen's, then the app's."""
    from smig_tui.tui.app import SmigApp
    from smig_tui.tui.screens.browse import BrowseScreen
    from smig_tui.tui.screens.help import keys_markdown

    return keys_markdown(_documented([*BrowseScreen.BINDINGS, *SmigApp.BINDINGS]))


def screen_keys() -> str:
    """One table per other screen, dialog or pane that has documented bindings, in module order."""
    from smig_tui.tui.screens.browse import BrowseScreen

    sections: list[str] = []
    for cls in _binding_classes():
        if cls is BrowseScreen:
            continue
        bindings = _documented(list(cls.__dict__.get("BINDINGS", ())))
        if not bindings:
            continue
        rows = ["| Key | Action | What it does |", "|---|---|---|"]
        for binding in bindings:
            keys = binding.key_display or ", ".join(_key_names(binding.key))
            rows.append(f"| `{keys}` | {binding.description} | {binding.tooltip} |")
        sections.append(f"### {_title(cls.__name__)}\n\n`{cls.__name__}` in `{cls.__module__}`:\n\n" + "\n".join(rows))
    return "\n\n".join(sections)


def _title(class_name: str) -> str:
    """`CommitResultModal` -> `Commit result dialog`, `MemoryScreen` -> `Memory screen`."""
    words = re.findall(r"[A-Z][a-z]*", class_name)
    kind = {"Modal": "dialog", "Screen": "screen"}.get(words[-1])
    words = [*words[:-1], kind] if kind else words
    return " ".join([words[0], *(word.lower() for word in words[1:])])


def _key_names(keys: str) -> list[str]:
    from smig_tui.tui.screens.help import key_name

    return [key_name(key) if len(key) == 1 or "+" in key else key_name(key).capitalize() for key in keys.split(",")]


def _documented(bindings: list[object]) -> list[object]:
    """The bindings the help panel documents: those with an id and a description."""
    from textual.binding import Binding

    return [item for item in bindings if isinstance(item, Binding) and item.id and item.description]


def _binding_classes() -> Iterator[type]:
    """Every class of `smig_tui.tui.screens` and `smig_tui.tui.widgets` that declares its own BINDINGS."""
    seen: set[type] = set()
    for package_name in ("smig_tui.tui.screens", "smig_tui.tui.widgets"):
        package = importlib.import_module(package_name)
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda item: item.name):
            module = importlib.import_module(f"{package_name}.{info.name}")
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if cls.__module__ == module.__name__ and "BINDINGS" in cls.__dict__ and cls not in seen:
                    seen.add(cls)
                    yield cls


# --- the CLI's help -----------------------------------------------------------------------------


HELP_ENV = {"COLUMNS": str(HELP_COLUMNS), "HOME": "/home/me", "SMIG_TUI_HOME": None, "XDG_CONFIG_HOME": None}
"""The environment help is rendered in: a help text that names a path (`smig models --help` names the config
file) names it as the default of a user `me`, `/home/me/.config/smig/config.toml`, whoever runs the generator."""


def command_help(name: str) -> str:
    """`smig NAME --help` as printed at HELP_COLUMNS columns, in a ```text fence."""
    previous = {key: os.environ.get(key) for key in HELP_ENV}
    for key, value in HELP_ENV.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    try:
        from smig_tui.cli.main import build_parser

        parser = build_parser()
        for word in name.split():
            parser = _subcommands(parser)[word]
        text = parser.format_help()
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return "```text\n" + text.rstrip("\n") + "\n```"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise KeyError(f"{parser.prog} has no subcommands")


def command_names() -> list[str]:
    """Every command and subcommand `smig` parses, as `help:` block names (`""` is `smig` itself)."""
    from smig_tui.cli.main import build_parser

    names = [""]

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        try:
            children = _subcommands(parser)
        except KeyError:
            return
        for word, child in children.items():
            names.append(f"{prefix}{word}")
            walk(child, f"{prefix}{word} ")

    walk(build_parser(), "")
    return names


# --- the blocks ---------------------------------------------------------------------------------


def generator(name: str) -> Callable[[], str]:
    """The function that writes block NAME."""
    if name == "tui-keys":
        return main_screen_keys
    if name == "tui-screen-keys":
        return screen_keys
    if name == "json-shapes":
        from smig_tui.services.json_shapes import shapes_markdown

        return shapes_markdown
    if name.startswith("help:"):
        command = name.removeprefix("help:").strip()
        return lambda: command_help(command)
    raise KeyError(f"unknown generated block {name!r}")


def render(text: str, where: str) -> str:
    """`text` with every generated block rewritten."""

    def replace(match: re.Match[str]) -> str:
        name = match.group("name").strip()
        try:
            body = generator(name)()
        except KeyError as error:
            raise SystemExit(f"{where}: {error.args[0]}") from None
        return f"{match.group(1)}{body}\n{match.group(4)}"

    return BLOCK.sub(replace, text)


def stale_pages() -> list[Path]:
    """The pages whose generated blocks differ from what the code generates now."""
    return [page for page in pages() if render(page.read_text(encoding="utf-8"), str(page)) != page.read_text("utf-8")]


def _shown(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else str(page)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a block is stale; write nothing")
    args = parser.parse_args(argv)
    stale = stale_pages()
    if args.check:
        for page in stale:
            print(f"{_shown(page)}: generated blocks are stale; run python scripts/docs.py", file=sys.stderr)
        return 1 if stale else 0
    for page in stale:
        page.write_text(render(page.read_text(encoding="utf-8"), str(page)), encoding="utf-8")
        print(f"rewrote {_shown(page)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
