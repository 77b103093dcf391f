# smig: compiled with mypyc where it can (setup.py)
"""Provides the second core for reading a huge session: its last part is parsed in another process.

Decoding JSON and converting records is most of opening a 500 MB session, and one Python process
uses one core. So a reader may hand the file's tail (from a line start near the middle) to a worker
process (`workers.Aside`), read the head itself meanwhile, then replay the worker's compact results
in file order, the first ones while the worker still reads the last. The worker runs the reader's own
per-line code, so the Session is the same either way; when a worker cannot start or stops early,
the reader reads the rest of the tail itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from smig_tui.adapters.jsonl import report_progress
from smig_tui.adapters.workers import Aside
from smig_tui.core.models import Kind, Role

SPLIT_BYTES = 64 << 20
"""Files at least this big are read by two processes: below it, starting one costs more than it saves."""
TAIL_SHARE = 0.5
"""Share of the file the worker reads, unless its reader says otherwise. The reader replays the
worker's part as it comes, so the two finish together when the reader's head and replay cost what
the worker's tail costs (it also pays about 0.2 s to start)."""
ONE_PROCESS_ENV = "SMIG_TUI_ONE_PROCESS"
"""Set to 1 to read every session in one process; 0 splits a big file even with one CPU (for tests)."""
_SEARCH_BYTES = 1 << 20

ROLES = tuple(Role)
KINDS = tuple(Kind)
"""Roles and kinds travel between the processes as their index: unpickling an enum member calls its class."""
ROLE_INDEX = {role: index for index, role in enumerate(ROLES)}
KIND_INDEX = {kind: index for index, kind in enumerate(KINDS)}


def second_cpu() -> bool:
    """Tell whether this process may run on two or more CPUs (its affinity mask, not the machine's load).

    The choice used to follow the load average, so the same command took one or two processes by
    what others ran: at a load of 3 a 500 MB open + plan was over its goal. Measured on this 2-CPU
    machine at a load of 5-7, the split takes the same wall time as one process for 15% more CPU,
    and 40% less wall time when a CPU is idle; the choice no longer depends on others' work.
    """
    try:
        return len(os.sched_getaffinity(0)) >= 2
    except (AttributeError, OSError):
        return (os.cpu_count() or 1) >= 2


def split_offset(path: str, size: int, tail_share: float = TAIL_SHARE) -> int | None:
    """The start of the first line at or after `tail_share` from the end of a file worth splitting, else None."""
    choice = os.environ.get(ONE_PROCESS_ENV)
    if size < SPLIT_BYTES or choice == "1" or (choice != "0" and not second_cpu()):
        return None
    position = int(size * (1 - tail_share))
    try:
        with open(path, "rb") as handle:
            handle.seek(position)
            while position < size:
                chunk = handle.read(_SEARCH_BYTES)
                if not chunk:
                    return None
                newline = chunk.find(b"\n")
                if newline >= 0:
                    start = position + newline + 1
                    return start if start < size else None
                position += len(chunk)
    except OSError:
        return None  # the reader's own pass reports it
    return None


Events = list[tuple[Any, ...]]
Resume = tuple[int, int]
"""Where a worker's part ends: the next line's number (counted from 1 at the split) and offset."""


def replay_parts(aside: Aside, split: int, size: int, replay: Callable[[Events], None]) -> Resume | None:
    """Replay the worker's parts (`events, resume`) as they come, moving a progress bar
    (`jsonl.reading_progress`) through its share; return where they stopped short of the end of
    the file (the reader reads on from there), or None when they reached it."""
    resume: Resume | None = (1, split)
    for events, resume in aside.parts():
        replay(events)
        report_progress(size if resume is None else resume[1], size)
    return resume
