"""OpenCode (npm `opencode-ai`, verified with 1.18.33): its sessions read and written.

`home` finds the database, `database` opens it read-only, `convert` turns its rows into smig's
messages, `source` lists and loads sessions, `storage_tree` reads the legacy JSON tree, and
`writer` writes a migrated session through `opencode import`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.adapters.agents.entry import AgentEntry, Env
from smig_tui.core.models import Agent

if TYPE_CHECKING:
    from pathlib import Path

    from smig_tui.adapters.paths import Paths
    from smig_tui.core.ports import NativeWriter, SessionSource


def _home(_paths: Paths, env: Env) -> Path:
    from smig_tui.adapters.agents.opencode.home import resolve_home

    return resolve_home(env).database


def _source(paths: Paths, env: Env) -> SessionSource:
    from smig_tui.adapters.agents.opencode.home import resolve_home
    from smig_tui.adapters.agents.opencode.source import OpenCodeSource

    return OpenCodeSource(resolve_home(env), listing_cache=ENTRY.listing_cache(paths))


def _writer(paths: Paths, env: Env) -> NativeWriter:
    from smig_tui.adapters.agents.opencode.home import resolve_home
    from smig_tui.adapters.agents.opencode.writer import OpenCodeWriter

    return OpenCodeWriter(resolve_home(env), paths.data_dir / "opencode-imports")


ENTRY = AgentEntry(
    Agent.OPENCODE,
    "OpenCode",
    hand_to=Agent.CODEX,
    default_target="gpt-5.5",
    shown_when_empty=False,
    home=_home,
    source=_source,
    writer=_writer,
    home_variables=("OPENCODE_DB", "XDG_DATA_HOME"),
)
