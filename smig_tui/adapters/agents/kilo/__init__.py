"""Kilo Code CLI (npm `@kilocode/cli`, verified with 7.7.7): its sessions read and written.

Kilo is an OpenCode descendant whose database is OpenCode 1.18.33's plus a few tables of its own
(docs/formats/kilo.md), so its sessions are read by OpenCode's reader and written through
`kilo import` by OpenCode's writer, each given Kilo's `Variant`: `~/.local/share/kilo/kilo.db`
(`KILO_DB`, `XDG_DATA_HOME`), the `kilo` command, its `code` agent, its config folder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.opencode.home import resolve_home, session_ref, split_ref, watched
from smig_tui.adapters.agents.opencode.mcp import mcp_config
from smig_tui.adapters.agents.opencode.variant import Variant
from smig_tui.adapters.agents.profile import AgentProfile, Env, Overhead, SessionRefs
from smig_tui.core.agent_rules import AgentRules

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.memory_files import MemoryContext
    from smig_tui.adapters.paths import Paths
    from smig_tui.core.memory_model import AgentMemory, MemoryRules
    from smig_tui.core.ports import NativeWriter, SessionSource, Watched

KILO = Variant(
    agent="kilo",
    name="Kilo Code",
    folder="kilo",
    database_file="kilo.db",
    database_env="KILO_DB",
    binary="kilo",
    version="7.7.7",
    mode="code",
    config_env="KILO_CONFIG",
    config_files=("kilo.json", "config.json", "kilo.jsonc", "opencode.json", "opencode.jsonc"),
    # from the binary's table of switches: either stops the Claude Code prompt files being read
    claude_code_switches=("KILO_DISABLE_CLAUDE_CODE", "KILO_DISABLE_CLAUDE_CODE_PROMPT"),
    continues_folder=True,
    legacy_tree=False,
    config_dir_env="KILO_CONFIG_DIR",
    # with no model configured Kilo runs its gateway's free router, signed in or not (the binary's
    # `kilo-auto/free` default of provider `kilo`): a session naming it resumes on any Kilo install
    default_model=("kilo", "kilo-auto/free"),
    # Kilo sends telemetry as a command ends: smig's import (and rollback) is smig's act, not the user's use
    # of Kilo, and waiting on the upload held every import 2.4 s more offline (4.9 -> 2.5 s, empty session)
    command_env=(("KILO_TELEMETRY_LEVEL", "off"),),
)
"""Kilo Code CLI 7.7.7: seen writing, importing and resuming with these (docs/formats/kilo.md)."""

OUTPUT_RESERVE = 32_000
"""What Kilo keeps free of a window for the reply: the model's output limit, which Kilo caps at 32,000
(`limit.context - maxOutputTokens`); the models smig targets all allow at least that much output."""


def usable(window: int, auto_compact: int | None) -> int:
    """What a conversation can fill of `window` before Kilo compacts (after a reply reaching it)."""
    room = max(1, window - min(OUTPUT_RESERVE, window // 2))
    return min(room, auto_compact) if auto_compact else room


def _home(env: Env) -> Path:
    return resolve_home(env, KILO).database


def _source(paths: Paths, env: Env) -> SessionSource:
    from smig_tui.adapters.agents.opencode.source import OpenCodeSource

    return OpenCodeSource(resolve_home(env, KILO), listing_cache=PROFILE.listing_cache(paths))


def _watched(_paths: Paths, env: Env) -> list[Watched]:
    return watched(resolve_home(env, KILO))


def _writer(paths: Paths, env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.opencode.writer import OpenCodeWriter

    return OpenCodeWriter(resolve_home(env, KILO), paths.data_dir / "kilo-imports")


def _fingerprint(database: Path, session_id: str) -> tuple[str, int, float]:
    from smig_tui.adapters.agents.opencode.fingerprint import session_fingerprint

    return session_fingerprint(database, session_id, KILO.name)


def _snapshot(database: Path, session_id: str, target: Path) -> None:
    from smig_tui.adapters.agents.opencode.snapshot import session_snapshot

    session_snapshot(database, session_id, target, KILO.name)


def _status(database: Path, session_id: str, sha256: str, size: int) -> str:
    from smig_tui.adapters.agents.opencode.fingerprint import session_status

    return session_status(database, session_id, sha256, size, KILO.name)


def resume_argv(session_id: str) -> tuple[str, ...]:
    """`kilo -s ID`: Kilo's TUI on the session (`kilo run -s ID PROMPT` without it), in its folder."""
    from smig_tui.adapters.agents.opencode.writer import resume_argv as opencode_resume

    return opencode_resume(session_id, KILO)


def _memory(context: MemoryContext) -> AgentMemory:
    from smig_tui.adapters.agents.opencode.memory import reader

    return reader(KILO)(context)


def _memory_rules() -> MemoryRules:
    from smig_tui.adapters.agents.opencode.memory import rules_for

    return rules_for(KILO)


PROFILE = AgentProfile(
    AgentRules("kilo", KILO.name, usable=usable, choice_rank=6, memory=_memory_rules),
    hand_to="claude",
    default_target="claude-sonnet-5-5",
    shown_when_empty=False,
    home=_home,
    source=_source,
    watched=_watched,
    writer=_writer,
    memory=_memory,
    resume_argv=resume_argv,
    home_variables=("KILO_DB", "XDG_DATA_HOME"),
    # `kilo run "hello there"` in an empty folder, from a fresh home whose config names one custom
    # provider (@ai-sdk/openai-compatible at the fake model server of tests/e2e): the request split by
    # o200k_base (tests/fixtures/real/kilo/overhead.json, 2026-12-05).
    overhead=Overhead(
        12_119,
        f"{KILO.name} CLI {KILO.version}",
        (("system prompt", 3_330), ("tool definitions (16 tools)", 8_743), ("injected context", 46)),
    ),
    refs=SessionRefs(split_ref, session_ref, _snapshot, _fingerprint, _status),
    program="kilo",
    import_command="kilo import",
    restore_refused=(
        "Kilo Code keeps it in its own database, which smig never writes; `smig export` or `smig migrate` "
        "it from the archive instead"
    ),
    client_words=("kilo",),  # its MCP client calls itself `kilo` (the binary's `new Client({name: "kilo"})`)
    mcp=mcp_config(KILO, "https://app.kilo.ai/config.json"),
)
