"""OpenCode (npm `opencode-ai`, verified with 1.18.33): its sessions read and written.

`home` finds the database, `database` opens it read-only, `convert` turns its rows into smig's
messages, `source` lists and loads sessions, `storage_tree` reads the legacy JSON tree, and
`writer` writes a migrated session through `opencode import`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.opencode.home import resolve_home, session_ref, split_ref, watched
from smig_tui.adapters.agents.opencode.mcp import MCP
from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead, SessionRefs
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.memory_files import MemoryContext
    from smig_tui.adapters.paths import Paths
    from smig_tui.core.memory_model import AgentMemory, MemoryRules
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


def _fingerprint(database: Path, session_id: str) -> tuple[str, int, float]:
    from smig_tui.adapters.agents.opencode.fingerprint import session_fingerprint

    return session_fingerprint(database, session_id)


def _snapshot(database: Path, session_id: str) -> bytes:
    from smig_tui.adapters.agents.opencode.snapshot import session_snapshot

    return session_snapshot(database, session_id)


def _status(database: Path, session_id: str, sha256: str, size: int) -> str:
    from smig_tui.adapters.agents.opencode.fingerprint import session_status

    return session_status(database, session_id, sha256, size)


def _resume_argv(session_id: str) -> tuple[str, ...]:
    from smig_tui.adapters.agents.opencode.writer import resume_argv

    return resume_argv(session_id)


def _memory(context: MemoryContext) -> AgentMemory:
    from smig_tui.adapters.agents.opencode.memory import read

    return read(context)


def _memory_rules() -> MemoryRules:
    from smig_tui.adapters.agents.opencode.memory import RULES

    return RULES


PROFILE = AgentProfile(
    AgentRules("opencode", "OpenCode", choice_rank=4, memory=_memory_rules),
    hand_to="codex",
    default_target="gpt-5.5",
    shown_when_empty=False,
    home=_home,
    source=_source,
    watched=_watched,
    writer=_writer,
    memory=_memory,
    resume_argv=_resume_argv,
    home_variables=("OPENCODE_DB", "XDG_DATA_HOME"),
    # `opencode run "hello there"` in an empty folder, from a fresh home whose config names one custom
    # provider (@ai-sdk/anthropic at the fake model server of tests/e2e): the build agent's request,
    # counted by o200k_base (2026-12-03); the system prompt carries the date and the folder, so it
    # varies by a few tokens.
    overhead=Overhead(6_901, "OpenCode 1.18.33", (("system prompt", 1_887), ("tool definitions (10 tools)", 5_014))),
    refs=SessionRefs(split_ref, session_ref, _snapshot, _fingerprint, _status),
    import_command="opencode import",
    program="opencode",
    restore_refused=(
        "OpenCode keeps it in its own database, which smig never writes; `smig export` or `smig migrate` "
        "it from the archive instead"
    ),
    mcp=MCP,
)
