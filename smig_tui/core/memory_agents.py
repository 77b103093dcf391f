"""Provides the agents memory sync knows: every installed agent whose rules take part, as the front ends list them.

CLI flags, the TUI's tables and MCP loop over `memory_agents()`; the planner applies each agent's
`MemoryRules` (`core/memory_model.py`), carried by its plugin.
"""

from __future__ import annotations

from dataclasses import dataclass

from smig_tui.core.agent_rules import in_choice_order, rules_of
from smig_tui.core.memory_model import Direction, MemoryRules


@dataclass(frozen=True, slots=True)
class MemoryAgent:
    """One agent as memory sync sees it."""

    agent: str
    """The `Agent` value."""
    label: str
    direction: Direction
    """The direction that writes this agent's bundle."""

    @property
    def memory_kind(self) -> str:
        """What smig reads from this agent, for the empty-memory note ("No …")."""
        return memory_rules(self.agent).memory_kind


def memory_agents() -> tuple[MemoryAgent, ...]:
    """Every agent memory sync reads from and writes to, in the order reports keep."""
    return tuple(
        MemoryAgent(rules.id, rules.name, Direction.to(rules.id))
        for rules in in_choice_order()
        if rules.memory is not None
    )


def all_directions() -> tuple[Direction, ...]:
    """Every direction, in the order reports keep."""
    return tuple(entry.direction for entry in memory_agents())


def memory_agent(key: str) -> MemoryAgent:
    """The entry of an agent, by its `Agent` value or by the direction that writes to it."""
    for entry in memory_agents():
        if key in (entry.agent, entry.direction):
            return entry
    raise KeyError(key)


def takes_part(agent: str) -> bool:
    """Whether an agent takes part in memory sync (its rules say how)."""
    rules = rules_of(agent)
    return rules is not None and rules.memory is not None


def memory_rules(key: str) -> MemoryRules:
    """An agent's memory rules, by its id or its direction (KeyError for one that takes no part)."""
    rules = rules_of(key.removeprefix("to-") if key.startswith("to-") else key)
    if rules is None or rules.memory is None:
        raise KeyError(key)
    return rules.memory()
