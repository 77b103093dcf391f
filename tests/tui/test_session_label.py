"""The tree's one line per session says what kind of session it is."""

from __future__ import annotations

from datetime import UTC, datetime

from smig_tui.core.models import Agent, SessionInfo
from smig_tui.core.words import size_cells
from smig_tui.tui.widgets.source_tree import age_text

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC).timestamp()


def session_label(info: SessionInfo):
    from smig_tui.tui.widgets.source_tree import session_label as label

    return label(info, NOW)


def test_a_native_fork_names_its_parent_and_a_subagent_does_not() -> None:
    fork = SessionInfo(id="f" * 8, agent=Agent("claude"), path="/x", title="go on", parent_id="1a2b3c4d-9999")
    sub = SessionInfo(
        id="s" * 8, agent=Agent("claude"), path="/y", title="task", parent_id="1a2b3c4d-9999", is_subagent=True
    )
    plain = SessionInfo(id="p" * 8, agent=Agent("claude"), path="/z", title="start")
    assert str(session_label(fork)).endswith("go on  fork of 1a2b3c4d")
    assert "fork" not in str(session_label(sub)) and str(session_label(sub)).endswith("  sub")
    assert "fork" not in str(session_label(plain))


def test_every_row_starts_with_its_age_and_size_never_cut() -> None:
    info = SessionInfo(
        id="a" * 8, agent=Agent("codex"), path="/a", title="x" * 200, updated="2026-12-03T11:43:00Z", size=14_714
    )
    line = str(session_label(info))
    assert line.startswith(" 17m ago   14K  ") and line.endswith("…")
    assert [
        age_text(stamp, NOW) for stamp in ("2026-12-03T11:59:30Z", "2026-12-03T09:00:00Z", "2026-11-20T10:00:00Z")
    ] == [
        "now",
        "3h ago",
        "13d ago",
    ]
    assert [age_text(stamp, NOW) for stamp in ("2026-03-02T10:00:00+00:00", "2024-01-01T00:00:00Z", None, "junk")] == [
        "9mo ago",
        "2y ago",
        "—",
        "—",
    ]
    assert [size_cells(n) for n in (0, 512, 14_714, 1_258_291, 734_003_200, 5 * 1024**3)] == [
        "—",
        "512B",
        "14K",
        "1.2M",
        "700M",
        "5.0G",
    ]
