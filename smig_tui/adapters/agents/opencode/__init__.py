"""OpenCode (npm `opencode-ai`, verified with 1.18.33): its sessions read and written.

`home` finds the database, `database` opens it read-only, `convert` turns its rows into smig's
messages, `source` lists and loads sessions, `storage_tree` reads the legacy JSON tree, and
`writer` writes a migrated session through `opencode import`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.opencode.home import resolve_home, session_ref, split_ref, watched
from smig_tui.adapters.agents.opencode.mcp import MCP
from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead, SessionRefs, lazy, lazy_value
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource, Watched


def _home(env: Env) -> Path:
    return resolve_home(env).database


def _source(paths: Paths, env: Env) -> SessionSource:
    from smig_tui.adapters.agents.opencode.source import OpenCodeSource

    return OpenCodeSource(resolve_home(env), listing_cache=PROFILE.listing_cache(paths))


def _watched(_paths: Paths, env: Env) -> list[Watched]:
    return watched(resolve_home(env))


def _writer(paths: Paths, env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.opencode.writer import OpenCodeWriter

    return OpenCodeWriter(resolve_home(env), paths.data_dir / "opencode-imports")


PROFILE = AgentProfile(
    AgentRules("opencode", "OpenCode", choice_rank=4, memory=lazy_value(f"{__name__}.memory:RULES")),
    hand_to="codex",
    default_target="gpt-5.5",
    shown_when_empty=False,
    home=_home,
    source=_source,
    watched=_watched,
    writer=_writer,
    memory=lazy(f"{__name__}.memory:read"),
    resume_argv=lazy(f"{__name__}.writer:resume_argv"),
    home_variables=("OPENCODE_DB", "XDG_DATA_HOME"),
    # `opencode run "hello there"` in an empty folder, from a fresh home whose config names one custom
    # provider (@ai-sdk/anthropic at the fake model server of tests/e2e): the build agent's request,
    # counted by o200k_base (2026-12-03); the system prompt carries the date and the folder, so it
    # varies by a few tokens.
    overhead=Overhead(6_901, "OpenCode 1.18.33", (("system prompt", 1_887), ("tool definitions (10 tools)", 5_014))),
    refs=SessionRefs(
        split_ref,
        session_ref,
        lazy(f"{__name__}.snapshot:session_snapshot"),
        lazy(f"{__name__}.fingerprint:session_fingerprint"),
        lazy(f"{__name__}.fingerprint:session_status"),
    ),
    import_command="opencode import",
    program="opencode",
    restore_refused=(
        "OpenCode keeps it in its own database, which smig never writes; `smig export` or `smig migrate` "
        "it from the archive instead"
    ),
    mcp=MCP,
)
