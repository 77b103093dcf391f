"""Provides the redaction of an export's message batches, in worker processes when it is big.

Exporting a whole huge session redacts every one of its texts, which takes more CPU than reading and
rendering them. Workers redact batch after batch while this process reads the next texts back and
renders the ones already done; only the texts that changed come back. If a worker cannot be started
or dies, the batch is redacted here instead, so the result never depends on the pool.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from itertools import chain

from smig_tui.adapters.stored_text import with_texts
from smig_tui.adapters.workers import Call, WorkerLost, Workers
from smig_tui.core.handoff import redact_messages
from smig_tui.core.models import Message
from smig_tui.core.redact import redact_many

Changes = list[tuple[int, str, dict[str, int]]]
"""The texts of a batch that redaction changed: (position in the batch, new text, counts by kind)."""

MAX_WORKERS = 4
PARALLEL_CHARS = 16 << 20
"""Characters of text from which an export redacts in worker processes (starting them costs ~0.2 s)."""
BATCH = 512
"""Messages read back together (in file order, one open per file)."""


def worth_workers(messages: Sequence[Message]) -> bool:
    """Whether redacting these messages takes long enough to share out among worker processes."""
    return (os.cpu_count() or 1) > 1 and sum(message.text_length for message in messages) >= PARALLEL_CHARS


def batches(messages: Sequence[Message]) -> Iterator[Sequence[Message]]:
    """The messages in runs of `BATCH`, each read back (and redacted) together."""
    return (messages[start : start + BATCH] for start in range(0, len(messages), BATCH))


def read_batches(batches: Iterable[Sequence[Message]]) -> Iterator[list[Message]]:
    """Each batch with its texts in hand (`--no-redact`)."""
    return (with_texts(batch) for batch in batches)


def read_in_batches(messages: Sequence[Message]) -> Iterator[Message]:
    """The messages with their texts in hand, read back a batch at a time."""
    return chain.from_iterable(read_batches(batches(messages)))


def redacted_in_batches(messages: Sequence[Message]) -> Iterator[Message]:
    """The messages with their texts in hand and their secrets replaced, read back a batch at a time."""
    return chain.from_iterable(redacted_batches(batches(messages)))


def redacted_batches(batches: Iterable[Sequence[Message]], parallel: bool = False) -> Iterator[Sequence[Message]]:
    """Each batch read back and its secrets replaced (for renderers that stream); with `parallel`,
    worker processes redact a few batches ahead while this one reads and renders."""
    if not parallel:
        yield from (redact_messages(with_texts(batch))[0] for batch in batches)
        return
    read: deque[list[Message]] = deque()

    def texts() -> Iterator[list[str]]:
        for batch in batches:
            read.append(with_texts(batch))
            yield [message.text for message in read[-1]]

    for changes in redacted_in_workers(texts(), worker_count()):
        batch = read.popleft()
        for index, text, _counts in changes:
            batch[index] = replace(batch[index], body=text)
        yield batch


def redact_changes(texts: list[str]) -> Changes:
    """Redact a batch (in a worker) and keep only what changed, so little is sent back."""
    return [(index, found.text, dict(found.counts)) for index, found in enumerate(redact_many(texts)) if found.counts]


def worker_count() -> int:
    """One worker per core, a few at most: the caller's own process reads and renders meanwhile."""
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1))


def redacted_in_workers(batches: Iterable[list[str]], workers: int) -> Iterator[Changes]:
    """Each batch's changes, in order, with up to twice `workers` batches redacting ahead."""
    pending: deque[tuple[list[str], Call | None]] = deque()
    with Workers(workers) as pool:
        for batch in batches:
            pending.append((batch, pool.submit(redact_changes, batch)))
            if len(pending) > 2 * workers:
                yield _result(*pending.popleft())
        while pending:
            yield _result(*pending.popleft())


def _result(batch: list[str], call: Call | None) -> Changes:
    if call is not None:
        try:
            changes: Changes = call.result()
            return changes
        except WorkerLost:  # it failed there or the worker died: the batch is redacted here
            pass
    return redact_changes(batch)
