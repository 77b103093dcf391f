"""smig: hand a coding-agent conversation from one agent and model to another."""

from smig_tui.compiled import choose_copies

__version__ = "0.1.0"

choose_copies()
