"""Provides the I/O of memory sync: reading every agent's memory (each through its plugin) and applying a MemoryPlan.

Reads are read-only; the only files written are the bundles smig owns (marker-checked again under
the lock), one appended line in each agent's own index or global instructions, and smig's own state
file. Retiring an earlier sync's bundle deletes only that marker-checked file and takes only smig's
line out of the file that listed it.
Every write is atomic and re-checked against the text the plan was made from.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from smig_tui.adapters.agents import registry
from smig_tui.adapters.agents.profile import AgentProfile
from smig_tui.adapters.fs import atomic_write, file_lock
from smig_tui.adapters.memory_files import MemoryContext, read_text
from smig_tui.adapters.paths import Paths
from smig_tui.core.errors import SmigError
from smig_tui.core.memory_sync import Action, MemoryInputs, MemoryPlan, MemoryState, PlannedWrite, is_owned


@dataclass(frozen=True, slots=True)
class ApplyResult:
    """What applying a plan did."""

    written: tuple[PlannedWrite, ...] = ()
    skipped: tuple[str, ...] = ()
    """One sentence per planned write that was not made (the file changed since planning)."""
    state_written: bool = False


@dataclass
class MemoryStore:
    """Reads every agent's memory (through its plugin) and applies plans, under smig's memory lock."""

    paths: Paths
    home: Path = field(default_factory=lambda: Path(os.environ.get("HOME") or Path.home()))
    agents: tuple[AgentProfile, ...] = field(default_factory=lambda: registry.AGENTS)
    """The agents taking part (the registry's)."""
    env: Mapping[str, str] | None = None
    """The environment the agents' homes come from (None: this process's)."""

    @property
    def state_dir(self) -> Path:
        """Where smig keeps memory-sync state and its lock."""
        return self.paths.data_dir / "memory"

    @property
    def state_file(self) -> Path:
        """Hashes of what smig wrote and obstructions it reported."""
        return self.state_dir / "state.json"

    def read_inputs(self, project: str | None = None) -> MemoryInputs:
        """Read everything the planner needs, each agent's side by its own plugin; nothing is written."""
        context = MemoryContext(os.environ if self.env is None else self.env, self.home, project)
        memories = {entry.id: entry.memory(context) for entry in self.agents if entry.memory is not None}
        paths = [path for memory in memories.values() for path in (memory.bundle, memory.pointer, *memory.also_read)]
        return MemoryInputs(
            memories=memories,
            current={path: read_text(Path(path)) for path in paths if path},
            state=self.read_state(),
        )

    def read_state(self) -> MemoryState:
        """The state of the last run (empty when there is none)."""
        text = read_text(self.state_file)
        return MemoryState.from_json(text) if text is not None else MemoryState()

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold smig's memory-sync lock; a second run gets LockedError at once."""
        with file_lock(self.state_dir / "lock", what="memory sync"):
            yield

    def apply(self, plan: MemoryPlan) -> ApplyResult:
        """Make the plan's writes under the lock, each re-checked against its planned-from text."""
        with self.locked():
            written: list[PlannedWrite] = []
            skipped: list[str] = []
            for write in plan.writes:
                problem = self._check_unchanged(write)
                if problem:
                    skipped.append(problem)
                    continue
                self._write(write)
                written.append(write)
            state_written = False
            if plan.state_changed and not skipped:
                atomic_write(self.state_file, plan.state_after.to_json())
                state_written = True
            return ApplyResult(tuple(written), tuple(skipped), state_written)

    def _check_unchanged(self, write: PlannedWrite) -> str:
        """Say why a planned write must not go ahead ('' when the file is as planned)."""
        current = read_text(Path(write.path))
        if current != write.before:
            return f"Skipped {write.path}: it changed since the plan was made; run the sync again."
        if write.action in (Action.UPDATE, Action.DELETE) and current is not None and not is_owned(current):
            return f"Skipped {write.path}: it lost smig's generated-by marker, so it is left alone."
        return ""

    def _write(self, write: PlannedWrite) -> None:
        """Write one planned file atomically, keeping an existing file's permissions."""
        if write.action is Action.DELETE:
            _delete_owned(Path(write.path))
            return
        # Replace the file a symlink points at, so a MEMORY.md kept in a dotfiles repo stays linked.
        path = Path(os.path.realpath(write.path))
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o600 if write.owned else 0o644
        try:
            # A file that was absent at planning time is created without clobbering a newcomer.
            atomic_write(path, write.after, mode=mode, overwrite=write.before is not None)
        except OSError as error:
            raise SmigError(f"Cannot write {path}: {error.strerror or error}.") from error


def _delete_owned(path: Path) -> None:
    """Remove a bundle smig owns; anything but a regular file (a link, a folder) is left alone."""
    if path.is_symlink() or not path.is_file():
        raise SmigError(f"Not removing {path}: it is not a regular file.")
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError as error:
        raise SmigError(f"Cannot remove {path}: {error.strerror or error}.") from error
