"""Provides the last resort for errors nobody foresaw: one line for the user, the traceback in a log file.

The CLI, the TUI and the MCP server promise one sentence instead of a traceback. Errors smig knows
(`SmigError`) already are one; an `OSError` becomes one from its errno; anything else is a bug, so
its traceback goes to a private log file (0600, in smig's cache folder under `crashes/`) whose path
the line gives, ready to attach to a bug report.
"""

from __future__ import annotations

import contextlib
import errno
import os
import traceback
from datetime import UTC, datetime
from pathlib import Path

from smig_tui.adapters.paths import resolve_paths
from smig_tui.core.errors import SmigError

MAX_DETAIL = 200
"""Characters of an exception's own text kept in the line; the log has all of it."""
KEPT_LOGS = 20
"""Crash logs kept; older ones are removed when a new one is written."""


def crash_folder() -> Path:
    """Where crash logs go: smig's cache folder (under `SMIG_TUI_HOME` when that is set)."""
    return resolve_paths().cache_dir / "crashes"


def describe_os_error(error: OSError) -> str:
    """One sentence for a system error, naming the file when the error does."""
    reason = error.strerror or str(error) or type(error).__name__
    if error.errno == errno.ENAMETOOLONG:
        reason = "a path is too long for the file system"
    where = f" ({_shorten(str(error.filename))})" if error.filename else ""
    return f"{reason[:1].upper()}{reason[1:]}{where}."


def one_line(error: BaseException, where: str = "smig") -> str:
    """The sentence to show for any error; for an unexpected one, write its log and name it."""
    if isinstance(error, SmigError):
        return str(error)
    if isinstance(error, OSError):
        return describe_os_error(error)
    detail = _shorten(" ".join(str(error).split())) or "no message"
    try:
        log = write_crash_log(error, where)
    except OSError as failure:
        return f"Unexpected {type(error).__name__} ({detail}); no log could be written ({failure.strerror or failure})."
    return f"Unexpected {type(error).__name__} ({detail}); the details are in {log}."


def write_crash_log(error: BaseException, where: str) -> Path:
    """Write the traceback of `error` to a new 0600 file and return its path."""
    folder = crash_folder()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    path = folder / f"crash-{stamp}-{os.getpid()}.log"
    text = f"smig crash in {where} at {stamp}\n\n" + "".join(
        traceback.format_exception(type(error), error, error.__traceback__)
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as handle:
        handle.write(text)
    _prune(folder)
    return path


def _prune(folder: Path) -> None:
    """Keep only the newest `KEPT_LOGS` crash logs."""
    logs = sorted(folder.glob("crash-*.log"))
    for old in logs[:-KEPT_LOGS]:
        with contextlib.suppress(OSError):
            old.unlink()


def _shorten(text: str) -> str:
    """Cut long text (a 5,000-character path) to a readable length."""
    return text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 1] + "…"
