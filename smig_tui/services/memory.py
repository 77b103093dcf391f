"""Provides the memory feature: plan and apply a sync of the agents' long-term memory notes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smig_tui.services.base import ServicesBase

if TYPE_CHECKING:
    from smig_tui.adapters.memory_store import ApplyResult, MemoryStore
    from smig_tui.core.memory_sync import Direction, MemoryPlan, Mode


class Memory(ServicesBase):
    """The agents' memory files, read and written through `MemoryStore` (locked, verified)."""

    def memory_store(self) -> MemoryStore:
        """The reader and writer of the agents' long-term memory."""
        from smig_tui.adapters.memory_store import MemoryStore

        return MemoryStore(self.paths, agents=self.agents, env=self.env)

    def memory_plan(
        self,
        directions: tuple[Direction, ...] | None = None,
        mode: Mode | None = None,
        project: str | None = None,
        budget: int | None = None,
    ) -> MemoryPlan:
        """Plan a memory sync among the agents set up here (every direction, auto mode by default); writes nothing."""
        from smig_tui.core.memory_sync import Mode, plan_memory_sync

        inputs = self.memory_store().read_inputs(project)
        return plan_memory_sync(inputs, directions or None, mode or Mode.AUTO, budget)

    def memory_apply(self, plan: MemoryPlan) -> ApplyResult:
        """Make a planned memory sync's writes, under the memory lock (LockedError if held)."""
        return self.memory_store().apply(plan)
