"""Provides the models feature: the capacity table (shipped, live, configured) and each agent's overhead."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

from smig_tui.core.memo import Memo
from smig_tui.services.counting import Counting

if TYPE_CHECKING:
    from smig_tui.core.agent_rules import WindowAdjust
    from smig_tui.core.capacity import CapacityTable, LiveListing
    from smig_tui.core.decide import AgentOverhead
    from smig_tui.core.models import ModelCapacity


@dataclass
class Models(Counting):
    """What each model holds and what each agent adds to every request (counted in the model's tokens)."""

    _folder_tokens: Memo[tuple[str, str], int] = field(
        default_factory=lambda: Memo(64), init=False, repr=False, compare=False
    )
    """What each agent's client adds for a project folder (its listing), by agent and folder."""

    @cached_property
    def capacities(self) -> CapacityTable:
        """The model capacity table: shipped figures, cached live ones, the config's `[models]`, agent settings."""
        from smig_tui.adapters.capacity_table import load_capacities
        from smig_tui.adapters.provider_capacity import LiveCache

        live = LiveCache(self.paths.cache_dir).load()
        return load_capacities(self.config, self.paths.config_file, self.window_adjustments, live)

    @cached_property
    def window_adjustments(self) -> dict[str, WindowAdjust]:
        """How the user's configuration of each agent moves its windows (Pi's `reserveTokens`, Codex's
        `model_context_window`), for the agents whose settings change anything."""
        return {entry.id: adjust for entry in self.agents if (adjust := entry.window_settings(self.env)) is not None}

    def capacity_for(self, capacity: ModelCapacity, agent: str | None) -> ModelCapacity:
        """`capacity` as the agent the session goes to runs it: that agent's usable window, under its rule and
        the user's settings of it (`agent` None: the model's home agent, as the table has it)."""
        from smig_tui.core.capacity import for_agent

        if agent is None:
            return capacity
        return for_agent(capacity, agent, self.window_adjustments.get(agent), self.capacities.get)

    def refresh_capacities(self, names: Sequence[str] = ()) -> list[tuple[str, LiveListing | str]]:
        """Fetch live windows from providers (all configured or keyed ones when `names` is empty) and cache them.

        Returns each provider with its listing, or the one-sentence reason it gave none (nothing
        else changes then: the previous figures stay).
        """
        from smig_tui.adapters.capacity_table import live_bounds
        from smig_tui.adapters.provider_capacity import (
            LiveCache,
            ProviderFetchError,
            fetch_listing,
            providers_from_config,
        )
        from smig_tui.core.config_schema import table_of

        env = os.environ if self.env is None else self.env
        providers = providers_from_config(self.config, str(self.paths.config_file))
        if not names:
            configured = table_of(self.config, "providers", str(self.paths.config_file))
            names = [n for n, p in providers.items() if n in configured or (p.api_key_env and env.get(p.api_key_env))]
        results: list[tuple[str, LiveListing | str]] = []
        cache = LiveCache(self.paths.cache_dir)
        for name in names:
            if name not in providers:
                known = ", ".join(sorted(providers))
                results.append(
                    (
                        name,
                        f"{name} is not a provider smig knows (known: {known}); "
                        f"add [providers.{name}] with base_url to {self.paths.config_file}.",
                    )
                )
                continue
            try:
                listing = fetch_listing(providers[name], env, bounds=live_bounds())
            except ProviderFetchError as error:
                results.append((name, str(error)))
                continue
            cache.save(listing)
            results.append((name, listing))
        self.__dict__.pop("capacities", None)  # rebuilt with the new figures on next use
        return results

    def live_capacities(self) -> list[LiveListing]:
        """The provider listings cached by earlier refreshes (empty when offline or never fetched)."""
        from smig_tui.adapters.provider_capacity import LiveCache

        return LiveCache(self.paths.cache_dir).load()

    @cached_property
    def agent_overheads(self) -> dict[str, AgentOverhead]:
        """What each agent adds to every request: measured (its profile), or set in the config."""
        from smig_tui.core.decide import AgentOverhead, parse_agent_overheads

        where = str(self.paths.config_file)
        found: dict[str, AgentOverhead] = {
            entry.id: AgentOverhead(entry.id, entry.overhead.tokens, f"measured with {entry.overhead.client}")
            for entry in self.agents
            if entry.overhead is not None
        }
        for agent, tokens in parse_agent_overheads(self.config, where).items():
            found[agent] = AgentOverhead(agent, tokens, f"{where} [agents.{agent}]")
        return found

    def overhead_for(
        self, capacity: ModelCapacity, agent: str | None = None, folder: str | None = None
    ) -> AgentOverhead | None:
        """The overhead of the agent the session is resumed in (`agent`, else the one the model's
        provider implies), if smig knows it, with what that agent adds for the project `folder`."""
        from smig_tui.core.decide import receiving_agent

        agent = agent or receiving_agent(capacity)
        if not agent:
            return None
        overhead = self.agent_overheads.get(agent)
        entry = self.agent_profile(agent)
        shown = entry.overhead.for_folder if entry is not None and entry.overhead is not None else None
        if overhead is None or folder is None or shown is None or not overhead.source.startswith("measured"):
            return overhead  # a config figure is the user's own for the agent, folder and all
        added = self._folder_tokens.get((agent, folder), lambda: self._count_folder(shown, folder))
        if not added:
            return overhead
        source = f"{overhead.source}, and {added:,} for what it shows of {folder}"
        return replace(overhead, tokens=overhead.tokens + added, source=source)

    def _count_folder(self, shown: Callable[[str], tuple[str, int]], folder: str) -> int:
        """o200k tokens of what an agent's client shows of a project folder, and what it adds besides."""
        text, besides = shown(folder)
        counter = self.counters.get("o200k_base", lambda: self.make_counter("o200k_base"))
        return (counter.count(text) if text else 0) + besides

    def overhead_tokens(self, capacity: ModelCapacity, agent: str | None = None, folder: str | None = None) -> int:
        """That overhead in the target's tokens (0 for a model no known agent runs)."""
        from smig_tui.core.tokens import calibrate_one

        overhead = self.overhead_for(capacity, agent, folder)
        return calibrate_one(overhead.tokens, capacity.calibration) if overhead else 0


def table_date() -> str:
    """The date the shipped capacity table was checked."""
    from smig_tui.adapters.capacity_table import shipped_date

    return shipped_date()
