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
from smig_tui.services.base import ignore
from smig_tui.services.export import Exports
from smig_tui.services.memory import Memory
from smig_tui.services.migrate import Migrations
from smig_tui.services.search import Search
from smig_tui.services.sessions import Sessions
from smig_tui.services.summary import Summaries

if TYPE_CHECKING:
    from smig_tui.adapters.agents.profile import AgentProfile
    from smig_tui.core.models import Session, SessionInfo
    from smig_tui.core.ports import WarningSink


@dataclass
class Services(Sessions, Summaries, Migrations, Exports, Search, Memory):
    """Everything a front end needs, built once per process: the features over one wiring.

    Summaries builds on planning, planning on the models and counting; the others stand alone.
    """

    def load_session(self, info: SessionInfo, warn: WarningSink = ignore) -> Session:
        """Read one session in full, having first let go of the sessions no caller holds any more: the
        memos would keep the last one until its next plan, and two big sessions at once in the TUI or
        the MCP server (`IdentityMemo`)."""
        self.forget_released()
        return super().load_session(info, warn)


def build_services(env: dict[str, str] | None = None, agents: Sequence[AgentProfile] | None = None) -> Services:
    """Wire the adapters from the environment and the config file: one reader per agent of the registry."""
    paths = resolve_paths(env)
    config = load_config(paths.config_file)
    entries = tuple(agent_profiles() if agents is None else agents)
    sources = archived_readers(paths, entries, env)
    return Services(paths=paths, config=config, sources=sources, env=env, agents=entries)
