"""Provides the timestamps a written session carries: the source's times, made strictly increasing."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

MIGRATION_ID_RE = re.compile(r"^[0-9a-f]{12}[0-9a-f]{20}$")
"""Migration ids: 12 hex digits of milliseconds since the epoch then 20 random hex digits (sortable)."""


def parse_iso(value: str | None) -> datetime | None:
    """Parse an ISO 8601 timestamp as agents write it (`Z` or an offset); None when unusable."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def format_iso(moment: datetime) -> str:
    """Format as both agents do: UTC, milliseconds, `Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def monotonic_times(stamps: list[str | None], now: datetime) -> list[datetime]:
    """Give every item a time: its own when it has one and it is later than the previous one.

    Missing or out-of-order times become the previous time plus a millisecond, so the written
    session sorts exactly as the conversation ran. With no times at all the session starts at `now`.
    """
    known = [parsed for parsed in (parse_iso(stamp) for stamp in stamps) if parsed]
    previous = (min(known) if known else now) - timedelta(milliseconds=1)
    times: list[datetime] = []
    for stamp in stamps:
        parsed = parse_iso(stamp)
        if parsed is None or parsed <= previous:
            parsed = previous + timedelta(milliseconds=1)
        parsed = parsed.replace(microsecond=parsed.microsecond // 1000 * 1000)
        if parsed <= previous:
            parsed = previous + timedelta(milliseconds=1)
        times.append(parsed)
        previous = parsed
    return times


def written_at(migration_id: object) -> str | None:
    """When a migration was written (ISO 8601 UTC), from its id's leading milliseconds; None for no id.

    A session smig wrote keeps its conversation's own times, the newest of which can be months
    old; the clients list it by when it was written (file time, start time, index), so smig's list
    goes by the later of the two as well."""
    if not isinstance(migration_id, str) or not MIGRATION_ID_RE.match(migration_id):
        return None
    moment = datetime.fromtimestamp(int(migration_id[:12], 16) / 1000, UTC)
    return format_iso(moment)


def later(first: str | None, second: str | None) -> str | None:
    """The later of two ISO 8601 times (either may be missing)."""
    if not first or not second:
        return first or second
    one, two = parse_iso(first), parse_iso(second)
    if one is None or two is None:
        return first
    return second if two > one else first
