"""Provides `no_cyclic_gc`: the cyclic collector paused while a large acyclic structure is built.

Reading a 500 MB session or planning its 140,000 messages makes hundreds of thousands of objects
that all stay alive. With the collector on, every few hundred allocations start a collection, and
the rarer full ones walk every live object, the whole session included, again and again: that
cost more than building the objects. What smig builds there forms no cycles, and what others make
meanwhile is collected once the pause ends.

Pausing is a process-wide switch, so it is thrown here, at the edge (the readers, `Services.plan`),
never inside the pure core.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (nested pauses end with the outermost)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def freeze_for_exit() -> None:
    """Leave everything alive out of the collector's remaining passes (`gc.freeze`), in a process that
    ends with the command that made it: as a pause ends, the next allocations start a pass that walks
    all it made (0.2 s after `smig plan` of a 500 MB Claude Code session), and the interpreter collects
    once more as it exits. Refcounting still frees what is let go; only cycles would stay, until exit."""
    gc.freeze()
