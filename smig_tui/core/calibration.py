"""Provides a session's own calibration: how its agent's logged prompt sizes compare with smig's count.

Each model call logs the size of the prompt it was sent. Between two calls the prompt grows by
exactly the messages that came in between (the reply, tool results, the next user message), so

    ratio = sum of logged growth / sum of smig's count of those messages

compares the provider's tokenizer with the encoding smig counts in, on this very conversation and
free of the system prompt and tool schemas the agent adds (they are in both prompts and cancel
out). A stretch is skipped when the prompt shrank (a compaction), when it holds reasoning (Claude
drops old thinking from the prompt, so it would count on one side only), or when smig has only
guessed one of its messages.

When the target counts with the same tokenizer family as the session's own model, this ratio is
a measurement where the family's factor is an average, so the plan uses it; otherwise it is shown
and not used (another tokenizer counts the same text differently).
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass

from smig_tui.core.agent_rules import rules_of
from smig_tui.core.capacity import counted_exactly
from smig_tui.core.models import Agent, Kind, Message, ModelCapacity, Session
from smig_tui.core.tokens import usage_context

MIN_COUNTED = 5_000
"""Counted tokens the measured stretches must reach before a session's ratio is trusted."""
PLAUSIBLE = (0.5, 3.0)
"""A ratio outside this range means the stretches are not what they seem (e.g. messages smig does not read)."""


@dataclass(frozen=True, slots=True)
class Growth:
    """Logged prompt growth against smig's count of the same messages, for one session."""

    logged: int
    counted: int
    stretches: int

    @property
    def ratio(self) -> float | None:
        """Logged over counted, or None when too little was measured to trust."""
        if self.counted < MIN_COUNTED or self.logged <= 0:
            return None
        ratio = self.logged / self.counted
        return ratio if PLAUSIBLE[0] <= ratio <= PLAUSIBLE[1] else None


def measure_growth(session: Session, counts: Sequence[int], guessed: Container[int] = ()) -> Growth:
    """Compare each logged prompt's growth with smig's counts (framed, uncalibrated) of what came between."""
    calls = _calls(session.messages, session.info.agent)
    logged = counted = stretches = 0
    for (start, prompt), (end, next_prompt) in zip(calls, calls[1:], strict=False):
        growth = next_prompt - prompt
        between = range(start, end)
        if growth <= 0 or any(session.messages[i].kind is Kind.REASONING or i in guessed for i in between):
            continue
        logged += growth
        counted += sum(counts[i] for i in between)
        stretches += 1
    return Growth(logged, counted, stretches)


def _calls(messages: Sequence[Message], agent: Agent) -> list[tuple[int, int]]:
    """Return (first message index, logged prompt size) of each model call, once per call."""
    calls: list[tuple[int, int]] = []
    last_usage = None
    for message in messages:
        usage = message.usage
        if usage is None or usage == last_usage:
            continue  # Claude logs one record per content block, each with the call's usage
        last_usage = usage
        calls.append((message.index, usage_context(usage, agent)))
    return calls


def own_calibration_note(growth: Growth, agent: Agent, source: ModelCapacity, target: ModelCapacity) -> str | None:
    """Return the line that shows both figures, the ratio, and whether the plan uses it (None: not measured)."""
    ratio = growth.ratio
    if ratio is None:
        return None
    who = rules.name if (rules := rules_of(agent)) is not None else agent
    shown = (
        f"{who} logged {growth.logged:,} tokens of prompt growth across {growth.stretches} turns where smig "
        f"counts {growth.counted:,}: ratio {ratio:.2f} for this session"
    )
    if source.tokenizer != target.tokenizer:
        return f"{shown}; not used for {target.name}, which has another tokenizer ({target.tokenizer or 'unknown'})."
    if counted_exactly(target):
        return f"{shown}; not needed for {target.name}, which smig counts exactly."
    return (
        f"{shown}; the plan counts with it (same {target.tokenizer} tokenizer), "
        f"not the family's {target.calibration:g}."
    )
