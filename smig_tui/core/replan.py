"""Provides count-then-replan: a plan that counts exactly only the messages it keeps, re-planned until it does.

Counting a 15,000-message session exactly takes seconds, and a plan that drops most of it needs only
the tail it keeps. So the counts start exact from the newest message back to a little past the budget,
older ones keep a length guess, and the plan is made; if it keeps a message whose count is still a
guess, those (and some older ones) are counted and the plan made again. Pure: the caller passes how
to count, so the token cache and the tokenizer stay in the adapters.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

from smig_tui.core.decide import PARTIAL_NOTE as PARTIAL_NOTE  # said where a plan is made
from smig_tui.core.decide import decide
from smig_tui.core.models import ModelCapacity, Plan, Session, Strategy, kept_indices
from smig_tui.core.plan_structure import Structure
from smig_tui.core.plans import Measure, make_plan, migratable_tokens

COUNT_MARGIN = 0.1
"""Count exactly this share past the budget, so a re-plan that keeps a little more rarely counts again."""
PLAN_ROUNDS = 6
"""Plans tried while kept messages still hold guesses; the last one counts the whole session."""

CountNewest = Callable[[float, Sequence[int], Container[int]], tuple[list[int], AbstractSet[int]]]
"""`(need, indices, skip) -> (counts, guessed)`: count exactly from the newest message back until the
migratable tail passes `need`, plus `indices`; the rest are guesses, whose indices come back in `guessed`."""


@dataclass(frozen=True, slots=True)
class PlanInputs:
    """Everything a plan is made from besides the counts."""

    session: Session
    capacity: ModelCapacity
    strategy: Strategy
    reserve: int | None
    harness: bool
    exact: bool
    """The target's counts are exact (its own tokenizer, no calibration factor)."""
    overhead: int
    """What the receiving agent adds to every request, in the target's tokens."""
    pins: frozenset[str]
    pin_first_user: bool
    summary: str | None
    summary_budget: int | None
    shape: Structure


def counting_need(inputs: PlanInputs) -> float:
    """How many migratable tokens to count exactly at first: the budget and a margin past it."""
    budget = decide(0, inputs.capacity, inputs.reserve, inputs.harness, overhead=inputs.overhead).budget
    return budget * (1 + COUNT_MARGIN)


def plan_counting_kept(inputs: PlanInputs, count: CountNewest, measure: Measure, need: float) -> Plan:
    """Plan with exact counts for every kept message, counting no more than that needs (see the module)."""
    session, shape = inputs.session, inputs.shape
    wanted: list[int] = []
    for attempt in range(PLAN_ROUNDS):
        if attempt == PLAN_ROUNDS - 1:
            need = float("inf")  # the kept set keeps moving: count everything and settle it
        counts, guessed = count(need, wanted, shape.skip)
        decision = decide(
            migratable_tokens(session, counts, shape),
            inputs.capacity,
            inputs.reserve,
            inputs.harness,
            inputs.exact,
            inputs.overhead,
        )
        if guessed:
            decision = replace(decision, partial=True)
        plan = make_plan(
            session,
            counts,
            decision,
            inputs.strategy,
            measure,
            inputs.pins,
            inputs.pin_first_user,
            inputs.summary,
            inputs.summary_budget,
            shape,
        )
        # Kept messages need exact counts, so tokens_after <= budget is exact; shortened ones are measured.
        wanted = [i for i in kept_indices(plan.items) if i in guessed and plan.items[i].text is None]
        if not wanted:
            break
        wanted += older_guessed(guessed, shape.skip, min(wanted), 4 * len(wanted))
    if guessed:
        plan = replace(plan, notes=(*plan.notes, PARTIAL_NOTE))
    return plan


def older_guessed(guessed: AbstractSet[int], skip: Container[int], before: int, count: int) -> list[int]:
    """Up to `count` still-guessed messages just older than `before`, counted along with the kept ones.

    A plan that shortens tool outputs (tools-first) keeps messages further back each time its guesses
    become counts, about half as many again per round. Counting four times as many past them settled
    a 15,000-message session in two rounds (2,640 messages counted) where the old last round counted
    all of them.
    """
    older: list[int] = []
    for i in range(before - 1, -1, -1):
        if len(older) == count:
            break
        if i in guessed and i not in skip:
            older.append(i)
    return older
