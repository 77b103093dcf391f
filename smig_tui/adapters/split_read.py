"""Provides the second core for reading a huge session: its last part is parsed in another process.

Decoding JSON and converting records is most of opening a 500 MB session, and one Python process
uses one core. So a reader may hand the file's tail (from a line start near the middle) to a
spawned worker, read the head itself meanwhile, then replay the worker's compact results in file
order, the first ones while the worker still reads the last. The worker runs the reader's own
per-line code, so the Session is the same either way; when a worker cannot start or stops early,
the reader reads the rest of the tail itself.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from smig_tui.adapters.jsonl import report_progress
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


class Aside:
    """A generator function running in another Python process, its parts read back as it makes them.

    A plain subprocess rather than `multiprocessing`: spawning re-runs the caller's `__main__`,
    which a script using smig as a library may not guard; this worker imports only the function's
    module. Its stderr is dropped, so nothing it prints reaches a terminal, the TUI or MCP's stdio.
    The worker pickles each part as it is made and a thread of its own sends it, so the caller can
    replay the first parts while the worker reads on; the caller unpickles one part at a time.
    """

    def __init__(self, function: Callable[..., Iterable[Any]], *args: Any) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self.finished = False
        """Whether the worker ran to the end (known once `parts` is exhausted)."""
        request = (list(sys.path), function.__module__, function.__qualname__, args)
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-c", _WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            assert self._process.stdin is not None
            pickle.dump(request, self._process.stdin, pickle.HIGHEST_PROTOCOL)
            self._process.stdin.close()
        except (OSError, ValueError, TypeError, pickle.PicklingError):
            self.close()

    def parts(self) -> Iterator[Any]:
        """The worker's parts in order, each as soon as it is sent.

        The parts stop early, without an error, when the worker could not start, failed or died
        (`finished` stays False): the caller reads on itself from where the last part ended.
        """
        stream = None if self._process is None else self._process.stdout
        try:
            while stream is not None:
                try:
                    tag, part = pickle.load(stream)
                except (EOFError, OSError, ValueError, TypeError, AttributeError, ImportError, pickle.UnpicklingError):
                    return  # the worker died or sent something unreadable
                if tag != "part":
                    self.finished = tag == "done"
                    return
                yield part
        finally:
            self.close()

    def close(self) -> None:
        """Stop the worker if it is still running (done, failed, or no longer wanted) and reap it."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()


_WORKER = """
import gc, pickle, queue, sys, threading
gc.disable()  # what it builds has no cycles, and the process ends right after
path, module, name, args = pickle.load(sys.stdin.buffer)
sys.path[:] = path
out = sys.stdout.buffer
made = queue.SimpleQueue()

def send():
    while (blob := made.get()) is not None:
        out.write(blob)
        out.flush()

sender = threading.Thread(target=send)
sender.start()
try:
    import importlib
    function = importlib.import_module(module)
    for part in name.split("."):
        function = getattr(function, part)
    for part in function(*args):
        made.put(pickle.dumps(("part", part), pickle.HIGHEST_PROTOCOL))
    made.put(pickle.dumps(("done", None), pickle.HIGHEST_PROTOCOL))
except Exception:
    made.put(pickle.dumps(("failed", None), pickle.HIGHEST_PROTOCOL))
made.put(None)
sender.join()
"""
"""The worker's program: read the call, then send each part as it is made, and last whether it
ran to the end. Sending is a thread's, so a reader still busy with its own part never holds up the
reading (a blocked write releases the GIL)."""


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
