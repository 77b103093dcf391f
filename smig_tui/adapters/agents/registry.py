"""Provides the agents smig reads and writes: every profile installed in the `smig.agents` entry-point group.

smig declares its own agents there itself (`pyproject.toml`); a third-party package adds one by
declaring its own profile in the same group, with no change to smig. Order matters (the source tree,
listings): the built-in agents in the order below, then the others by id. Loading the registry also
hands each agent's rules to the core (`core/agent_rules.install`).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from smig_tui.adapters.agents.profile import AgentProfile, RowRef
from smig_tui.core import agent_rules

GROUP = "smig.agents"

BUILT_IN = {
    "codex": "smig_tui.adapters.agents.codex:PROFILE",
    "claude": "smig_tui.adapters.agents.claude:PROFILE",
    "gemini": "smig_tui.adapters.agents.gemini:PROFILE",
    "opencode": "smig_tui.adapters.agents.opencode:PROFILE",
    "qwen": "smig_tui.adapters.agents.qwen:PROFILE",
    "kilo": "smig_tui.adapters.agents.kilo:PROFILE",
    "crush": "smig_tui.adapters.agents.crush:PROFILE",
    "copilot": "smig_tui.adapters.agents.copilot:PROFILE",
    "pi": "smig_tui.adapters.agents.pi:PROFILE",
    "aider": "smig_tui.adapters.agents.aider:PROFILE",
}
"""smig's own agents, in their order, as `pyproject.toml` declares them. They always load from here (also
when smig runs from a checkout whose install metadata predates the entry points); another package's
entry point under one of these ids is left out, so no plugin can replace a built-in agent."""

AGENTS: tuple[AgentProfile, ...] = ()
"""Every installed agent, in order (filled by `load`)."""

PROBLEMS: list[str] = []
"""One sentence per entry point that could not be loaded (that agent is left out; smig still runs)."""


def installed_entry_points(group: str = GROUP) -> Iterator[tuple[str, str]]:
    """(name, `module:attribute`) of each entry point in `group`, over the distributions on `sys.path`.

    Reads each `*.dist-info/entry_points.txt` as `importlib.metadata` does (the first distribution of a
    name on the path wins), without importing it: that import alone costs about 15 ms of every start.
    """
    seen: set[str] = set()
    for folder in sys.path:
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            distribution = name.rsplit(".", 1)[0].split("-", 1)[0].lower().replace("_", "-").replace(".", "-")
            if distribution in seen:
                continue
            seen.add(distribution)
            yield from _group_of(os.path.join(folder or ".", name, "entry_points.txt"), group)


def _group_of(path: str, group: str) -> Iterator[tuple[str, str]]:
    """The entry points of one group in one `entry_points.txt` (none when it is absent or broken)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return
    if f"[{group}]" not in text:
        return  # most distributions declare no agent: no parse for them
    import configparser

    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment, method-assign]  # names are case-sensitive
    try:
        parser.read_string(text, source=path)
    except configparser.Error:
        return
    if parser.has_section(group):
        yield from ((name.strip(), value.strip()) for name, value in parser.items(group))


def _resolve(reference: str) -> AgentProfile:
    """The object an entry point's `module:attribute` names, checked to be a profile."""
    module_name, _, attribute = reference.partition(":")
    found: object = importlib.import_module(module_name.strip())
    for part in attribute.strip().split(".") if attribute.strip() else ():
        found = getattr(found, part)
    if not isinstance(found, AgentProfile):
        raise TypeError(f"{reference} is not an AgentProfile")
    return found


def load() -> tuple[AgentProfile, ...]:
    """Find every installed agent, make them `AGENTS`, and hand their rules to the core."""
    global AGENTS
    PROBLEMS.clear()
    others: dict[str, str] = {}
    for name, reference in installed_entry_points():
        if name in BUILT_IN and reference != BUILT_IN[name]:
            PROBLEMS.append(f"The agent plugin {name} ({reference}) takes a built-in agent's id: left out.")
        elif name not in BUILT_IN:
            others.setdefault(name, reference)
    profiles: dict[str, AgentProfile] = {}
    for name, reference in [*BUILT_IN.items(), *sorted(others.items())]:
        try:
            profile = _resolve(reference)
        except Exception as error:  # a broken plugin leaves its agent out, never smig
            PROBLEMS.append(f"The agent plugin {name} ({reference}) could not be loaded: {error}.")
            continue
        if profile.id != name:
            PROBLEMS.append(f"The agent plugin {name} ({reference}) declares the id {profile.id!r}: left out.")
            continue
        profiles[name] = profile
    AGENTS = tuple(profiles.values())
    use(AGENTS)
    return AGENTS


def use(profiles: tuple[AgentProfile, ...]) -> None:
    """Make `profiles` the agents (tests swap the registry this way), their rules the core's."""
    global AGENTS
    AGENTS = profiles
    agent_rules.install(profile.rules for profile in profiles)


def profile_of(agent: str) -> AgentProfile | None:
    """One agent's profile by its id, or None for an agent that is not installed."""
    return next((profile for profile in AGENTS if profile.id == agent), None)


def row_ref(path: str) -> RowRef | None:
    """The database and session a `<database>#<id>` path names, for an agent that keeps sessions as rows."""
    for profile in sorted(AGENTS, key=lambda profile: not profile.holds(path, None)):  # the database's owner first
        if profile.refs is not None and (split := profile.refs.split(path)) is not None:
            return RowRef(profile.refs, Path(split[0]), split[1])
    return None


load()
