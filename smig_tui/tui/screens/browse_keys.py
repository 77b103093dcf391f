"""Provides the browse screen's keys, in one table: the footer, the help panel, the command palette and the
generated docs all read it."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from smig_tui.tui.widgets.preview_tabs import TABS

BROWSE_KEYS: list[BindingType] = [
    Binding(
        "slash",
        "focus_filter",
        "Filter",
        tooltip="Filter sessions by title, folder, id or model.",
        id="browse.filter",
        priority=True,  # see action_focus_filter
    ),
    Binding(
        "escape",
        "back",
        "Back / clear filter",
        show=False,
        tooltip="From the plan, back to the sessions; stop reading a big session; else clear the filter.",
        id="browse.clear",
    ),
    Binding(
        "f",
        "search",
        "Search",
        show=False,
        tooltip="Search the text of every session's messages.",
        id="browse.search",
    ),
    Binding(
        "a",
        "toggle_subagents",
        "Sub-agents",
        show=False,
        tooltip="Show or hide sub-agent and exec sessions.",
        id="browse.subagents",
    ),
    Binding(
        "h",
        "toggle_here",
        "Here/all",
        show=False,
        tooltip="List only the sessions of the folder smig was started in, or every folder's.",
        id="browse.here",
    ),
    Binding(
        "b",
        "toggle_branch",
        "Branch",
        show=False,
        tooltip="List only this folder's sessions on its current git branch, or every branch's.",
        id="browse.branch",
    ),
    Binding(
        "space",
        "peek",
        "Peek",
        show=False,
        tooltip="Peek at the highlighted session's first and last messages without opening it.",
        id="browse.peek",
    ),
    Binding(
        "v",
        "focus_plan",
        "Messages",
        tooltip="Move to the plan's messages (Escape goes back to the sessions).",
        id="browse.messages",
    ),
    Binding("t", "pick_target", "Target", tooltip="Choose the model to continue in.", id="browse.target"),
    Binding("p", "pin", "Pin", tooltip="Pin or unpin the highlighted message so every plan keeps it.", id="browse.pin"),
    Binding(
        "s",
        "summarize",
        "Summarize",
        tooltip="Send the conversation to the summarizer (summary tabs only).",
        id="browse.summarize",
    ),
    Binding("e", "edit_summary", "Edit", show=False, tooltip="Edit the summary before committing.", id="browse.edit"),
    Binding("c", "commit", "Commit", tooltip="Write the migration: storage plus a native session.", id="browse.commit"),
    Binding(
        "x",
        "export",
        "Export",
        tooltip="Export the migrated conversation to the clipboard or a file.",
        id="browse.export",
    ),
    Binding("r", "reload", "Reload", show=False, tooltip="Scan the agents' folders again.", id="browse.reload"),
    *(
        Binding(
            str(number),
            f"show_tab('{strategy.value}')",
            title,
            show=False,
            tooltip=f"Preview the {title.lower()} plan.",
            id=f"browse.tab-{key}",
        )
        for number, (strategy, key, title) in enumerate(TABS, start=1)
    ),
]
