"""Provides the composition root shared by the CLI, the TUI and the MCP server.

`build_services()` wires the adapters once; every front end calls the same methods, so no logic is
duplicated between them. Nothing here imports Textual.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smig_tui.adapters import client_launch as client_launch  # "continue now": the front ends start clients with it
from smig_tui.adapters import clipboard as clipboard  # the TUI copies through it (see the front-end facade below)
from smig_tui.adapters.config_file import load_config
from smig_tui.adapters.gc_pause import no_cyclic_gc
from smig_tui.adapters.paths import Paths, resolve_paths
from smig_tui.core.errors import AmbiguousIdError, ConfigError, Hint, SessionNotFoundError, SmigError
from smig_tui.core.memo import IdentityMemo, Memo
from smig_tui.core.models import Agent, ReadWarning, Session, SessionInfo
from smig_tui.core.ports import CachedIds, DirectLister, SessionSource, WarningSink
from smig_tui.plugins import agent_choices as agent_choices  # re-exported for the front ends
from smig_tui.plugins import agent_profiles as agent_profiles
from smig_tui.plugins import profile_of as profile_of

if TYPE_CHECKING:
    from smig_tui.adapters.agents.profile import AgentProfile as AgentProfile  # re-exported for the front ends
    from smig_tui.adapters.archive import Archive
    from smig_tui.adapters.archive import ArchiveRun as ArchiveRun  # re-exported for the front ends
    from smig_tui.adapters.memory_store import ApplyResult as ApplyResult  # re-exported for the front ends
    from smig_tui.adapters.memory_store import MemoryStore
    from smig_tui.adapters.search_index import Notice, Progress, RefreshReport, SearchFilters, SearchIndex
    from smig_tui.adapters.search_index import SearchHit as SearchHit  # re-exported for the front ends
    from smig_tui.adapters.storage.migration_store import MigrationStore
    from smig_tui.adapters.storage.token_cache import Known, TokenCache
    from smig_tui.adapters.storage.warned_files import WarnedFiles
    from smig_tui.adapters.summarizer import Summarizer, SummaryPreview
    from smig_tui.core.calibration import Growth
    from smig_tui.core.capacity import CapacityTable, LiveListing
    from smig_tui.core.decide import AgentOverhead
    from smig_tui.core.export import ExportFormat
    from smig_tui.core.memory_sync import Direction, MemoryPlan, Mode
    from smig_tui.core.migration import MigrationResult
    from smig_tui.core.models import Message, ModelCapacity, Plan, Strategy
    from smig_tui.core.native import Destination, NativeOutput
    from smig_tui.core.plan_structure import Structure
    from smig_tui.core.ports import TokenCounter
    from smig_tui.core.search import Snippet
    from smig_tui.core.summary import SummaryResult
    from smig_tui.core.text_classes import CountMix


from smig_tui.core.decide import PARTIAL_NOTE as PARTIAL_NOTE  # what a plan with guessed counts says


@dataclass
class _Counted:
    """What counting one session's messages for one encoding has learnt so far (see `count_newest`)."""

    known: Known
    """The exact counts, from the token cache and counted since; None where a message is still a guess."""
    guesses: list[int] | None = None
    """Each message's length guess, made once the first time one is needed."""
    version: int = 0
    """Bumped each time guesses become counts, so the views below are made again."""
    views: dict[float, tuple[int, list[int], frozenset[int]]] = field(default_factory=dict)
    """Per calibration factor: the `version` it was made at, the calibrated counts (guesses where
    not counted) and the indices still guessed. A target switch plans several times on the same
    counts; merging 150,000 of them each time cost more than the plan."""
    guessed_ids: tuple[int, frozenset[str]] | None = None
    """The ids of the messages still guessed, and the `version` they were taken at."""
    growth: tuple[int, Growth] | None = None
    """The session's logged prompt growth against these counts, and the `version` it was measured at."""
    mix: tuple[int, CountMix] | None = None
    """How these counts fall in text classes (for a target measured per class), and the `version`."""


def _with_prefix(infos: Iterable[SessionInfo], prefix: str) -> list[SessionInfo]:
    """The sessions whose id starts with `prefix` (an exact id included)."""
    return [info for info in infos if info.id.startswith(prefix)]


def _ignore(_: ReadWarning) -> None:
    """Drop a warning; used where the caller asked for quiet."""


def _folder_filter(cwd: str) -> str:
    """The real path of a folder to list sessions under, `~` expanded; a NUL is one sentence."""
    if "\x00" in cwd:
        raise SmigError("The folder to list sessions under contains a NUL character, which no path can hold.")
    return os.path.realpath(os.path.expanduser(cwd))


@dataclass
class Services:
    """Everything a front end needs, built once per process."""

    paths: Paths
    config: dict[str, Any] = field(default_factory=dict)
    """The parsed config file; each feature validates its own table."""
    sources: list[SessionSource] = field(default_factory=list)
    env: dict[str, str] | None = None
    """The environment the agents' settings are read from (None: this process's)."""
    agents: tuple[AgentProfile, ...] = field(default_factory=lambda: agent_profiles())
    """The agents this process reads and writes (the registry's); front ends loop over these."""
    counters: Memo[str, TokenCounter] = field(default_factory=Memo, init=False, repr=False, compare=False)
    """Each encoding's counter, loaded once per process."""
    _counted: IdentityMemo[tuple[Message, ...], _Counted] = field(
        default_factory=lambda: IdentityMemo(8), init=False, repr=False, compare=False
    )
    """Counts of the sessions in use, by their messages and the encoding."""
    _measured: Memo[tuple[str, str | bytes], int] = field(
        default_factory=lambda: Memo(100_000), init=False, repr=False, compare=False
    )
    """Tokens of synthetic texts (placeholders, shortened outputs), by encoding and text (a long one by
    its digest: a huge session's shortened outputs would otherwise be held twice)."""
    _folder_tokens: Memo[tuple[str, str], int] = field(
        default_factory=lambda: Memo(64), init=False, repr=False, compare=False
    )
    """What each agent's client adds for a project folder (its listing), by agent and folder."""
    _shapes: IdentityMemo[Session, Structure] = field(
        default_factory=lambda: IdentityMemo(4), init=False, repr=False, compare=False
    )
    """Each session's plan structure (tool pairs, injected context), only the sessions in use."""

    def agent_profile(self, agent: str) -> AgentProfile | None:
        """The registry entry of one agent (by id), or None for an agent smig does not know."""
        return next((entry for entry in self.agents if entry.id == agent), None)

    def source_for(self, agent: Agent) -> SessionSource:
        """Return the reader for one agent."""
        for source in self.sources:
            if source.agent == agent:
                return source
        raise SessionNotFoundError(f"No reader for agent {agent}.")

    def iter_sessions(
        self,
        agent: Agent | None = None,
        cwd: str | None = None,
        include_subagents: bool = False,
        warn: WarningSink = _ignore,
        every_id: list[str] | None = None,
    ) -> Iterator[SessionInfo]:
        """Yield sessions from every source, filtered, as they are discovered.

        `every_id` collects the id of every session discovered, filtered out or not, every agent's: what
        an id prefix shown in a listing must be unique among, as `find_session` resolves it across agents.
        """
        wanted_cwd = _folder_filter(cwd) if cwd else None
        for source in self.sources:
            if agent is not None and source.agent != agent:
                if every_id is not None:
                    every_id.extend(_every_id(source))
                continue
            for info in source.discover(warn):
                if every_id is not None:
                    every_id.append(info.id)
                if info.is_subagent and not include_subagents:
                    continue
                if wanted_cwd and not _same_or_below(info.cwd, wanted_cwd):
                    continue
                yield info

    def list_sessions(self, **filters: Any) -> list[SessionInfo]:
        """Return all matching sessions, newest first."""
        sessions = [self._with_cached_counts(info) for info in self.iter_sessions(**filters)]
        sessions.sort(key=lambda info: info.updated or "", reverse=True)
        return sessions

    def _with_cached_counts(self, info: SessionInfo) -> SessionInfo:
        """Fill in message count and token count from the token cache, when it has them."""
        stats = self.token_cache.cached_stats(info)
        if stats is None:
            return info
        from dataclasses import replace

        return replace(
            info,
            message_count=info.message_count if info.message_count is not None else stats[0],
            counted_tokens=stats[1],
        )

    def find_session(self, ref: str, warn: WarningSink = _ignore) -> SessionInfo:
        """Resolve a session id, unique id prefix, or path to a session file."""
        missing: str | None = None
        for entry in self.agents:  # a session kept as database rows: its path is `<database>#<id>`
            if entry.refs is not None and (row := entry.refs.split(ref)) is not None:
                found = [
                    info
                    for info in self.iter_sessions(agent=entry.agent, include_subagents=True, warn=warn)
                    if info.path == ref
                ]
                if found:
                    return found[0]
                # agents sharing one database format share the reference's shape: ask the next one
                missing = missing or f"No {entry.name} session {row[1]} in {row[0]}."
        if missing is not None:
            raise SessionNotFoundError(missing)
        as_path = Path(ref).expanduser()
        if as_path.name.endswith((".jsonl", ".jsonl.zst")):
            from smig_tui.adapters.zstd_files import current_form

            as_path = Path(current_form(str(as_path)))  # Codex may have (de)compressed it since
        if as_path.is_file():  # any agent's file: Aider's histories are Markdown
            resolved = str(as_path.resolve())
            # Only the agents whose home holds the file are listed (all of them for a file elsewhere):
            # listing 2,000 sessions of the other agents cold costs about a second for nothing.
            holders = self._agents_holding(resolved) or [None]
            for agent in holders:
                source = self.source_for(agent) if agent else None
                if isinstance(source, DirectLister) and (listed := source.listed_as(resolved, warn)):
                    return listed
                for info in self.iter_sessions(agent=agent, include_subagents=True, warn=warn):
                    if os.path.realpath(info.path) == resolved:
                        return info
            if holders != [None]:  # a home's reader may still list a file kept elsewhere (an archive copy)
                for info in self.iter_sessions(include_subagents=True, warn=warn):
                    if info.agent not in holders and os.path.realpath(info.path) == resolved:
                        return info
        matches = self._named(ref, warn)
        exact = [info for info in matches if info.id == ref]
        if exact:
            return exact[0]
        if not matches:
            raise SessionNotFoundError(f"No session matches {ref!r}.", hint=Hint.LIST_SESSIONS)
        if len({info.id for info in matches}) > 1:
            shown = ", ".join(sorted({info.id for info in matches})[:5])
            raise AmbiguousIdError(f"{ref!r} matches several sessions ({shown}); give more of the id.")
        return matches[0]

    def _named(self, prefix: str, warn: WarningSink) -> list[SessionInfo]:
        """The sessions whose id starts with `prefix`, by file name where a reader can tell ids so,
        else from its listing. When nothing matched, the readers that answered by name list their
        home too, so a file named otherwise than its id is still found (the others listed already).
        """
        found: list[SessionInfo] = []
        by_name: list[SessionSource] = []
        for source in self.sources:
            named = source.listed_with_id(prefix, warn) if isinstance(source, DirectLister) else None
            if named is None:
                named = _with_prefix(source.discover(warn), prefix)
            else:
                by_name.append(source)
            found += named
        if not found:
            for source in by_name:
                found += _with_prefix(source.discover(warn), prefix)
        return found

    def load_session(self, info: SessionInfo, warn: WarningSink = _ignore) -> Session:
        """Read one session in full."""
        return self.source_for(info.agent).load(info, warn)

    @cached_property
    def capacities(self) -> CapacityTable:
        """The model capacity table: shipped figures, cached live ones, the config's `[models]`, agent settings."""
        from smig_tui.adapters.capacity_table import load_capacities
        from smig_tui.adapters.provider_capacity import LiveCache

        settings = {
            entry.id: adjust for entry in self.agents if (adjust := entry.window_settings(self.env)) is not None
        }
        live = LiveCache(self.paths.cache_dir).load()
        return load_capacities(self.config, self.paths.config_file, settings, live)

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
    def warned_files(self) -> WarnedFiles:
        """The warnings already shown per file version, so a skipped file is reported once (issue 29)."""
        from smig_tui.adapters.storage.warned_files import WarnedFiles

        return WarnedFiles(self.paths.cache_dir / "warned.json")

    @cached_property
    def token_cache(self) -> TokenCache:
        """The on-disk per-message token counts, so a session is tokenized once."""
        from smig_tui.adapters.storage.token_cache import TokenCache

        return TokenCache(self.paths.cache_dir / "tokens")

    def counter_for(self, capacity: ModelCapacity) -> TokenCounter:
        """The counter for a model's encoding, loaded once per process (an estimate offline); for a
        family measured per class of text, that encoding's count scaled per class."""
        from smig_tui.adapters.tokenizers.tiktoken_counter import make_counter

        base = self.counters.get(capacity.encoding, lambda: make_counter(capacity.encoding))
        if not capacity.class_calibration or not base.exact:
            return base
        from smig_tui.adapters.tokenizers.class_counter import ClassCounter

        scales = {name: factor / capacity.calibration for name, factor, _ in capacity.class_calibration}
        key = f"{capacity.encoding}|{capacity.tokenizer}|{sorted(scales.items())}"
        return self.counters.get(key, lambda: ClassCounter(base, capacity.tokenizer or "custom", scales))

    def count_session(self, session: Session, capacity: ModelCapacity) -> list[int]:
        """Each message's tokens as `capacity` counts them, all exact (cached on disk and in memory)."""
        return self.count_newest(session, capacity)[0]

    def count_newest(
        self,
        session: Session,
        capacity: ModelCapacity,
        need: float = float("inf"),
        indices: Iterable[int] = (),
        skip: Container[int] = (),
    ) -> tuple[list[int], frozenset[int]]:
        """Counts exact from the newest message back until the migratable tail passes `need`, plus `indices`.

        Older messages keep a length guess (`core.tokens.estimate`); returns the calibrated counts and
        the indices still guessed. Exact counts are cached on disk, guesses never are.
        """
        _, counts, guessed = self._counted_view(session, capacity, need, indices, skip)
        return list(counts), guessed

    def _counted_view(
        self,
        session: Session,
        capacity: ModelCapacity,
        need: float,
        indices: Iterable[int] = (),
        skip: Container[int] = (),
    ) -> tuple[int, list[int], frozenset[int]]:
        """`count_newest`'s counting, returning the shared view (never to be changed) and its version."""
        from smig_tui.core.tokens import calibrate, count_messages, count_newest, estimate

        counter = self.counter_for(capacity)
        state = self._counted_state(session, counter)
        messages, known = session.messages, state.known
        counts: list[int | None] = known.counts

        def count(batch: list[int]) -> list[int]:
            return count_messages([messages[i] for i in batch], counter)

        counted = count_newest(messages, counts, need, count, skip, capacity.calibration)
        extra = [i for i in dict.fromkeys(indices) if counts[i] is None]
        for i, n in zip(extra, count(extra) if extra else [], strict=True):
            counts[i] = n
        if counted or extra:
            self.token_cache.remember(session, counter, known)
            state.version += 1
        factor, version = capacity.calibration, state.version
        view = state.views.get(factor)
        if view is None or view[0] != version:
            guessed = frozenset(i for i, n in enumerate(counts) if n is None)
            if guessed and state.guesses is None:
                state.guesses = [estimate(m) for m in messages]
            guesses = state.guesses or []
            merged: list[int] = [guesses[i] if n is None else n for i, n in enumerate(counts)]
            view = version, calibrate(merged, factor), guessed
            state.views[factor] = view
        return view

    def _counted_state(self, session: Session, counter: TokenCounter) -> _Counted:
        """What counting `session` with `counter` has learnt so far (the token cache's counts at first)."""
        return self._counted.get(
            session.messages, lambda: _Counted(self.token_cache.known(session, counter)), tag=counter.name
        )

    def count_mix(self, session: Session, capacity: ModelCapacity) -> CountMix | None:
        """How `session`'s tokens fall in text classes for `capacity` and the ± that mix gives, for a
        target measured per class (None otherwise: its single ± holds). Counts nothing new."""
        if not capacity.class_calibration:
            return None
        from smig_tui.core.text_classes import count_mix

        version, counts, _ = self._counted_view(session, capacity, need=-1)
        state = self._counted_state(session, self.counter_for(capacity))
        if state.mix is None or state.mix[0] != version:
            errors = {name: error for name, _, error in capacity.class_calibration}
            state.mix = version, count_mix(session.messages, counts, errors, capacity.calibration_error)
        return state.mix[1]

    def guessed_ids(self, session: Session, capacity: ModelCapacity) -> frozenset[str]:
        """Ids of the messages whose tokens are still a length guess for `capacity` (nothing new is counted)."""
        state = self._counted_state(session, self.counter_for(capacity))
        version = state.version
        if state.guessed_ids is None or state.guessed_ids[0] != version:
            _, _, guessed = self._counted_view(session, capacity, need=-1)
            messages = session.messages
            state.guessed_ids = version, frozenset(messages[i].id for i in guessed)
        return state.guessed_ids[1]

    def counted_messages(self, session: Session, capacity: ModelCapacity) -> int:
        """How many of the session's messages `capacity`'s tokenizer has counted so far (the rest are guesses).

        Counts only replace guesses, so a plan begun when this was lower was made on older counts.
        """
        counter = self.counter_for(capacity)
        state = self._counted_state(session, counter)
        counts = state.known.counts
        return len(counts) - counts.count(None)

    MEASURED_KEY_CHARS = 256
    """Texts longer than this are remembered by their digest in `_measured`."""

    def measure_for(self, capacity: ModelCapacity) -> Callable[[str], int]:
        """Count a synthetic message (placeholder, shortened output) for `capacity`, memoised."""
        from smig_tui.core.tokens import MESSAGE_OVERHEAD, calibrate_one

        counter = self.counter_for(capacity)

        def measure(text: str) -> int:
            # A long text (a shortened tool output's head and tail) is remembered by its digest, not kept.
            key = (
                text
                if len(text) <= self.MEASURED_KEY_CHARS
                else hashlib.blake2b(text.encode(), digest_size=16).digest()
            )
            tokens = self._measured.get((counter.name, key), lambda: counter.count(text) + MESSAGE_OVERHEAD)
            return calibrate_one(tokens, capacity.calibration)

        return measure

    def plan(
        self,
        session: Session,
        target: str,
        strategy: Strategy | str = "truncate",
        pins: Iterable[str] = (),
        reserve: int | None = None,
        summary: str | None = None,
        pin_first_user: bool | None = None,
        harness: bool | None = None,
        summary_budget: int | None = None,
        agent: str | None = None,
    ) -> Plan:
        """Decide whether `session` fits `target` and plan its migration (the one call every front end uses).

        `agent` names the receiving agent when the destination is known (`--to opencode`), so its own
        overhead is taken off the room; without it the agent is the one the target's provider implies.
        """
        from smig_tui.core.capacity import counted_exactly, retired_warning
        from smig_tui.core.decide import parse_plan_settings
        from smig_tui.core.models import Strategy as StrategyEnum
        from smig_tui.core.replan import PlanInputs, counting_need, plan_counting_kept

        settings = parse_plan_settings(self.config, str(self.paths.config_file))
        capacity = self.capacities.lookup(target)
        harness = settings.harness if harness is None else harness
        inputs = PlanInputs(
            session,
            capacity,
            StrategyEnum(strategy),
            settings.reserve if reserve is None else reserve,
            harness,
            exact=self.counter_for(capacity).exact and counted_exactly(capacity),
            overhead=self.overhead_tokens(capacity, agent, session.info.cwd) if harness else 0,
            pins=frozenset(pins),
            pin_first_user=settings.pin_first_user if pin_first_user is None else pin_first_user,
            summary=summary,
            summary_budget=summary_budget,
            shape=self._shapes.get(session, lambda: _analysed(session)),
        )
        need = counting_need(inputs)
        capacity, own_note = self._own_calibration(session, capacity, need)
        inputs = replace(inputs, capacity=capacity)

        def count(need: float, indices: Sequence[int], skip: Container[int]) -> tuple[list[int], AbstractSet[int]]:
            return self.count_newest(session, capacity, need, indices, skip)

        with no_cyclic_gc():  # an item per message: the collector would walk the whole session many times over
            plan = plan_counting_kept(inputs, count, self.measure_for(capacity), need)
        retired = retired_warning(capacity)
        if retired:
            plan = replace(plan, notes=(retired, *plan.notes))
        if own_note:
            plan = replace(plan, notes=(*plan.notes, own_note))
        return plan

    def config_problems(self) -> list[str]:
        """What is wrong in the config file, one sentence per table that does not validate (for `smig doctor`)."""
        from smig_tui.adapters.provider_capacity import providers_from_config
        from smig_tui.core.config_schema import config_problems
        from smig_tui.core.decide import parse_plan_settings

        where = str(self.paths.config_file)
        problems = config_problems(self.config, where)  # every table against the schema, unknown ones too
        checks: list[Callable[[], object]] = [  # then what each feature checks beyond it
            lambda: self.capacities,
            lambda: parse_plan_settings(self.config, where),
            lambda: self.agent_overheads,
            lambda: self.summarizer,
            lambda: providers_from_config(self.config, where),
        ]
        for check in checks:
            try:
                check()
            except SmigError as error:
                if str(error) not in problems:
                    problems.append(str(error))
        return problems

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
        from smig_tui.adapters.tokenizers.tiktoken_counter import make_counter

        text, besides = shown(folder)
        counter = self.counters.get("o200k_base", lambda: make_counter("o200k_base"))
        return (counter.count(text) if text else 0) + besides

    def overhead_tokens(self, capacity: ModelCapacity, agent: str | None = None, folder: str | None = None) -> int:
        """That overhead in the target's tokens (0 for a model no known agent runs)."""
        from smig_tui.core.tokens import calibrate_one

        overhead = self.overhead_for(capacity, agent, folder)
        return calibrate_one(overhead.tokens, capacity.calibration) if overhead else 0

    def _own_calibration(
        self, session: Session, capacity: ModelCapacity, need: float
    ) -> tuple[ModelCapacity, str | None]:
        """Measure the session's logged prompt growth against smig's count over the tail the plan counts anyway.

        The ratio replaces the target's calibration when the target shares the session model's
        tokenizer family and is not counted exactly: then it is a measurement of this very text by
        that tokenizer, where the family factor is an average over other sessions.
        """
        from smig_tui.core.calibration import measure_growth, own_calibration_note
        from smig_tui.core.capacity import counted_exactly

        source = self.capacities.get(session.info.model) if session.info.model else None
        if source is None:
            return capacity, None
        raw = replace(capacity, calibration=1.0, class_calibration=())  # the encoding's own count
        version, counts, guessed = self._counted_view(session, raw, need / capacity.calibration)
        state = self._counted_state(session, self.counter_for(raw))
        if state.growth is None or state.growth[0] != version:  # a walk over every message's usage
            state.growth = version, measure_growth(session, counts, guessed)
        growth = state.growth[1]
        note = own_calibration_note(growth, session.info.agent, source, capacity)
        used = source.tokenizer == capacity.tokenizer and not counted_exactly(capacity)
        if used and growth.ratio is not None:
            capacity = replace(
                capacity,
                calibration=round(growth.ratio, 3),
                calibration_source=f"session {session.id}'s logged usage",
                calibration_error=None,
                class_calibration=(),  # measured on this very text, whatever its classes
            )
        return capacity, note

    def cached_stats(self, info: SessionInfo) -> tuple[int, int] | None:
        """(messages, tokens) of a session counted before and unchanged since, else None."""
        return self.token_cache.cached_stats(info)

    def source_status(self, path: str, sha256: str, size: int) -> str:
        """Whether a migrated source file is `unchanged`, only `grown`, `changed` or `missing` since commit."""
        from smig_tui.adapters.source_check import source_status

        return source_status(path, sha256, size)

    def memory_store(self) -> MemoryStore:
        """The reader and writer of the agents' long-term memory."""
        from smig_tui.adapters.memory_store import MemoryStore

        return MemoryStore(self.paths, agents=self.agents, env=self.env)

    def memory_plan(
        self,
        directions: tuple[Direction, ...] | None = None,
        mode: Mode | None = None,
        project: str | None = None,
        budget: int | None = None,
    ) -> MemoryPlan:
        """Plan a memory sync among the agents set up here (every direction, auto mode by default); writes nothing."""
        from smig_tui.core.memory_sync import Mode, plan_memory_sync

        inputs = self.memory_store().read_inputs(project)
        return plan_memory_sync(inputs, directions or None, mode or Mode.AUTO, budget)

    def memory_apply(self, plan: MemoryPlan) -> ApplyResult:
        """Make a planned memory sync's writes, under the memory lock (LockedError if held)."""
        return self.memory_store().apply(plan)

    @cached_property
    def store(self) -> MigrationStore:
        """smig's storage of committed migrations, per workspace."""
        from smig_tui.adapters.storage.migration_store import MigrationStore

        return MigrationStore(self.paths.data_dir / "migrations")

    def migrate(
        self,
        session: Session,
        plan: Plan,
        to: Iterable[Destination] = (),
        dry_run: bool = False,
        out: Path | None = None,
        force: bool = False,
        redact: bool = True,
        cwd: str | None = None,
    ) -> MigrationResult:
        """Commit a planned migration (or lay it out, with `dry_run`); storage always records it.

        `cwd` writes the native sessions for another project folder than the source's.
        """
        from smig_tui.adapters.migration_commit import Committer, MigrationRequest

        request = MigrationRequest(session, plan, migrated_messages(plan), tuple(to), dry_run, out, force, redact, cwd)
        return Committer(self.paths, self.store, self.agents, self.env).migrate(request)

    def recover_commits(self) -> list[str]:
        """Finish or clean up commits a kill interrupted; one sentence each (see `commit_journal`)."""
        from smig_tui.adapters.migration_commit import Committer

        committer = Committer(self.paths, self.store, self.agents, self.env)
        if not committer.journal.pending():
            return []
        with self.store.lock():
            return committer.recover_locked()

    def _agents_holding(self, resolved: str) -> list[Agent | None]:
        """The agents whose session home is a folder holding this resolved path."""
        return [
            Agent(agent)
            for agent, home in self.agent_homes().items()
            if home.is_dir() and _same_or_below(resolved, os.path.realpath(home))
        ]

    def agent_homes(self) -> dict[str, Path]:
        """Where each agent's sessions are read from: a folder, or a database file."""
        homes = {entry.id: entry.home(self.env) for entry in self.agents}
        return {agent: home for agent, home in homes.items() if home is not None}

    def can_write(self, destination: Destination | str) -> bool:
        """Whether a destination can be written here: an agent's needs its writer (and what that needs)."""
        entry = self.agent_profile(str(destination))
        if entry is None:
            return True  # the store and the exports are smig's own files
        if entry.writer is None:
            return False  # a read-only agent
        writer = entry.writer(self.paths, self.env)
        return writer is not None and writer.unavailable() is None

    def with_texts(self, messages: Sequence[Message]) -> Iterator[Message]:
        """The messages with their whole texts in hand, the ones left on disk read back a batch at a time
        (in file order, one open per batch) rather than one open per text."""
        from smig_tui.adapters.redact_pool import read_in_batches

        return read_in_batches(messages)

    def export(self, session: Session, fmt: ExportFormat, plan: Plan | None = None, redact: bool = True) -> str:
        """Render a session (or a plan's migrated conversation) as Markdown, JSON, OpenAI chat or a memory note."""
        return "".join(self.export_chunks(session, fmt, plan, redact))

    def export_chunks(
        self, session: Session, fmt: ExportFormat, plan: Plan | None = None, redact: bool = True
    ) -> Iterator[str]:
        """`export` in pieces: Markdown streams message by message, each redacted as it is written,
        so a whole huge session is neither redacted twice nor held in memory as one document."""
        from smig_tui.core import export
        from smig_tui.core.handoff import redact_header, redact_plan, redact_session

        fmt = export.ExportFormat(fmt)
        messages = migrated_messages(plan) if plan is not None else session.messages
        if fmt is export.ExportFormat.MEMORY:
            from smig_tui.core.memory_markdown import to_memory_markdown
            from smig_tui.core.redact import redact as redact_text

            if not redact:
                yield to_memory_markdown(session, plan)
                return
            # The memory note reads (and cuts) the messages itself, so they are redacted first.
            plan = redact_plan(plan, kept_messages=True) if plan is not None else None
            yield redact_text(to_memory_markdown(redact_session(session), plan)).text
            return
        if redact:
            session = redact_header(session)  # renderers read only its title and goal
            plan = redact_plan(plan) if plan is not None else None
        from smig_tui.adapters.redact_pool import read_batches, redacted_batches, worth_workers

        if fmt is export.ExportFormat.MARKDOWN:
            prepare = partial(redacted_batches, parallel=worth_workers(messages)) if redact else read_batches
            yield from export.markdown_chunks(session, messages, plan, prepare)
            return
        # JSON streams too: each batch read back and redacted as it is written, one object at a time
        # (a whole 500 MB session as objects and one string peaked at 1.1-1.8 GB).
        from smig_tui.core.json_text import LazyList, blocks, indented_json

        prepare = partial(redacted_batches, parallel=worth_workers(messages)) if redact else read_batches
        read = (message for batch in prepare(_batches(messages)) for message in batch)
        data: Any = (
            LazyList(export.openai_messages(read))
            if fmt is export.ExportFormat.OPENAI
            else export.to_record(session, read, plan, lazy=True)
        )
        yield from blocks(indented_json(data))
        yield "\n"

    def check_output(self, out: Path, force: bool = False, source: str | None = None) -> Path:
        """Refuse a bad output path before any work is done (see `output_paths`); return where it writes."""
        from smig_tui.adapters.output_paths import agent_folders, check_output_path

        folders = agent_folders(self.agents, self.paths, self.env)
        return check_output_path(out, self.paths, force=force, sources=[source] if source else [], agents=folders)

    def summary_key_problem(self) -> str | None:
        """Why a summary cannot be sent as configured (no API key for a remote provider), or None."""
        from smig_tui.adapters.summarizer_config import key_problem

        return key_problem(self.summarizer.config)

    def save_export(self, text: str | Iterable[str], out: Path, force: bool = False, source: str | None = None) -> Path:
        """Write an export atomically where the output-path rules allow (see `output_paths`).

        An existing regular file is replaced only with `force`; `source` (the session read) never is.
        """
        from smig_tui.adapters.fs import atomic_write

        target = self.check_output(out, force, source)
        atomic_write(target, text, mode=0o600, overwrite=force, make_parents=False)
        return target

    def copy_text(self, text: str) -> str:
        """Put text on the clipboard (OSC 52 on a terminal, else a system tool); says which."""
        import sys

        from smig_tui.adapters.clipboard import copy_to_clipboard

        return copy_to_clipboard(text, use_terminal=sys.stdout.isatty())

    def continue_launch(self, output: NativeOutput) -> client_launch.Launch:
        """Check that the receiving client can start on a written session here, for "continue now";
        `client_launch.ContinueRefused` says why not and carries the command to run later."""
        entry = self.agent_profile(output.agent)
        return client_launch.prepare(output, entry.name if entry else output.agent, self.env)

    @cached_property
    def summarizer(self) -> Summarizer:
        """The summarizer from `[summarizer]` and the env, with its cache; openai is imported only here."""
        return self.summarizer_for()

    def summarizer_for(
        self, provider: str | None = None, model: str | None = None, base_url: str | None = None
    ) -> Summarizer:
        """A summarizer with per-run overrides (CLI flags) on top of the config file and env."""
        from smig_tui.adapters.storage.summary_cache import SummaryCache
        from smig_tui.adapters.summarizer import Summarizer
        from smig_tui.adapters.summarizer_config import resolve_config
        from smig_tui.core.config_schema import table_of

        table = table_of(self.config, "summarizer", str(self.paths.config_file))
        config = resolve_config(
            table, os.environ, provider=provider, model=model, base_url=base_url, where=str(self.paths.config_file)
        )
        return Summarizer(config, SummaryCache(self.paths.cache_dir / "summaries"))

    def summary_preview(
        self,
        source: Session | Sequence[Message],
        *,
        target_chars: int | None = None,
        target_tokens: int | None = None,
        head_only: bool = False,
        summarizer: Summarizer | None = None,
        use_cache: bool = True,
    ) -> SummaryPreview:
        """Say what a summary would send (provider, requests, tokens, redactions); sends nothing."""
        chosen = summarizer or self.summarizer
        return chosen.preview(
            _summary_messages(source),
            target_chars=_target_chars(target_chars, target_tokens),
            head_only=head_only,
            use_cache=use_cache,
        )

    def summarize(
        self,
        source: Session | Sequence[Message],
        *,
        target_chars: int | None = None,
        target_tokens: int | None = None,
        head_only: bool = False,
        allow_network: bool = False,
        on_delta: Callable[[str], None] | None = None,
        on_progress: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        summarizer: Summarizer | None = None,
        use_cache: bool = True,
    ) -> SummaryResult:
        """Write the handoff summary (streamed to `on_delta`); nothing is sent unless `allow_network`."""
        chosen = summarizer or self.summarizer
        return chosen.summarize(
            _summary_messages(source),
            target_chars=_target_chars(target_chars, target_tokens),
            head_only=head_only,
            on_delta=on_delta,
            on_progress=on_progress,
            cancel=cancel,
            allow_network=allow_network,
            use_cache=use_cache,
        )

    def plan_with_summary(
        self,
        session: Session,
        target: str,
        strategy: Strategy | str,
        *,
        allow_network: bool = False,
        on_delta: Callable[[str], None] | None = None,
        on_progress: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        summarizer: Summarizer | None = None,
        **plan_options: Any,
    ) -> tuple[Plan, SummaryResult | None]:
        """Plan a summary strategy with its summary written: summarise what the plan drops, then re-plan.

        The summary is asked to fit the plan's summary budget, and the re-plan keeps that budget, so the
        head the summarizer saw is exactly the head the final plan drops. Without `allow_network` only a
        cached summary is used (SummaryConsentError otherwise).
        """
        from smig_tui.core.models import Strategy as StrategyEnum
        from smig_tui.core.plans import DEFAULT_SUMMARY_BUDGET
        from smig_tui.core.strategies import needs_summary

        pending = self.plan(session, target, strategy, **plan_options)
        # Harness context and encrypted reasoning are never migrated, so they are not summarised.
        head = [it.message for it in pending.dropped if not (it.message.injected or it.message.opaque)]
        if not needs_summary(pending.strategy) or not head:
            return pending, None
        budget = pending.summary_budget
        result = self.summarize(
            head,
            target_tokens=min(budget, DEFAULT_SUMMARY_BUDGET) or None,
            head_only=pending.strategy is StrategyEnum.SUMMARY_TAIL,
            allow_network=allow_network,
            on_delta=on_delta,
            on_progress=on_progress,
            cancel=cancel,
            summarizer=summarizer,
        )
        options = {**plan_options, "summary": result.text, "summary_budget": budget}
        return self.plan(session, target, strategy, **options), result

    # --- full-text search (issue 20) ---------------------------------------------------------------

    @cached_property
    def search_index(self) -> SearchIndex:
        """The full-text index of every session, in smig's cache folder."""
        from smig_tui.adapters.search_index import SearchIndex

        return SearchIndex(self.paths.cache_dir / "search")

    def refresh_search_index(
        self, warn: WarningSink = _ignore, progress: Progress | None = None, notice: Notice | None = None
    ) -> RefreshReport:
        """Index what is new or changed in every source's sessions (any agent a source reads)."""
        return self.search_index.refresh(self.sources, warn, progress, notice)

    def search(
        self,
        query: str,
        filters: SearchFilters | None = None,
        limit: int = 20,
        offset: int = 0,
        warn: WarningSink = _ignore,
        progress: Progress | None = None,
        notice: Notice | None = None,
        refresh: bool = True,
    ) -> list[SearchHit]:
        """Search every session's messages (refreshing the index first); a damaged index is rebuilt."""
        import sqlite3

        from smig_tui.adapters.search_index import IndexDamagedError, SearchFilters
        from smig_tui.core.search import parse_query

        parsed = parse_query(query)
        agents = [source.agent.value for source in self.sources]
        if filters and filters.agent and filters.agent not in agents:
            from smig_tui.core.search import SearchQueryError

            raise SearchQueryError(f"Unknown agent {filters.agent!r}; smig reads {', '.join(agents)}.")
        try:
            if refresh:
                self.refresh_search_index(warn, progress, notice)
            try:
                return self.search_index.search(parsed, filters or SearchFilters(), limit, offset, notice)
            except IndexDamagedError:
                self.refresh_search_index(warn, progress, notice)
                return self.search_index.search(parsed, filters or SearchFilters(), limit, offset, notice)
        except (sqlite3.Error, IndexDamagedError) as error:
            reason = str(error).rstrip(".")
            raise SmigError(f"The search index at {self.search_index.db_path} cannot be used: {reason}.") from None

    def search_excerpt(self, hit: SearchHit, query: str, width: int = 1200) -> Snippet:
        """More of a hit's message around the match (for a message view), redacted and marked."""
        from smig_tui.core.search import parse_query

        return self.search_index.excerpt(hit, parse_query(query), width)


def _analysed(session: Session) -> Structure:
    """`plan_structure.analyse` with the cyclic collector paused (a list per unit of a whole session)."""
    from smig_tui.core.plan_structure import analyse

    with no_cyclic_gc():
        return analyse(session)


def _batches(messages: Sequence[Message], size: int = 512) -> Iterator[Sequence[Message]]:
    """The messages in runs of `size`, read back and redacted together."""
    return (messages[start : start + size] for start in range(0, len(messages), size))


def _summary_messages(source: Session | Sequence[Message]) -> Sequence[Message]:
    """The messages to summarise: a session's whole conversation, or the ones given."""
    return source.messages if isinstance(source, Session) else source


def _target_chars(target_chars: int | None, target_tokens: int | None) -> int:
    """A summary's length in characters, from characters or a token budget."""
    from smig_tui.core.summary import DEFAULT_TARGET_CHARS, chars_for_tokens

    if target_chars:
        return target_chars
    return chars_for_tokens(target_tokens) if target_tokens else DEFAULT_TARGET_CHARS


def migrated_messages(plan: Plan) -> tuple[Message, ...]:
    """The migrated conversation of a plan: the note or summary first, then what is kept."""
    from smig_tui.core.plans import result_messages

    return result_messages(plan)


def _same_or_below(path: str | None, root: str) -> bool:
    """Tell whether `path` is `root` or inside it."""
    if not path:
        return False
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


# What the front ends use of the adapters besides `Services`, so they reach adapters only through this
# module (tests/test_layers.py checks it). Each imports its adapter on first use.


def describe_failure(error: BaseException, where: str) -> str:
    """One sentence for any error; an unforeseen one's traceback goes to a crash log the sentence names."""
    from smig_tui.adapters.crash_log import one_line

    return one_line(error, where=where)


def reading_progress(report: Callable[[int, int], None]) -> AbstractContextManager[None]:
    """Call `report(bytes_read, size)` as sessions are read in this thread (a front end's progress bar)."""
    from smig_tui.adapters.jsonl import reading_progress as watch

    return watch(report)


def write_private(path: Path, text: str) -> None:
    """Write a small file of smig's own (preferences) atomically, readable only by the user."""
    from smig_tui.adapters.fs import atomic_write

    atomic_write(path, text)


def replace_file(path: Path, text: str, mode: int) -> None:
    """Atomically write a file smig merges into (an agent's MCP config) with `mode`; only a regular file is replaced."""
    from smig_tui.adapters.fs import atomic_write

    atomic_write(path, text, mode=mode)


def file_kind(mode: int) -> str:
    """What an `lstat` mode is, in words ("a symbolic link", "a FIFO"), for a refusal's sentence."""
    from smig_tui.adapters.fs import describe_kind

    return describe_kind(mode)


def search_filters(**fields: Any) -> SearchFilters:
    """The filters of a search (agent, cwd, since, role), checked by the index."""
    from smig_tui.adapters.search_query import SearchFilters

    return SearchFilters(**fields)


def current_branch(folder: str) -> str | None:
    """The git branch `folder` is on (from the repository's HEAD file), None outside a repository or detached."""
    from smig_tui.adapters.git_head import current_branch as branch_of

    return branch_of(folder)


def table_date() -> str:
    """The date the shipped capacity table was checked."""
    from smig_tui.adapters.capacity_table import shipped_date

    return shipped_date()


def no_sessions_sentence(env: dict[str, str] | None = None) -> str:
    """Where smig looked when it found no session at all, and the variables that move each agent's home."""
    from smig_tui.core.words import name_list

    places = [str(where) for entry in agent_profiles() if (where := entry.where_sessions(env)) is not None]
    return f"no sessions found under {name_list(places)}"


def local_summarizer_url() -> str:
    """Where the `local` summarizer is asked unless the config names another address (Ollama's)."""
    from smig_tui.adapters.summarizer_config import PROVIDERS

    return PROVIDERS["local"].base_url


def config_file_path(env: dict[str, str] | None = None) -> Path:
    """Where smig reads its config file from (it may not exist), for help texts and `smig doctor`."""
    return resolve_paths(env).config_file


def build_services(env: dict[str, str] | None = None, agents: Sequence[AgentProfile] | None = None) -> Services:
    """Wire the adapters from the environment and the config file: one reader per agent of the registry."""
    paths = resolve_paths(env)
    config = load_config(paths.config_file)
    entries = tuple(agent_profiles() if agents is None else agents)
    sources = [source for entry in entries if (source := entry.source(paths, env)) is not None]
    return Services(paths=paths, config=config, sources=with_archive(paths, sources, env), env=env, agents=entries)


def _every_id(source: SessionSource) -> list[str]:
    """The ids of another agent's sessions, for unique prefixes: from its listing cache when it keeps one
    (a JSON read), else from a listing whose warnings belong to that agent's own listing."""
    cached = source.cached_ids() if isinstance(source, CachedIds) else None
    return cached if cached is not None else [info.id for info in source.discover(_ignore)]


def session_archive(paths: Paths, env: dict[str, str] | None = None) -> Archive:
    """smig's archive of session files, restoring into each agent's home (issue 20)."""
    from smig_tui.adapters.archive import Archive

    homes: dict[str, Path] = {
        entry.id: home for entry in agent_profiles() if entry.refs is None and (home := entry.home(env)) is not None
    }
    return Archive(paths.data_dir / "archive", homes)


def with_archive(paths: Paths, sources: list[SessionSource], env: dict[str, str] | None = None) -> list[SessionSource]:
    """Each reader wrapped so archived sessions whose originals are gone still list (issue 20)."""
    from smig_tui.adapters.archive import ArchivedSource

    archive = session_archive(paths, env)
    return [ArchivedSource(source, archive, paths.cache_dir / "archive-view") for source in sources]


@dataclass(frozen=True, slots=True)
class AgentReport:
    """One agent of the registry as `smig doctor` found it."""

    agent: str
    name: str
    home: str | None
    """Where its sessions are read from (a folder, or OpenCode's database); None when unknown."""
    found: bool
    sessions: int = 0
    """Sessions listed, sub-agent and archived ones included."""
    sub_agents: int = 0
    archived: int = 0
    skipped: int = 0
    """Warnings discovery gave for its files (each a skipped or partly unreadable file)."""
    program: str | None = None
    """Its client's executable name (`claude`), what `--continue` starts; None when it has none."""
    client: str | None = None
    """The executable found for it (`SMIG_<PROGRAM>_BIN`, else PATH); None when not installed here."""
    client_problem: str | None = None
    """Why no executable was found: `not on PATH, SMIG_CLAUDE_BIN unset`."""


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """What `smig doctor` reports: every fact a user needs to see why smig lists or counts what it does."""

    version: str
    config_file: str
    config: str
    """`absent` (the defaults apply), `ok`, or `invalid`."""
    config_problems: list[str]
    data_dir: str
    cache_dir: str
    agents: list[AgentReport]
    tokenizer_files: list[dict[str, Any]]
    """Per encoding the capacity table uses: `encoding`, `path`, `found`, `folder_from`."""
    summarizer: dict[str, Any]
    """`provider`, `model`, `base_url`, `ready` and the `problem` when it is not."""
    clipboard: str
    migrations: int
    skipped: list[dict[str, Any]]
    """Every warning discovery gave (`agent`, `path`, `line`, `message`), whether shown before or not."""


def diagnose(env: dict[str, str] | None = None, agents: Sequence[AgentProfile] | None = None) -> Diagnosis:
    """Gather what `smig doctor` reports; a config file that does not parse is a finding, not an error."""
    import sys

    from smig_tui import __version__
    from smig_tui.adapters.tokenizers.tiktoken_counter import vocabulary_file

    paths = resolve_paths(env)
    environ = os.environ if env is None else env
    problems: list[str] = []
    state = "ok" if paths.config_file.is_file() else "absent"
    try:
        config = load_config(paths.config_file)
    except ConfigError as error:
        config, state = {}, "invalid"
        problems.append(str(error))
    entries = tuple(agent_profiles() if agents is None else agents)
    services = Services(paths=paths, config=config, sources=[], env=env, agents=entries)
    if state == "ok":
        problems += services.config_problems()
        state = "invalid" if problems else "ok"
    reports, skipped = [], []
    for entry in entries:
        home = entry.home(env)
        source = entry.source(paths, env) if home is not None else None
        counts = {"sessions": 0, "sub_agents": 0, "archived": 0, "skipped": 0}
        if source is not None:
            wrapped = with_archive(paths, [source], env)[0]

            def collect(warning: ReadWarning, agent: str = entry.id, tally: dict[str, int] = counts) -> None:
                tally["skipped"] += 1
                skipped.append({"agent": agent, "path": warning.path, "line": warning.line, "message": warning.message})

            for info in wrapped.discover(collect):
                counts["sessions"] += 1
                counts["sub_agents"] += info.is_subagent
                counts["archived"] += info.archived
        client, client_problem = None, None
        if entry.program:
            client = client_launch.find_client(entry.program, environ)
            variable = client_launch.bin_env(entry.program)
            named = environ.get(variable)
            if client is None:
                client_problem = (
                    f"{variable} names {named}, not an executable" if named else f"not on PATH, {variable} unset"
                )
        found = bool(home and home.exists())
        reports.append(
            AgentReport(
                entry.id,
                entry.name,
                str(home) if home else None,
                found,
                **counts,
                program=entry.program,
                client=client,
                client_problem=client_problem,
            )
        )
    try:
        capacities = services.capacities
    except SmigError:
        from smig_tui.adapters.capacity_table import load_builtin

        capacities = load_builtin()
    tokenizers = []
    for encoding in sorted({model.encoding for model in capacities.models}):
        path, chosen_by, found = vocabulary_file(encoding, environ)
        tokenizers.append({"encoding": encoding, "path": path, "found": found, "folder_from": chosen_by})
    try:
        summarizer = services.summarizer.config
        ready = services.summary_key_problem()
        summary = {
            "provider": summarizer.provider,
            "model": summarizer.model,
            "base_url": summarizer.base_url,
            "ready": ready is None,
            "problem": ready,
        }
    except SmigError as error:
        summary = {"provider": None, "model": None, "base_url": None, "ready": False, "problem": str(error)}
    try:
        migrations = len(services.store.list())
    except (SmigError, OSError):
        migrations = 0
    return Diagnosis(
        version=f"{__version__} (Python {sys.version.split()[0]})",
        config_file=str(paths.config_file),
        config=state,
        config_problems=problems,
        data_dir=str(paths.data_dir),
        cache_dir=str(paths.cache_dir),
        agents=reports,
        tokenizer_files=tokenizers,
        summarizer=summary,
        clipboard=clipboard.describe_route(environ, on_terminal=sys.stdout.isatty()),
        migrations=migrations,
        skipped=skipped,
    )
