"""Provides the plan feature: decide whether a session fits a target model and plan its migration."""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from smig_tui.adapters.gc_pause import no_cyclic_gc
from smig_tui.core.memo import IdentityMemo
from smig_tui.services.models import Models

if TYPE_CHECKING:
    from smig_tui.core.models import Message, ModelCapacity, Plan, Session, Strategy
    from smig_tui.core.plan_structure import Structure


@dataclass
class Planning(Models):
    """One call every front end plans with: counts, the target's window, the receiving agent's overhead."""

    _shapes: IdentityMemo[Session, Structure] = field(
        default_factory=lambda: IdentityMemo(4), init=False, repr=False, compare=False
    )
    """Each session's plan structure (tool pairs, injected context), only the sessions in use."""

    def forget_released(self) -> None:
        """Drop what the memos keep of sessions no caller holds any more: plans' first, as a session
        holds the messages the counts are kept by."""
        self._shapes.drop_released()
        self._counted.drop_released()

    def plan(
        self,
        session: Session,
        target: str,
        strategy: Strategy | str = "truncate",
        pins: Iterable[str] = (),
        reserve: int | None = None,
        summary: str | None = None,
        pin_first_user: bool | None = None,
        harness: bool | None = None,
        summary_budget: int | None = None,
        agent: str | None = None,
    ) -> Plan:
        """Decide whether `session` fits `target` and plan its migration (the one call every front end uses).

        `agent` names the receiving agent when the destination is known (`--to pi`), so its own usable
        window (its compaction rule, the user's settings of it) and overhead make the room; without it the
        window is the model's home agent's and the overhead that of the agent the target's provider implies.
        """
        from smig_tui.core.capacity import counted_exactly, retired_warning
        from smig_tui.core.decide import parse_plan_settings
        from smig_tui.core.models import Strategy as StrategyEnum
        from smig_tui.core.replan import PlanInputs, counting_need, plan_counting_kept

        settings = parse_plan_settings(self.config, str(self.paths.config_file))
        capacity = self.capacity_for(self.capacities.lookup(target), agent)
        harness = settings.harness if harness is None else harness
        inputs = PlanInputs(
            session,
            capacity,
            StrategyEnum(strategy),
            settings.reserve if reserve is None else reserve,
            harness,
            exact=self.counter_for(capacity).exact and counted_exactly(capacity),
            overhead=self.overhead_tokens(capacity, agent, session.info.cwd) if harness else 0,
            pins=frozenset(pins),
            pin_first_user=settings.pin_first_user if pin_first_user is None else pin_first_user,
            summary=summary,
            summary_budget=summary_budget,
            shape=self._shapes.get(session, lambda: _analysed(session)),
        )
        need = counting_need(inputs)
        capacity, own_note = self._own_calibration(session, capacity, need)
        inputs = replace(inputs, capacity=capacity)

        def count(need: float, indices: Sequence[int], skip: Container[int]) -> tuple[list[int], AbstractSet[int]]:
            return self.count_newest(session, capacity, need, indices, skip)

        with no_cyclic_gc():  # an item per message: the collector would walk the whole session many times over
            plan = plan_counting_kept(inputs, count, self.measure_for(capacity), need)
        self.measured_counts.save()  # the counts of its own texts, for the next process
        retired = retired_warning(capacity)
        if retired:
            plan = replace(plan, notes=(retired, *plan.notes))
        if own_note:
            plan = replace(plan, notes=(*plan.notes, own_note))
        return plan

    def _own_calibration(
        self, session: Session, capacity: ModelCapacity, need: float
    ) -> tuple[ModelCapacity, str | None]:
        """Measure the session's logged prompt growth against smig's count over the tail the plan counts anyway.

        The ratio replaces the target's calibration when the target shares the session model's
        tokenizer family and is not counted exactly: then it is a measurement of this very text by
        that tokenizer, where the family factor is an average over other sessions.
        """
        from smig_tui.core.calibration import measure_growth, own_calibration_note
        from smig_tui.core.capacity import counted_exactly

        source = self.capacities.get(session.info.model) if session.info.model else None
        if source is None:
            return capacity, None
        raw = replace(capacity, calibration=1.0, class_calibration=())  # the encoding's own count
        version, counts, guessed = self._counted_view(session, raw, need / capacity.calibration)
        state = self._counted_state(session, self.counter_for(raw))
        if state.growth is None or state.growth[0] != version:  # a walk over every message's usage
            state.growth = version, measure_growth(session, counts, guessed)
        growth = state.growth[1]
        note = own_calibration_note(growth, session.info.agent, source, capacity)
        used = source.tokenizer == capacity.tokenizer and not counted_exactly(capacity)
        if used and growth.ratio is not None:
            capacity = replace(
                capacity,
                calibration=round(growth.ratio, 3),
                calibration_source=f"session {session.id}'s logged usage",
                calibration_error=None,
                class_calibration=(),  # measured on this very text, whatever its classes
            )
        return capacity, note


def _analysed(session: Session) -> Structure:
    """`plan_structure.analyse` with the cyclic collector paused (a list per unit of a whole session)."""
    from smig_tui.core.plan_structure import analyse

    with no_cyclic_gc():
        return analyse(session)


def migrated_messages(plan: Plan) -> tuple[Message, ...]:
    """The migrated conversation of a plan: the note or summary first, then what is kept."""
    from smig_tui.core.plans import result_messages

    return result_messages(plan)
