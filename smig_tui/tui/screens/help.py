"""Provides the help panel: every key of the screen below and of the app, with what it does."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Markdown

from smig_tui.plugins import agent_names

INTRO = """\
**smig** hands a conversation from one agent ({agents}) to another.
Pick a session on the left (**Enter**; **/** filters, **↑ ↓** pick a match while typing, **Space**
peeks), choose the model to continue in (**t**), read the decision, preview how it would be
compressed (tabs **1**–**4**, **v** moves to the messages), then commit (**c**) or export (**x**).
Nothing leaves the machine unless you press **s** on a summary tab. **Ctrl+P** opens the command
palette: every action is there too. **Escape** closes this help.
"""


KEY_NAMES = {"slash": "/", "question_mark": "?", "escape": "Esc", "enter": "Enter", "space": "Space"}
"""How keys are written for people."""


def key_name(key: str) -> str:
    """`ctrl+t` -> `Ctrl+T`, `slash` -> `/`."""
    first = key.split(",")[0]
    if first in KEY_NAMES:
        return KEY_NAMES[first]
    return (
        "+".join(part.capitalize() if len(part) > 1 else part.upper() for part in first.split("+"))
        if "+" in first
        else first
    )


def keys_markdown(bindings: list[Binding]) -> str:
    """A Markdown table of bindings, with their tooltips."""
    rows = [
        "| Key | Action | What it does |",
        "|---|---|---|",
        "| `Enter` | Open | Open the highlighted session and measure it. |",
        "| `↑` `↓` | Pick | In the filter: move through the matches while typing. |",
        "| `Home` `End` | First / last | The first or last line of the list or the plan. |",
    ]
    for binding in bindings:
        key = binding.key_display or key_name(binding.key)
        rows.append(f"| `{key}` | {binding.description} | {binding.tooltip} |")
    return "\n".join(rows)


def documented(screen: Screen[object]) -> list[Binding]:
    """The bindings worth documenting: the screen's and the app's, those with an id."""
    bindings = [*screen.BINDINGS, *screen.app.BINDINGS]
    return [item for item in bindings if isinstance(item, Binding) and item.id and item.description]


class HelpModal(ModalScreen[None]):
    """Explains the flow and lists the keys."""

    BINDINGS = [
        Binding("escape,q,question_mark", "close", "Close", tooltip="Close the help.", id="help.close"),
    ]
    DEFAULT_CSS = """
    HelpModal { align: center middle; }
    HelpModal > VerticalScroll {
        width: 100%; max-width: 100; height: 100%; max-height: 40; border: thick $primary;
        background: $surface; padding: 0 1;
    }
    """

    def __init__(self, bindings: list[Binding]) -> None:
        super().__init__()
        self._documented = bindings

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(INTRO.format(agents=agent_names()) + "\n**Keys**\n\n" + keys_markdown(self._documented))

    def action_close(self) -> None:
        self.dismiss(None)
