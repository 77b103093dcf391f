"""Provides the sessions feature: list every agent's sessions, find one by id, prefix or path, read it."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from smig_tui.core.errors import AmbiguousIdError, Hint, SessionNotFoundError, SmigError
from smig_tui.core.models import Agent, Session, SessionInfo
from smig_tui.core.ports import CachedIds, DirectLister, SessionSource, WarningSink
from smig_tui.services.base import ServicesBase
from smig_tui.services.base import ignore as _ignore


class Sessions(ServicesBase):
    """Every agent's sessions, through the readers `build_services` wired (archived ones included)."""

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

    def list_sessions(self, branch: str | None = None, **filters: Any) -> list[SessionInfo]:
        """Return all matching sessions, newest first; `branch` keeps those last on that git branch (as
        their agent recorded it: `smig list --branch`, MCP's `list_sessions(branch=…)`)."""
        sessions = [
            self._with_cached_counts(info)
            for info in self.iter_sessions(**filters)
            if branch is None or info.git_branch == branch
        ]
        sessions.sort(key=lambda info: info.updated or "", reverse=True)
        return sessions

    def _with_cached_counts(self, info: SessionInfo) -> SessionInfo:
        """Fill in message count and token count from the token cache, when it has them."""
        stats = self.token_cache.cached_stats(info)
        if stats is None:
            return info

        return replace(
            info,
            message_count=info.message_count if info.message_count is not None else stats[0],
            counted_tokens=stats[1],
        )

    def find_session(self, ref: str, warn: WarningSink = _ignore) -> SessionInfo:
        """Resolve a session id, unique id prefix, or path to a session file."""
        missing: str | None = None
        # a session kept as database rows: its path is `<database>#<id>`; the agent whose home that database
        # is comes first, so a session missing from it is named as that agent's
        for entry in sorted(self.agents, key=lambda entry: not entry.holds(ref, self.env)):
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


def _with_prefix(infos: Iterable[SessionInfo], prefix: str) -> list[SessionInfo]:
    """The sessions whose id starts with `prefix` (an exact id included)."""
    return [info for info in infos if info.id.startswith(prefix)]


def _folder_filter(cwd: str) -> str:
    """The real path of a folder to list sessions under, `~` expanded; a NUL is one sentence."""
    if "\x00" in cwd:
        raise SmigError("The folder to list sessions under contains a NUL character, which no path can hold.")
    return os.path.realpath(os.path.expanduser(cwd))


def _same_or_below(path: str | None, root: str) -> bool:
    """Tell whether `path` is `root` or inside it."""
    if not path:
        return False
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _every_id(source: SessionSource) -> list[str]:
    """The ids of another agent's sessions, for unique prefixes: from its listing cache when it keeps one
    (a JSON read), else from a listing whose warnings belong to that agent's own listing."""
    cached = source.cached_ids() if isinstance(source, CachedIds) else None
    return cached if cached is not None else [info.id for info in source.discover(_ignore)]
