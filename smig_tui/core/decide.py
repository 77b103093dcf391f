"""Provides the fit decision: does a session, at its actual size, fit a target model as it is.

The room for the conversation is `min(window - reserve, prompt_limit)`, where

- `window` is the model's context window;
- `reserve` is room kept for the reply: `min(max_output, RESERVE_CAP)` unless set
  (config `[plan] reserve = N`, CLI `--reserve N`);
- `prompt_limit` is the lowest of the provider's input cap (`max_input`, e.g. GPT-5's 272k of
  400k) and, with `harness=True` (the default, since smig migrates into an agent), the harness's
  usable share `harness_window`: Codex runs at 95% of its `model_context_window`, Claude Code
  auto-compacts about 33k tokens before the window (20k kept for output plus a 13k buffer), Pi
  16,384 before it. That share is the receiving agent's (`capacity.for_agent`: the destination's
  agent when one is named, else the model's home agent), unless the user's config sets it.

When the session goes into an agent (`harness=True`), the receiving agent's fixed overhead (its
system prompt, tool definitions and injected context, measured from the real clients' requests and
carried by each agent's profile, overridable in config `[agents.NAME] overhead = N`) is taken
off that room too (the agent named by the destination, else the one the target's provider
implies): a session that "fits" must still fit once the agent has added its own.

A session fits when its tokens are at most that room. The size of the source model's window
plays no part: only the session's real size does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from smig_tui.core.agent_rules import home_agent_of, known_list, rules_of
from smig_tui.core.capacity import harness_agent
from smig_tui.core.config_schema import table_of
from smig_tui.core.errors import ConfigError
from smig_tui.core.models import Decision, ModelCapacity

RESERVE_CAP = 16_000
"""Default ceiling on the reply reserve: enough for a long answer without wasting the window."""

PARTIAL_NOTE = "Older messages the plan drops are estimated from their length (≈); every kept message is counted."
"""What a plan with guessed counts says (here, not in `replan`, so a front end shows it without importing planning)."""


def default_reserve(capacity: ModelCapacity, cap: int = RESERVE_CAP) -> int:
    """Return the reply reserve for a model: its max output, capped."""
    return max(0, min(capacity.max_output, cap))


def prompt_limit(capacity: ModelCapacity, harness: bool = True) -> int | None:
    """Return the cap on the prompt below the window, or None when there is none."""
    limits = [capacity.max_input] if capacity.max_input else []
    if harness and capacity.harness_window:
        limits.append(capacity.harness_window)
    return min(limits) if limits else None


@dataclass(frozen=True, slots=True)
class AgentOverhead:
    """What a receiving agent adds to every request, and where the figure comes from."""

    agent: str
    tokens: int
    """In o200k tokens as measured (calibrated for the target when used)."""
    source: str
    """`measured with Claude Code 2.1.332` or `config.toml [agents.claude]`."""


def receiving_agent(capacity: ModelCapacity) -> str | None:
    """The agent a session for this model is resumed in: the one whose rules name the model's provider."""
    return home_agent_of(capacity.provider)


def parse_agent_overheads(config: Mapping[str, Any], where: str) -> dict[str, int]:
    """The config's `[agents.<agent>]` `overhead` settings, checked by the config schema, for agents smig has."""
    out: dict[str, int] = {}
    for agent, settings in table_of(config, "agents", where).items():
        if rules_of(agent) is None:
            raise ConfigError(f"{where}: [agents.{agent}] is not an agent (known: {known_list()}).")
        if "overhead" in settings:
            out[agent] = settings["overhead"]
    return out


def decide(
    session_tokens: int,
    capacity: ModelCapacity,
    reserve: int | None = None,
    harness: bool = True,
    exact: bool = True,
    overhead: int = 0,
) -> Decision:
    """Decide whether `session_tokens` fit `capacity` as they are.

    Args:
        session_tokens: The session's size as the target would count it (calibrated).
        capacity: The target model.
        reserve: Tokens kept for the reply; None uses `default_reserve`.
        harness: Apply the target harness's usable share (`harness_window`).
        exact: Whether `session_tokens` is an exact count (carried for labelling).
        overhead: The receiving agent's fixed tokens per request; applied with the harness share only.
    """
    if reserve is None:
        reserve = default_reserve(capacity)
    if reserve < 0:
        raise ConfigError(f"The reserve must be 0 or more tokens, not {reserve}.")
    decision = Decision(
        target=capacity.name,
        session_tokens=session_tokens,
        window=capacity.context_window,
        reserve=reserve,
        fits=False,
        prompt_limit=prompt_limit(capacity, harness),
        harness=harness and capacity.harness_window is not None,
        exact=exact,
        overhead=max(0, overhead) if harness and capacity.harness_window is not None else 0,
        harness_agent=harness_agent(capacity) if harness else None,
    )
    return _with_fit(decision)


def _with_fit(decision: Decision) -> Decision:
    """Fill in `fits` from the decision's own budget."""
    return replace(decision, fits=decision.session_tokens <= decision.budget)


@dataclass(frozen=True, slots=True)
class PlanSettings:
    """The config file's `[plan]` table."""

    reserve: int | None = None
    """Tokens kept for the reply; None uses `default_reserve`."""
    harness: bool = True
    """Apply the target harness's usable share of the window."""
    pin_first_user: bool = False
    """Always keep the first message a person typed."""


def parse_plan_settings(config: Mapping[str, Any], where: str) -> PlanSettings:
    """The `[plan]` table of a config mapping, checked by the config schema; errors name `where` and the key."""
    table = table_of(config, "plan", where)
    return PlanSettings(table.get("reserve"), table.get("harness", True), table.get("pin_first_user", False))
