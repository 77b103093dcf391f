"""Provides how the MCP tools say what can be done about an error: in their own names and arguments."""

from __future__ import annotations

from collections.abc import Mapping

from smig_tui.core.errors import Hint, worded

TOOL_WORDS: Mapping[Hint, str] = {
    Hint.REPLACE: "smig replaces no file from a tool call; remove it or pick another.",
    Hint.TO_A_FILE: "Ask for the text itself instead.",
    Hint.SUMMARY_FIRST: "Write one first (commit_migration with yes_send=true) or choose strategy=truncate.",
    Hint.SEND: "Confirm with yes_send=true.",
    Hint.SUMMARIZER_URL: "Set it there.",
    Hint.SUMMARIZER_MODEL: "Set it there or in SMIG_SUMMARY_MODEL.",
    Hint.NO_FOLDER: 'Export it instead: to=["markdown"] or to=["json"].',
    Hint.LIST_SESSIONS: "list_sessions shows the ids.",
    Hint.LIST_ARCHIVED: "search_sessions finds sessions by their text.",
    Hint.LIST_MIGRATIONS: "get_handoff shows a workspace's newest.",
    Hint.LIST_MODELS: "list_known_models lists the table, or add it {where}.",
}
"""What can be done about an error, in the words of the MCP tools (their names and arguments)."""


def for_tools(error: BaseException) -> str:
    """An error's sentence, with its hint in the words of the MCP tools."""
    return worded(error, TOOL_WORDS)
