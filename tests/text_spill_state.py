"""Where a test wants long texts packed in memory, or to see the spill files a reader opened.

The spill is blocked the way a user's machine would block it, a file where smig's cache folder goes, not
by replacing `TextSpill.create`: the compiled readers (setup.py) call the class's own method.
"""

from __future__ import annotations

import os

from smig_tui.adapters.paths import resolve_paths


def block_the_spill() -> None:
    """Make a spill impossible from now on in this test: `TextSpill.create` finds no cache folder."""
    cache = resolve_paths().cache_dir
    if cache.is_dir():
        os.rename(cache, cache.with_name(cache.name + "-moved"))
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("in the way")


def open_spills() -> int:
    """How many files in smig's cache folder this process holds open (a spill has no name, only a fd)."""
    cache = str(resolve_paths().cache_dir)
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}").startswith(cache + os.sep)
        except OSError:
            continue  # the listing's own descriptor, closed since
    return count
