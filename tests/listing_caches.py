"""Another agent's listing cache, as its reader keeps it: how the readers that look in project folders learn them."""

from __future__ import annotations

from pathlib import Path

from smig_tui.adapters.storage.discovery_cache import DiscoveryCache
from smig_tui.core.models import Agent, SessionInfo


def ran_in(cache: Path, cwd: Path, agent: str = "codex", session_id: str = "other-1") -> None:
    """The listing cache `cache` of `agent`, with one session (of a file beside it) that ran in `cwd`."""
    cache.parent.mkdir(parents=True, exist_ok=True)
    found = DiscoveryCache(cache)
    source = cache.parent / f"{session_id}.jsonl"
    source.write_text("{}\n", encoding="utf-8")
    info = SessionInfo(id=session_id, agent=Agent(agent), path=str(source), cwd=str(cwd))
    found.lookup(str(source), lambda: info)
    found.save()
