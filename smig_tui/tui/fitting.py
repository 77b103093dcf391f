"""Provides line layout for narrow screens that never splits a figure from its label."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.cells import cell_len
from textual.content import Content


def markup_len(markup: str) -> int:
    """The cells a piece of Textual markup takes once drawn."""
    return Content.from_markup(markup).cell_length


def fit_parts(
    parts: Sequence[str], width: int, separator: str = " · ", measure: Callable[[str], int] = cell_len
) -> str:
    """Join `parts` with `separator`, starting a new line before a part that would not fit on this one.

    Wrapping by words would split `Gemini CLI 3` or `budget 280` across lines; here each part stays
    whole (a part wider than `width` gets a line of its own, which the widget may still wrap).
    """
    lines: list[str] = []
    for part in parts:
        if lines and (not width or measure(lines[-1] + separator + part) <= width):
            lines[-1] += separator + part
        else:
            lines.append(part)
    return "\n".join(lines)


def path_lines(path: str, width: int) -> list[str]:
    """A path on as few lines of `width` cells as it takes, broken after a `/` (so a file name, which
    often holds an id, stays whole); a single part wider than `width` is left for the widget to fold."""
    if not width or cell_len(path) <= width:
        return [path]
    parts = path.split("/")
    lines = [""]
    for piece in [part + "/" for part in parts[:-1]] + parts[-1:]:
        if lines[-1] and cell_len(lines[-1] + piece) > width:
            lines.append("")
        lines[-1] += piece
    return [line for line in lines if line]


def labelled_path(label: str, path: str, width: int, indent: int = 9) -> str:
    """`label` then the path on the same line when it fits, else the path alone on the lines below."""
    head = f"{label:<{indent}}"
    if not width or cell_len(head + path) <= width:
        return head + path
    return "\n".join([label, *path_lines(path, width)])
