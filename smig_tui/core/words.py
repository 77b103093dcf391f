"""Provides the small words every front end prints: counted nouns, sizes, ages, lists of names.

One place, so "1 messages" cannot creep back and every screen writes a size or an age the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

_IRREGULAR = {"summary": "summaries", "match": "matches", "copy": "copies", "entry": "entries"}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`1 message`, `2 messages`, `1,204 tokens`: the count with thousands separators and the noun agreeing."""
    if count == 1:
        return f"1 {noun}"
    return f"{count:,} {many or _IRREGULAR.get(noun) or noun + 's'}"


def one_line(text: str, width: int | None = None) -> str:
    """Whitespace (newlines, tabs) collapsed to single spaces, cut to `width` characters with an ellipsis
    when one is given: a table cell, a title, a description."""
    flat = " ".join(text.split())
    return flat if width is None or len(flat) <= width else flat[: width - 1] + "…"


def title_line(text: str | None, width: int) -> str | None:
    """A session's title as listings show it: one line of at most `width` characters, its secrets
    replaced before the cut (see `redact.redacted_line`); None for no text.

    The secret detector is imported only when there is a text to redact: a warm listing reads its
    titles from a cache and never needs it.
    """
    if not text:
        return None
    from smig_tui.core.redact import redacted_line

    return redacted_line(text, width)


def size_text(size: int) -> str:
    """A file size in at most 7 characters: `820 B`, `12 KB`, `1.2 MB`, `3.4 GB` (1 KB = 1,024 bytes)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1024 or unit == "TB":
            if unit == "B":
                return f"{size} B"
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def size_cells(size: int) -> str:
    """A file size in at most five cells, for a row of a list (`size_text` reads better in a sentence): `980B`, `12K`, `1.2M`, `340M`, `2.1G` (`—` for a session kept
    in a database, which has no file of its own)."""
    if size <= 0:
        return "—"
    value = float(size)
    for unit in ("B", "K", "M", "G"):
        if value < 1000 or unit == "G":
            return f"{value:.1f}{unit}" if unit != "B" and value < 10 else f"{value:.0f}{unit}"
        value /= 1024
    return f"{value:.0f}G"


_AGES = ((60, "m", 60), (24 * 60, "h", 60 * 60), (14 * 24 * 60, "d", 24 * 60 * 60), (61 * 24 * 60, "w", 7 * 86400))


def age_text(stamp: str | None, now: datetime | None = None) -> str:
    """How long ago an ISO 8601 time was, in at most 8 characters: `now`, `17m ago`, `3h ago`, `5d ago`,
    `6w ago`, `4mo ago`, `2y ago`; empty when the time is unknown or unreadable."""
    if not stamp:
        return ""
    try:
        when = datetime.fromisoformat(stamp)  # Python 3.11 reads a trailing Z
    except ValueError:
        return ""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = ((now or datetime.now(UTC)) - when).total_seconds()
    if seconds < 60:  # a clock a little ahead of this one counts as now
        return "now"
    minutes = seconds / 60
    for below, unit, length in _AGES:
        if minutes < below:
            return f"{int(seconds // length)}{unit} ago"
    days = seconds / 86400
    if days < 365:
        return f"{int(days // 30.44)}mo ago"
    return f"{int(days // 365.25)}y ago"


def name_list(names: Sequence[str], last: str = "or") -> str:
    """`Codex, Claude Code, Gemini CLI or OpenCode`: names joined as a sentence says them."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {last} {names[-1]}"
