"""Where a test wants long texts packed in memory, or to see the spill files (or any files) a reader opened.

The spill is blocked the way a user's machine would block it, a file where smig's cache folder goes, not
by replacing `TextSpill.create`: the compiled readers (setup.py) call the class's own method.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from smig_tui.adapters.paths import resolve_paths


def block_the_spill() -> None:
    """Make a spill impossible from now on in this test: `TextSpill.create` finds no cache folder."""
    cache = resolve_paths().cache_dir
    if cache.is_dir():
        os.rename(cache, cache.with_name(cache.name + "-moved"))
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("in the way")


def open_files(matches: Callable[[str], bool]) -> int:
    """How many files this process holds open whose path `matches` (Linux's /proc/self/fd)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += matches(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            continue  # the listing's own descriptor, closed since
    return count


def open_spills() -> int:
    """How many files in smig's cache folder this process holds open (a spill has no name, only a fd)."""
    cache = str(resolve_paths().cache_dir)
    return open_files(lambda path: path.startswith(cache + os.sep))
