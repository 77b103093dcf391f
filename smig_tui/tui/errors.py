"""Provides how the TUI says any error: its sentence, and what can be done in the TUI's own words."""

from __future__ import annotations

import os
from collections.abc import Mapping

from smig_tui.core.errors import Hint, SmigError, worded
from smig_tui.services import describe_failure

TUI_WORDS: Mapping[Hint, str] = {
    Hint.REPLACE: "Export again and confirm replacing it.",
    Hint.TO_A_FILE: "Export to a file instead.",
    Hint.SUMMARY_FIRST: "Write one first (s on a summary tab) or use the Truncation tab.",
    Hint.SEND: "Press s on a summary tab to send it.",
    Hint.SUMMARIZER_URL: "Set it there (see the summaries page of the docs).",
    Hint.SUMMARIZER_MODEL: "Set it there or in SMIG_SUMMARY_MODEL.",
    Hint.NO_FOLDER: "Type a folder in the commit dialog, or export it instead.",
    Hint.LIST_SESSIONS: "The list on the left shows every session.",
    Hint.LIST_ARCHIVED: "`smig archive` in a terminal says what the archive holds.",
    Hint.LIST_MIGRATIONS: "`smig history` lists them.",
    Hint.LIST_MODELS: "Press t for the table, or add it {where}.",
}
"""How the TUI says what can be done about an error (keys and tabs, not the command line's flags)."""


def describe_error(error: BaseException) -> str:
    """One sentence for any error: a SmigError's own, with its hint in the TUI's words; an unexpected
    error's traceback goes to a crash log that the sentence names."""
    if isinstance(error, SmigError):
        return worded(error, TUI_WORDS)
    if isinstance(error, OSError) and error.filename:
        name = os.path.basename(str(error.filename))
        if name.startswith(".") and name.endswith(".tmp"):  # an atomic write's temp file: name its folder
            return f"{error.strerror or error} (writing in {os.path.dirname(str(error.filename))})."
    return describe_failure(error, "smig tui")
