"""Provides `recall_omitted`'s reading back of dropped messages from a migration's verified source.

Storage keeps only the ids of dropped messages, not their text, so the text is read from the source
session the record names. The source is trusted only when its first `size` bytes still hash to the
recorded sha256: unchanged, or only appended to (agents keep writing a live session). A rewritten or
deleted source is reported in one sentence instead of returning messages that may not be the ones
that were left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from smig_tui.core.errors import SessionReadError
from smig_tui.core.migration import MigrationRecord
from smig_tui.core.models import Message
from smig_tui.services import Services


def source_messages(services: Services, record: MigrationRecord) -> tuple[str, list[Message], int]:
    """Return the source's status, the record's dropped messages as the source holds them, and how many it no longer shows.

    A grown source can hide a few (a later rollback takes them off the active path); they are counted.
    """
    source = record.source
    status = services.source_status(source.path, source.sha256, source.size)
    if status == "missing":
        raise SessionReadError(
            f"The source session {source.path} of migration {record.id} is gone, so its omitted messages "
            "cannot be recalled."
        )
    if status == "changed":
        raise SessionReadError(
            f"The source session {source.path} was rewritten since migration {record.id} (its sha256 no "
            "longer matches), so its omitted messages cannot be recalled reliably."
        )
    info = services.find_session(source.path)
    session = services.load_session(info)
    wanted = set(record.dropped_ids)
    found = [message for message in session.messages if message.id in wanted]
    missing = len(wanted - {message.id for message in found})
    return status, [message for message in found if not message.opaque], missing


def match_omitted(messages: Sequence[Message], query: str) -> list[Message]:
    """Messages whose text holds `query` (case-blind), phrase hits first, then those holding every word.

    An empty query matches every message, in source order.
    """
    phrase = " ".join(query.lower().split())
    words = phrase.split()
    if not words:
        return list(messages)
    exact: list[Message] = []
    loose: list[Message] = []
    for message in messages:
        haystack = " ".join(f"{message.tool_name or ''} {message.text}".lower().split())
        if phrase in haystack:
            exact.append(message)
        elif all(word in haystack for word in words):
            loose.append(message)
    return exact + loose
