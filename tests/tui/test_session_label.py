"""The tree's one line per session says what kind of session it is."""

from __future__ import annotations

from smig_tui.core.models import Agent, SessionInfo
from smig_tui.tui.widgets.source_tree import session_label


def test_a_native_fork_names_its_parent_and_a_subagent_does_not() -> None:
    fork = SessionInfo(id="f" * 8, agent=Agent("claude"), path="/x", title="go on", parent_id="1a2b3c4d-9999")
    sub = SessionInfo(
        id="s" * 8, agent=Agent("claude"), path="/y", title="task", parent_id="1a2b3c4d-9999", is_subagent=True
    )
    plain = SessionInfo(id="p" * 8, agent=Agent("claude"), path="/z", title="start")
    assert str(session_label(fork)).endswith("go on  fork of 1a2b3c4d")
    assert "fork" not in str(session_label(sub)) and str(session_label(sub)).endswith("  sub")
    assert "fork" not in str(session_label(plain))
