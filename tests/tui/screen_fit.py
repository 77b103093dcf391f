"""Checks that a screen fits the terminal: every widget inside it, every id, path and number shown whole.

Imported by bare name by the TUI tests. It reads what the compositor draws (the cells a user sees),
not what widgets were given, so a string cut by a border, a narrow column or the screen's edge fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from textual.app import App
from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Button

NUMBER = re.compile(r"\d[\d,]*")


@dataclass(frozen=True, slots=True)
class Shown:
    """What one screen draws: its lines, and each leaf widget's text (its lines joined, for wrapped paths)."""

    lines: list[str]
    joined: list[str]
    """Per visible leaf widget: its rows on screen, right-trimmed and joined without a separator."""

    @property
    def text(self) -> str:
        """The whole screen, one line per row."""
        return "\n".join(self.lines)


def _leaves(app: App[None]) -> list[Widget]:
    screen = app.screen
    return [
        widget
        for widget in screen.walk_children(with_self=False)
        if widget.display and widget.visible and not widget.children and widget.region
    ]


def shown(app: App[None]) -> Shown:
    """Render the current screen as the terminal would show it."""
    compositor = app.screen._compositor
    strips = compositor.render_strips()
    lines = [strip.text for strip in strips]
    bounds = Region(0, 0, len(strips[0].text) if strips else 0, len(strips))
    joined = []
    for widget in _leaves(app):
        geometry = compositor.full_map.get(widget)
        clip = geometry.clip if geometry is not None else bounds  # what a scrolling parent lets show
        region = widget.content_region.intersection(bounds).intersection(clip)
        rows = [strips[y].crop(region.x, region.right).text.rstrip() for y in range(region.y, region.bottom)]
        joined.append("".join(row.strip() for row in rows))
    return Shown(lines, joined)


def _scrolled(widget: Widget) -> bool:
    """Whether the widget sits in a container that scrolls (its region may lie beyond, scrolled away)."""
    return any(isinstance(node, ScrollableContainer) for node in widget.ancestors if node is not widget.screen)


def outside(app: App[None]) -> list[str]:
    """Widgets whose region extends past the screen, and buttons a user cannot see without scrolling."""
    width, height = app.size
    bounds = Region(0, 0, width, height)
    wrong = []
    for widget in app.screen.walk_children(with_self=False):
        if not widget.display or not widget.visible or not widget.region:
            continue
        is_button = isinstance(widget, Button)
        if _scrolled(widget) and not is_button:
            continue
        if not bounds.contains_region(widget.region):
            wrong.append(f"{widget!r} at {widget.region} is not inside the {width}×{height} screen")
        elif is_button:
            hidden_by = [
                ancestor
                for ancestor in widget.ancestors
                if isinstance(ancestor, Widget)
                and ancestor is not widget.screen
                and ancestor.region
                and not ancestor.region.contains_region(widget.region)
            ]
            if hidden_by:
                wrong.append(f"{widget!r} is scrolled out of {hidden_by[0]!r}")
    return wrong


def cut(app: App[None], whole: Iterable[str] = (), wrapped: Iterable[str] = ()) -> list[str]:
    """The strings not shown whole: `whole` ones (ids, numbers) must sit on one line, `wrapped` ones
    (paths, sentences) may run on over a widget's lines but must all be there."""
    whole, wrapped = list(whole), list(wrapped)
    if not whole and not wrapped:
        return []  # nothing to look for: no need to draw the screen (the help walk checks it at every line)
    drawn = shown(app)
    missing = [text for text in whole if not any(text in line for line in drawn.lines)]
    missing += [text for text in wrapped if not any(_squeezed(text) in _squeezed(block) for block in drawn.joined)]
    return missing


def _squeezed(text: str) -> str:
    """Text without its spaces: wrapping moves a space to a line end, where it is trimmed."""
    return re.sub(r"\s+", "", text)


def assert_fits(app: App[None], whole: Iterable[str] = (), wrapped: Iterable[str] = ()) -> None:
    """Fail with the screen's text when a widget leaves the screen or a string is cut."""
    problems = outside(app)
    missing = cut(app, whole, wrapped)
    problems += [f"not shown whole: {text!r}" for text in missing]
    assert not problems, "\n".join(problems) + "\n" + shown(app).text
