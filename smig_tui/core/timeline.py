"""Provides the timestamps a written session carries: the source's times, made strictly increasing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


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
