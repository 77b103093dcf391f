"""Runs `smig ARGS` and, as it exits, writes its own peak RSS and CPU time to the file `$SMIG_BENCH_OWN`.

A migration into OpenCode or Kilo Code runs that client's `import`, and `wait4` reports the largest
peak of the process and its children, and their CPU together: the benchmark's row for it reads smig's
own part here (`VmHWM` and `RUSAGE_SELF`: this process alone since its `exec`).
"""

from __future__ import annotations

import atexit
import os
import resource
import runpy
import sys
from pathlib import Path

OWN_USAGE = "SMIG_BENCH_OWN"
"""The file this process's own figures are written to: `<peak RSS in MB> <CPU seconds>`."""


def own_peak_mb() -> float:
    """This process's peak RSS since its `exec` (`VmHWM`); `ru_maxrss` would include its parent's."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _report(path: str) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    Path(path).write_text(f"{own_peak_mb():.1f} {usage.ru_utime + usage.ru_stime:.3f}\n", encoding="ascii")


def main() -> None:
    """Run `python -m smig_tui` with this process's arguments, reporting at exit."""
    path = os.environ.get(OWN_USAGE)
    if path:
        atexit.register(_report, path)
    sys.argv = ["smig", *sys.argv[1:]]
    runpy.run_module("smig_tui", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
