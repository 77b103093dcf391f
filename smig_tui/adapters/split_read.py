"""Provides the second core for reading a huge session: its last part is parsed in another process.

Decoding JSON and converting records is most of opening a 500 MB session, and one Python process
uses one core. So a reader may hand the file's tail (from a line start near the middle) to a
spawned worker, read the head itself meanwhile, then replay the worker's compact results in file
order. The worker runs the reader's own per-line code, so the Session is the same either way; when
a worker cannot start or fails, the reader reads the tail itself.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from smig_tui.adapters.jsonl import report_progress
from smig_tui.core.models import Kind, Role

SPLIT_BYTES = 64 << 20
"""Files at least this big are read by two processes: below it, starting one costs more than it saves."""
TAIL_SHARE = 0.5
"""Share of the file the worker reads: the reader's own part also pays for replaying the worker's."""
ONE_PROCESS_ENV = "SMIG_TUI_ONE_PROCESS"
"""Set to 1 to read every session in one process; 0 splits a big file even when no core looks idle
(to measure the split on a busy machine)."""
_SEARCH_BYTES = 1 << 20

ROLES = tuple(Role)
KINDS = tuple(Kind)
"""Roles and kinds travel between the processes as their index: unpickling an enum member calls its class."""
ROLE_INDEX = {role: index for index, role in enumerate(ROLES)}
KIND_INDEX = {kind: index for index, kind in enumerate(KINDS)}


def spare_core() -> bool:
    """Tell whether a second core is free: this process may run on two or more, and the other
    processes' load leaves one idle. On a busy machine a second process only adds its own costs."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]  # this process counts as one
    except (AttributeError, OSError):
        load = 0.0
    return cores >= 2 and load < cores - 0.5


def split_offset(path: str, size: int) -> int | None:
    """The start of the first line at or after `TAIL_SHARE` from the end of a file worth splitting, else None."""
    choice = os.environ.get(ONE_PROCESS_ENV)
    if size < SPLIT_BYTES or choice == "1" or (choice != "0" and not spare_core()):
        return None
    position = int(size * (1 - TAIL_SHARE))
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
    """A generator function running in another Python process, its parts read back one by one.

    A plain subprocess rather than `multiprocessing`: spawning re-runs the caller's `__main__`,
    which a script using smig as a library may not guard; this worker imports only the function's
    module. Its stderr is dropped, so nothing it prints reaches a terminal, the TUI or MCP's stdio.
    The worker keeps each part pickled (compact) until the caller is ready for them, and the caller
    unpickles one part at a time, so neither holds all the parts as objects at once.
    """

    def __init__(self, function: Callable[..., Iterable[Any]], *args: Any) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self.count = 0
        """How many parts the worker sent (known once `parts` returned them)."""
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

    def parts(self) -> Iterator[Any] | None:
        """Wait for the worker; None when it could not run or failed, else its parts in order.

        A worker that stops while its parts are being read raises OSError (it had finished its
        work, so only something outside smig, such as the kernel's OOM killer, can cause that).
        """
        stream = None if self._process is None else self._process.stdout
        try:
            if stream is None:
                return None
            outcome, count = pickle.load(stream)
        except (EOFError, OSError, ValueError, TypeError, AttributeError, ImportError, pickle.UnpicklingError):
            outcome, count = "failed", 0  # the worker died or sent something unreadable
        if outcome != "done" or stream is None:
            self.close()
            return None
        self.count = count
        return self._read(stream, count)

    def _read(self, stream: IO[bytes], count: int) -> Iterator[Any]:
        try:
            for _ in range(count):
                yield pickle.load(stream)
        except (EOFError, ValueError, TypeError, AttributeError, ImportError, pickle.UnpicklingError) as error:
            raise OSError("the second reading process stopped before it sent all it read") from error
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
import gc, pickle, sys
gc.disable()  # what it builds has no cycles, and the process ends right after
path, module, name, args = pickle.load(sys.stdin.buffer)
sys.path[:] = path
try:
    import importlib
    function = importlib.import_module(module)
    for part in name.split("."):
        function = getattr(function, part)
    parts = [pickle.dumps(part, pickle.HIGHEST_PROTOCOL) for part in function(*args)]
    header = ("done", len(parts))
except Exception:
    parts, header = [], ("failed", 0)
out = sys.stdout.buffer
pickle.dump(header, out, pickle.HIGHEST_PROTOCOL)
for part in parts:
    out.write(part)
out.flush()
"""
"""The worker's program: read the call, run it to the end keeping each part pickled, then send
whether it worked and the parts."""


def replay_progress(aside: Aside, part: int, split: int, size: int) -> None:
    """Move a progress bar (`jsonl.reading_progress`) through the worker's share as its parts are replayed."""
    report_progress(split + (size - split) * part // max(aside.count, 1), size)
