"""Provides how the TUI says any error: one sentence, with the CLI's flags reworded for the screens."""

from __future__ import annotations

import os
import re

from smig_tui.core.errors import SmigError
from smig_tui.services import describe_failure

CLI_HINTS = (
    ("; pass --force to replace it.", "; export again and confirm replacing it."),
    ("use --out FILE instead.", "export to a file instead."),
    ("(`smig summarize`) or choose --strategy truncate.", "(s on a summary tab) or use the Truncation tab."),
    (
        "try --strategy tools-first, a summary, or a larger model.",
        "try the Tools first tab, a summary, or a larger model (t).",
    ),
    ("; use --mode index (or auto)", "; choose the index mode"),
    ("confirm with --yes-send", "press s on a summary tab"),
)
"""Sentences written for the command line, and how the TUI says the same thing."""
FLAG = re.compile(r",? ?\(?(?:or )?--[a-z][a-z-]*(?: [A-Z]+)?\)?")


def for_the_tui(text: str) -> str:
    """Reword a message written for the CLI: no flags the TUI has no use for."""
    for cli, tui in CLI_HINTS:
        text = text.replace(cli, tui)
    return FLAG.sub("", text)


def describe_error(error: BaseException) -> str:
    """One sentence for any error: SmigError messages are written for users already, reworded
    without CLI flags; an unexpected error's traceback goes to a crash log that the sentence names."""
    if isinstance(error, SmigError):
        return for_the_tui(str(error))
    if isinstance(error, OSError) and error.filename:
        name = os.path.basename(str(error.filename))
        if name.startswith(".") and name.endswith(".tmp"):  # an atomic write's temp file: name its folder
            return f"{error.strerror or error} (writing in {os.path.dirname(str(error.filename))})."
    return describe_failure(error, "smig tui")
