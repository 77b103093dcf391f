"""Provides the installed agents to the front ends, light enough for choices built before any service.

The registry (`adapters/agents/registry.py`) finds every agent plugin through the `smig.agents` entry
points and hands the core their rules; the CLI's choices, the MCP schemas and the TUI's dialogs read
the agents from here, so a new agent appears in all of them with no change to smig.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from smig_tui.adapters.agents.profile import AgentProfile
    from smig_tui.core.memory_agents import MemoryAgent
    from smig_tui.core.memory_model import Direction
    from smig_tui.core.native import Destination


def agent_profiles() -> tuple[AgentProfile, ...]:
    """Every installed agent's profile, in the registry's order."""
    from smig_tui.adapters.agents import registry

    return registry.AGENTS


def profile_of(agent: str) -> AgentProfile | None:
    """One agent's profile by its id (an `Agent` is one), or None for an agent that is not installed."""
    return next((entry for entry in agent_profiles() if entry.id == agent), None)


def agent_choices() -> list[str]:
    """Every agent's id in the order a user picks among them (destinations, the agent a plan is for)."""
    from smig_tui.core.agent_rules import in_choice_order

    agent_profiles()  # loads the registry, which hands the core its agents
    return [rules.id for rules in in_choice_order()]


def destination_agents() -> list[str]:
    """Every agent smig can write a session for (a read-only agent is none), in the order a user picks."""
    from smig_tui.core.native import native_destinations

    agent_profiles()
    return [destination.value for destination in native_destinations()]


def destination_choices() -> tuple[Destination, ...]:
    """Every destination of a migration: smig's store, each installed agent, the exports."""
    from smig_tui.core.native import destinations

    agent_profiles()
    return destinations()


def agent_names(last: str = "and") -> str:
    """The installed agents as users write them: `Codex, Claude Code, Gemini CLI and OpenCode`."""
    from smig_tui.core.words import name_list

    return name_list([entry.name for entry in agent_profiles()], last)


def memory_agent_names(last: str = "and") -> str:
    """The agents that take part in memory sync as users write them (`memory_agents()`'s labels, read from
    their rules: the TUI's key help names them at start-up, before memory sync's own modules are needed)."""
    from smig_tui.core.agent_rules import in_choice_order
    from smig_tui.core.words import name_list

    agent_profiles()
    return name_list([rules.name for rules in in_choice_order() if rules.memory is not None], last)


def memory_agents() -> tuple[MemoryAgent, ...]:
    """Every installed agent that takes part in memory sync, in the order reports keep."""
    from smig_tui.core.memory_agents import memory_agents as installed

    agent_profiles()
    return installed()


def memory_directions() -> tuple[Direction, ...]:
    """Every direction of memory sync (one per agent that takes part), in the order reports keep."""
    from smig_tui.core.memory_agents import all_directions

    agent_profiles()
    return all_directions()
