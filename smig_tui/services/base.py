"""Provides what every feature of the services stands on: the paths, the config, the agents and readers.

Each feature (`sessions`, `counting`, `models`, `plan`, `summary`, `migrate`, `export`, `search`,
`memory`) is a small class over this one; `root.Services` joins them, so a front end holds one object
and every front end calls a feature the same way. Only the features that keep state of their own
(counting, models, plan: memos, never arguments) are dataclasses; `Services`, one too, gathers their
fields. Nothing here imports Textual or a front end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from smig_tui.adapters.paths import Paths
from smig_tui.core.models import ReadWarning
from smig_tui.core.ports import SessionSource
from smig_tui.plugins import agent_profiles

if TYPE_CHECKING:
    from smig_tui.adapters.agents.profile import AgentProfile
    from smig_tui.adapters.storage.measured_counts import MeasuredCounts
    from smig_tui.adapters.storage.token_cache import TokenCache
    from smig_tui.adapters.storage.warned_files import WarnedFiles


def ignore(_: ReadWarning) -> None:
    """Drop a warning; used where the caller asked for quiet."""


@dataclass
class ServicesBase:
    """The wiring every feature reads: built once per process by `build_services`."""

    paths: Paths
    config: dict[str, Any] = field(default_factory=dict)
    """The parsed config file; each feature validates its own table."""
    sources: list[SessionSource] = field(default_factory=list)
    env: dict[str, str] | None = None
    """The environment the agents' settings are read from (None: this process's)."""
    agents: tuple[AgentProfile, ...] = field(default_factory=lambda: agent_profiles())
    """The agents this process reads and writes (the registry's); front ends loop over these."""

    def agent_profile(self, agent: str) -> AgentProfile | None:
        """The registry entry of one agent (by id), or None for an agent smig does not know."""
        return next((entry for entry in self.agents if entry.id == agent), None)

    @cached_property
    def warned_files(self) -> WarnedFiles:
        """The warnings already shown per file version, so a skipped file is reported once (issue 29)."""
        from smig_tui.adapters.storage.warned_files import WarnedFiles

        return WarnedFiles(self.paths.cache_dir / "warned.json")

    @cached_property
    def token_cache(self) -> TokenCache:
        """The on-disk per-message token counts, so a session is tokenized once."""
        from smig_tui.adapters.storage.token_cache import TokenCache

        return TokenCache(self.paths.cache_dir / "tokens")

    @cached_property
    def measured_counts(self) -> MeasuredCounts:
        """The on-disk counts of a plan's own texts, so a plan of counted messages loads no tokenizer."""
        from smig_tui.adapters.storage.measured_counts import MeasuredCounts

        return MeasuredCounts(self.paths.cache_dir / "measured-tokens.json")
