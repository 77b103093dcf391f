"""Crush (npm `@charmland/crush`, 0.96.1 pinned; read from its source): its sessions read, never written.

`home` finds each project's `.crush/crush.db` through Crush's list of projects, `database` opens one
read-only, `convert` turns its message rows into what Crush sends its model, and `source` lists and
loads them. smig writes no Crush session: Crush's npm package downloads its binary from GitHub when
it installs, which this project's machines cannot reach, so no client could prove a writer here
(docs/formats/crush.md). Crush is a source for every other agent, and never a destination.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.crush.home import (
    DATA_VARIABLE,
    XDG_VARIABLE,
    projects_file,
    session_ref,
    split_ref,
    watched,
)
from smig_tui.adapters.agents.crush.mcp import MCP
from smig_tui.adapters.agents.profile import AgentProfile, Env, SessionRefs, lazy
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import SessionSource, Watched

LARGE_WINDOW = 200_000
"""Above this window Crush keeps a fixed reserve free; at or below it, a share of the window."""
LARGE_RESERVE = 20_000
SMALL_SHARE_PERCENT = 20
"""Crush summarises once what is left of the window falls to 20,000 tokens (a window over 200,000) or
to 20% of it (`agent.go`: `largeContextWindowBuffer`, `smallContextWindowRatio`)."""

READ_ONLY = (
    "no writer is proven, because Crush's real client cannot be installed or run offline here "
    "(its npm package downloads the binary from GitHub)"
)


def usable(window: int, auto_compact: int | None) -> int:
    """What a conversation can fill of `window` before Crush summarises it (the user's own limit when lower)."""
    reserve = LARGE_RESERVE if window > LARGE_WINDOW else window * SMALL_SHARE_PERCENT // 100
    room = max(1, window - reserve)
    return min(room, auto_compact) if auto_compact else room


def _home(env: Env) -> Path:
    return projects_file(env)


def _source(paths: Paths, env: Env) -> SessionSource:
    from smig_tui.adapters.agents.crush.source import CrushSource

    return CrushSource(env, listing_cache=PROFILE.listing_cache(paths))


def _watched(_paths: Paths, env: Env) -> list[Watched]:
    return watched(env)


PROFILE = AgentProfile(
    AgentRules("crush", "Crush", usable=usable, choice_rank=10, read_only=READ_ONLY),
    hand_to="claude",
    default_target="claude-sonnet-5-5",
    shown_when_empty=False,
    home=_home,
    source=_source,
    watched=_watched,
    writer=None,
    # no resume command and no program: smig writes no Crush session, so `--continue` never starts Crush
    # (Crush opens one with `crush --session ID`, docs/formats/crush.md)
    home_variables=(DATA_VARIABLE, XDG_VARIABLE),
    refs=SessionRefs(
        split_ref,
        session_ref,
        lazy(f"{__name__}.database:session_snapshot"),
        lazy(f"{__name__}.database:session_fingerprint"),
        lazy(f"{__name__}.database:session_status"),
    ),
    restore_refused=(
        "Crush keeps it in a project's own database, which smig never writes; `smig export` or `smig migrate` "
        "it from the archive instead"
    ),
    client_words=("crush",),
    mcp=MCP,
)
