"""Provides the fit decision: does a session, at its actual size, fit a target model as it is.

The room for the conversation is `min(window - reserve, prompt_limit)`, where

- `window` is the model's context window;
- `reserve` is room kept for the reply: `min(max_output, RESERVE_CAP)` unless set
  (config `[plan] reserve = N`, CLI `--reserve N`);
- `prompt_limit` is the lowest of the provider's input cap (`max_input`, e.g. GPT-5's 272k of
  400k) and, with `harness=True` (the default, since smig migrates into an agent), the harness's
  usable share `harness_window`: Codex runs at 95% of its `model_context_window`, Claude Code
  auto-compacts about 33k tokens before the window (20k kept for output plus a 13k buffer).

When the session goes into an agent (`harness=True`), the receiving agent's fixed overhead (its
system prompt, tool definitions and injected context, measured from the real clients' requests and
shipped in `data/agent_overhead.json`, overridable in config `[agents.NAME] overhead = N`) is taken
off that room too (the agent named by the destination, else the one the target's provider
implies): a session that "fits" must still fit once the agent has added its own.

A session fits when its tokens are at most that room. The size of the source model's window
plays no part: only the session's real size does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

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
    """The agent a session for this model is resumed in: Claude Code for Anthropic, Codex for OpenAI,
    Gemini CLI for Google."""
    return {"anthropic": "claude", "openai": "codex", "google": "gemini"}.get(capacity.provider)


def parse_agent_overheads(config: Mapping[str, Any], where: str) -> dict[str, int]:
    """Validate the config's `[agents.claude]` / `[agents.codex]` `overhead` settings."""
    table = config.get("agents", {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: [agents] must be a table.")
    out: dict[str, int] = {}
    for agent, settings in table.items():
        if agent not in ("claude", "codex", "gemini", "opencode"):
            raise ConfigError(f"{where}: [agents.{agent}] is not an agent (known: claude, codex, gemini, opencode).")
        if not isinstance(settings, Mapping):
            raise ConfigError(f"{where}: [agents.{agent}] must be a table.")
        for key, value in settings.items():
            if key != "overhead":
                raise ConfigError(f"{where}: agents.{agent}.{key} is not a setting (known: overhead).")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(
                    f"{where}: agents.{agent}.overhead must be a whole number of tokens (0 or more), not {value!r}."
                )
            out[agent] = value
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
    """Validate the `[plan]` table of a config mapping; errors name `where` and the key."""
    table = config.get("plan", {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: [plan] must be a table.")
    known = {"reserve", "harness", "pin_first_user"}
    for key in table:
        if key not in known:
            raise ConfigError(f"{where}: plan.{key} is not a setting (known: {', '.join(sorted(known))}).")
    reserve = table.get("reserve")
    if reserve is not None and (isinstance(reserve, bool) or not isinstance(reserve, int) or reserve < 0):
        raise ConfigError(f"{where}: plan.reserve must be a whole number of tokens (0 or more), not {reserve!r}.")
    for key in ("harness", "pin_first_user"):
        if key in table and not isinstance(table[key], bool):
            raise ConfigError(f"{where}: plan.{key} must be true or false, not {table[key]!r}.")
    return PlanSettings(reserve, table.get("harness", True), table.get("pin_first_user", False))
