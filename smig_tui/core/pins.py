"""Provides `resolve_pins`: the messages a user pins, named as the tables show them.

Every table prints a message's row number (`#`) and its id; a pin may be either, or a unique prefix
of the id. A pin that names nothing, or more than one message, is an error: a plan that quietly
ignores a pin looks as if it kept the message.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from smig_tui.core.errors import AmbiguousIdError, MessageNotFoundError
from smig_tui.core.models import Message

SHOWN_CHOICES = 4
"""Ids named in the error for an ambiguous prefix."""


def resolve_pins(messages: Sequence[Message], pins: Iterable[str], session_id: str = "") -> list[str]:
    """The message id each pin names, in order, duplicates once: an exact id, then a row number, then a
    unique id prefix; `#7` is always row 7 (the tables' mark). MessageNotFoundError or AmbiguousIdError (both exit 3) for a pin that names no
    message or several."""
    by_id = {message.id: message for message in messages}
    by_row = {message.index: message for message in messages}
    resolved: list[str] = []
    for raw in pins:
        pin = raw.strip()
        if pin.startswith("#") and pin not in by_id:  # the tables' mark: `#7` is row 7, `#abc1` an id
            pin = pin[1:]
            found = by_row.get(int(pin)) if pin.isdigit() else by_id.get(pin)
        else:
            found = by_id.get(pin) or (by_row.get(int(pin)) if pin.isdigit() else None)
        if found is None:
            found = _by_prefix(messages, pin, raw, session_id)
        if found.id not in resolved:
            resolved.append(found.id)
    return resolved


def _by_prefix(messages: Sequence[Message], pin: str, raw: str, session_id: str) -> Message:
    """The one message whose id starts with `pin`."""
    of = f" of session {session_id}" if session_id else ""
    matches = [message for message in messages if message.id.startswith(pin)] if pin else []
    if not matches:
        last = messages[-1].index if messages else None
        rows = f"rows #0 to #{last}" if last is not None else "no messages"
        raise MessageNotFoundError(
            f"Pin {raw!r} names no message{of}: give a row number from the # column ({rows}) or a message id."
        )
    if len(matches) > 1:
        shown = ", ".join(f"#{m.index} {m.id}" for m in matches[:SHOWN_CHOICES])
        more = f" and {len(matches) - SHOWN_CHOICES:,} more" if len(matches) > SHOWN_CHOICES else ""
        raise AmbiguousIdError(
            f"Pin {raw!r} starts the ids of {len(matches):,} messages{of} ({shown}{more}); give more of the id."
        )
    return matches[0]
