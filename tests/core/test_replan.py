"""Count-then-replan in core: kept messages end up counted exactly, with no more counted than that needs."""

from __future__ import annotations

from collections.abc import Container, Sequence

from plan_helpers import Builder, WordCounter, capacity, measure, words

from smig_tui.core.models import Session, Strategy
from smig_tui.core.plan_structure import analyse
from smig_tui.core.replan import PARTIAL_NOTE, PLAN_ROUNDS, PlanInputs, counting_need, plan_counting_kept
from smig_tui.core.tokens import count_messages, count_newest, estimate


def _session(n: int) -> Session:
    builder = Builder()
    for i in range(n):
        (builder.user if i % 2 == 0 else builder.assistant)(f"m{i} " + words(49))
    return builder.session()


def _inputs(session: Session, window: int, strategy: Strategy = Strategy.TRUNCATE) -> PlanInputs:
    return PlanInputs(
        session,
        capacity(window),
        strategy,
        reserve=0,
        harness=False,
        exact=True,
        overhead=0,
        pins=frozenset(),
        pin_first_user=False,
        summary=None,
        summary_budget=None,
        shape=analyse(session),
    )


class LazyCounts:
    """Exact word counts made only when asked for, as `Services.count_newest` makes them."""

    def __init__(self, session: Session) -> None:
        self.messages = session.messages
        self.known: list[int | None] = [None] * len(self.messages)
        self.counted = 0

    def __call__(self, need: float, indices: Sequence[int], skip: Container[int]) -> tuple[list[int], set[int]]:
        counter = WordCounter()

        def count(batch: list[int]) -> list[int]:
            self.counted += len(batch)
            return count_messages([self.messages[i] for i in batch], counter)

        count_newest(self.messages, self.known, need, count, skip)
        extra = [i for i in indices if self.known[i] is None]
        for i, n in zip(extra, count(extra) if extra else [], strict=True):
            self.known[i] = n
        guessed = {i for i, n in enumerate(self.known) if n is None}
        return [estimate(m) if n is None else n for m, n in zip(self.messages, self.known, strict=True)], guessed


def test_a_plan_that_drops_most_counts_only_what_it_keeps() -> None:
    session = _session(2_000)
    inputs = _inputs(session, window=3_000)
    counts = LazyCounts(session)
    plan = plan_counting_kept(inputs, counts, measure, counting_need(inputs))
    kept = [i for i, item in enumerate(plan.items) if item.kept]
    assert kept and all(counts.known[i] is not None for i in kept)
    assert counts.counted < 200  # of 2,000 messages
    assert plan.decision.partial and PARTIAL_NOTE in plan.notes and plan.tokens_after <= plan.decision.budget


def test_a_session_that_fits_ends_up_counted_whole_and_says_nothing_of_guesses() -> None:
    session = _session(40)
    inputs = _inputs(session, window=1_000_000)
    counts = LazyCounts(session)
    plan = plan_counting_kept(inputs, counts, measure, counting_need(inputs))
    assert plan.decision.fits and not plan.decision.partial and PARTIAL_NOTE not in plan.notes
    assert None not in counts.known


def test_a_plan_whose_guesses_never_settle_counts_everything_in_the_last_round() -> None:
    session = _session(300)
    inputs = _inputs(session, window=3_000)
    asked: list[float] = []

    def stubborn(need: float, indices: Sequence[int], skip: Container[int]) -> tuple[list[int], set[int]]:
        asked.append(need)  # counts nothing until it must: every message stays a guess
        everything = need == float("inf")
        return [estimate(m) for m in session.messages], set() if everything else set(range(len(session.messages)))

    plan = plan_counting_kept(inputs, stubborn, measure, counting_need(inputs))
    assert len(asked) == PLAN_ROUNDS and asked[-1] == float("inf") and set(asked[:-1]) == {counting_need(inputs)}
    assert PARTIAL_NOTE not in plan.notes
