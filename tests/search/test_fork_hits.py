"""A fork inherits its parent's messages: on the real Codex CLI 0.171.0 fork lineage (parent P, its
fork F, F's fork G), a search shows each message once, from the thread that wrote it."""

from __future__ import annotations

from pathlib import Path

from search_helpers import install_lineage

from smig_tui.adapters.search_index import SearchFilters
from smig_tui.services import build_services

PARENT = "01a23b77-b3cb-73e2-a662-c285a7ef902e"
FORK = "01a23b77-ba4f-7b02-98a6-18e397590485"
GRANDCHILD = "01a23b78-db78-7dd2-bcf7-a002f58cba32"


def test_inherited_messages_are_found_once_in_the_thread_that_wrote_them(isolated_homes: dict[str, Path]) -> None:
    install_lineage(isolated_homes["codex"])
    services = build_services()
    services.refresh_search_index()
    each_thread = {info.id: services.load_session(info) for info in services.iter_sessions(include_subagents=True)}
    assert {PARENT, FORK, GRANDCHILD} <= set(each_thread)
    assert all(any("TOOLS-B" in m.text for m in session.messages) for session in each_thread.values())

    hits = services.search('"TOOLS-B"', limit=50)
    assert {hit.session_id for hit in hits} == {PARENT}
    assert len(hits) == len({(hit.role, hit.timestamp, hit.snippet) for hit in hits}) >= 2

    fork_prompt = services.search('"remember the fork"', SearchFilters(role="user"), limit=50)
    assert [(hit.session_id, hit.role) for hit in fork_prompt] == [(FORK, "user")]
    paged = [
        hit.message_id for start in range(len(hits)) for hit in services.search('"TOOLS-B"', limit=1, offset=start)
    ]
    assert paged == [hit.message_id for hit in hits]
