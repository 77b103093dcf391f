"""Provides the composition root shared by the CLI, the TUI and the MCP server.

`build_services()` wires the adapters once; `Services` joins one class per feature (each in its own
module of this package), so every front end calls the same methods and no workflow is written twice.
Nothing here imports Textual or a front end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from smig_tui.adapters.config_file import load_config
from smig_tui.adapters.paths import resolve_paths
from smig_tui.plugins import agent_profiles
from smig_tui.services.archive import archived_readers
from smig_tui.services.export import Exports
from smig_tui.services.memory import Memory
from smig_tui.services.migrate import Migrations
from smig_tui.services.search import Search
from smig_tui.services.sessions import Sessions
from smig_tui.services.summary import Summaries

if TYPE_CHECKING:
    from smig_tui.adapters.agents.profile import AgentProfile


@dataclass
class Services(Sessions, Summaries, Migrations, Exports, Search, Memory):
    """Everything a front end needs, built once per process: the features over one wiring.

    Summaries builds on planning, planning on the models and counting; the others stand alone.
    """


def build_services(env: dict[str, str] | None = None, agents: Sequence[AgentProfile] | None = None) -> Services:
    """Wire the adapters from the environment and the config file: one reader per agent of the registry."""
    paths = resolve_paths(env)
    config = load_config(paths.config_file)
    entries = tuple(agent_profiles() if agents is None else agents)
    sources = archived_readers(paths, entries, env)
    return Services(paths=paths, config=config, sources=sources, env=env, agents=entries)
