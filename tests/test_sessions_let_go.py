"""A session its callers have let go is freed: the memos of plans and counts, and the TUI's finished
workers, kept every big session read until newer ones pushed it out (three 500 MB sessions opened in
turn in the TUI held all three, 744 MB)."""

from __future__ import annotations

import gc
from pathlib import Path

from smig_tui.core.models import Session, SessionInfo
from smig_tui.services import build_services


def alive(info: SessionInfo) -> bool:
    """Whether a Session read from `info`'s file is still an object of this process."""
    return any(type(found) is Session and found.info.path == info.path for found in gc.get_objects())


def test_reading_a_session_lets_go_of_the_sessions_no_caller_holds(fake_home: dict[str, Path]) -> None:
    services = build_services()
    first_info, second_info = [info for info in services.list_sessions() if not info.is_subagent][:2]
    first = services.load_session(first_info)
    services.plan(first, "gpt-5")  # its shape and counts are kept by the session itself
    second = services.load_session(second_info)
    assert alive(first_info)  # still held here
    del first
    services.load_session(second_info)
    assert not alive(first_info)  # nothing holds it but the memos: they let it go
    assert services.plan(second, "gpt-5").decision.session_tokens > 0
