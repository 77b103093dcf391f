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
def no_cyclic_gc(*, kept: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (nested pauses end with the outermost).

    `kept`: what the block made stays alive until the process ends (a CLI command's session, held by
    its services' caches), so when the pause ends it joins the oldest generation in one step
    (`gc.freeze` then `gc.unfreeze`) instead of being walked by the collection the next allocation
    starts: 0.2-0.4 s of a 500 MB session's `smig migrate`. Only for a process that then ends: one
    that pauses again and again (the TUI) paid far more for the promotions than it saved.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if kept and gc.get_freeze_count() == 0:  # else someone froze objects on purpose: leave them so
                gc.freeze()
                gc.unfreeze()
            gc.enable()
