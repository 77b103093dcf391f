"""Provides what the pure core knows of each agent: rules as data, handed over by the agent plugins.

Every agent is a plugin: its package (`adapters/agents/<agent>/`, or a third-party package found
through the `smig.agents` entry points) exports a profile whose `rules` are an `AgentRules`. The
registry installs those rules here once, so the core looks an agent up by its id (windows,
compaction, providers, usage figures, memory) without importing any agent and without a branch per
agent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from smig_tui.core.memory_model import MemoryRules
    from smig_tui.core.models import AgentWindow, ModelCapacity, Usage

WindowAdjust = Callable[["ModelCapacity", "AgentWindow", Callable[[str], "ModelCapacity | None"]], "AgentWindow"]
"""How the user's own configuration of an agent changes one of its windows: (model, window as shipped,
lookup of a model by name) -> the window the agent really uses."""


def _whole_window(window: int, _auto_compact: int | None) -> int:
    return window


@dataclass(frozen=True, slots=True)
class AgentRules:
    """One agent's rules, as values and small pure functions the core applies."""

    id: str
    """As written on the command line and in records: `codex`, `claude`, …"""
    name: str
    """As its users write it: `Claude Code`, `Gemini CLI`."""
    providers: tuple[str, ...] = ()
    """Model providers whose models this agent is the home of (`openai`): without a destination, a plan
    for such a model takes this agent's overhead off the room."""
    usable: Callable[[int, int | None], int] = _whole_window
    """What a conversation can fill of a window before the agent compacts: (window, the user's own
    compaction limit or None) -> tokens."""
    raises_1m: bool = False
    """Whether a model named `name[1m]` opens this agent's window to its maximum (a 1M variant)."""
    max_window_how: str = ""
    """How a user raises the window to its maximum, as `smig models` says it (`via model_context_window`)."""
    usage_context: Callable[[Usage], int] | None = None
    """The prompt size one logged call had, from its usage figures (None: `input_tokens` holds it all)."""
    choice_rank: int = 100
    """Where it sits among the destinations a user picks from (commit dialog, memory reports): lower
    first, then by id."""
    memory: Callable[[], MemoryRules] | None = None
    """How memory sync reads from and writes to it, loaded when a sync runs (None: it takes no part)."""
    read_only: str = ""
    """Why smig writes no session for it, as one clause (`no writer is proven: …`); '' when it does.
    A read-only agent is listed, searched, planned and exported, but never offered as a destination."""


_INSTALLED: dict[str, AgentRules] = {}


def install(rules: Iterable[AgentRules]) -> None:
    """Make these the agents the core knows, in the registry's order (replaces any before)."""
    _INSTALLED.clear()
    _INSTALLED.update((rule.id, rule) for rule in rules)


def installed() -> tuple[AgentRules, ...]:
    """Every agent's rules, in the registry's order."""
    return tuple(_INSTALLED.values())


def agent_ids() -> tuple[str, ...]:
    """Every agent's id, in the registry's order."""
    return tuple(_INSTALLED)


def rules_of(agent: str) -> AgentRules | None:
    """One agent's rules by its id, or None for an agent that is not installed."""
    return _INSTALLED.get(agent)


def in_choice_order() -> tuple[AgentRules, ...]:
    """The agents in the order a user picks among them (commit dialog, memory sync reports)."""
    return tuple(sorted(_INSTALLED.values(), key=lambda rule: (rule.choice_rank, rule.id)))


def refused_destination(agent: str) -> str:
    """Why an installed agent cannot be a destination, as one sentence; '' when it can (or is not installed)."""
    rules = _INSTALLED.get(agent)
    if rules is None or not rules.read_only:
        return ""
    return f"smig cannot write {rules.name} sessions: {rules.read_only}."


def known_list() -> str:
    """The installed agents' ids as an error message lists them: `claude, codex, gemini, opencode`."""
    return ", ".join(sorted(_INSTALLED))


def usable_window(agent: str, window: int, auto_compact: int | None = None) -> int:
    """What a conversation can fill of `window` inside `agent` before it compacts (all of it for an
    agent that is not installed)."""
    rules = _INSTALLED.get(agent)
    return rules.usable(window, auto_compact) if rules is not None else window


def home_agent_of(provider: str) -> str | None:
    """The agent whose home a provider's models are (`openai` -> the agent naming it), or None."""
    return next((rule.id for rule in _INSTALLED.values() if provider in rule.providers), None)
