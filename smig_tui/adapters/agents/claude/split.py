# smig: compiled with mypyc where it can (setup.py)
"""Provides the two-process read of a huge Claude Code transcript (see `adapters/split_read.py`).

The worker reads the tail with the reader's own code: the same byte tests skip the same lines and
read progress records' links, and `convert_record` turns each user/assistant record into messages,
sent as tuples (a long text as its length and head, what `TextStore.leave` would keep of it). Any
other record goes back parsed. The reader replays all that in file order into its tree, so the
active path, ids and usage come out as in one pass.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, Protocol

from smig_tui.adapters.agents.claude.blocks import convert_record
from smig_tui.adapters.agents.claude.scan import LINK_ONLY_TYPES, SKIPPED_TYPES, first_type, links, own_timestamp
from smig_tui.adapters.gc_pause import no_cyclic_gc
from smig_tui.adapters.jsonl import SHAPE_ERRORS, iter_lines, parse_line
from smig_tui.adapters.split_read import KIND_INDEX, ROLE_INDEX, Events, Resume, replay_parts
from smig_tui.adapters.stored_text import HEAD_CHARS, TEXT_CHARS, TextStore
from smig_tui.adapters.workers import Aside
from smig_tui.core.models import Message, ReadWarning, SessionInfo, Usage

QUEUED = b'"queued_command"'
"""Marks an attachment with a prompt the user sent mid-turn: it must be parsed, not skipped."""
ENVELOPE_KEYS = ("cwd", "version", "entrypoint", "gitBranch", "slug")
"""What `_Reader._note_envelope` reads of a record, besides its timestamp."""
BATCH = 2048
"""Events per part the worker sends: the reader holds one part's objects at a time."""
TAIL_SHARE = 0.55
"""The worker's share of a transcript: the reader's head and replay cost more per byte than a rollout's
(500 MB, CPU: head 1.7 s, replay 0.7 s, worker 1.8 s at half each), so the worker takes more."""


def read_tail(path: str, start: int, long_chars: int | None) -> Iterator[tuple[Events, Resume | None]]:
    """Digest the transcript from byte `start` on, numbering its lines from 1, in batches of events,
    each with where the next batch starts (None after the last).

    Events, in file order: ("w", ReadWarning); ("l", line, uuid, parent, timestamp) for a record
    whose links were read from its bytes; ("x", line, links or None) for an unparseable line;
    ("c", line, offset, size, timestamp, envelope or None when unchanged, uuid, parent, sidechain,
    type, converted) for a user or assistant record with a uuid; ("r", line, offset, size, data) for any other record.
    """
    events: list[tuple[Any, ...]] = []

    def warn(warning: ReadWarning) -> None:
        events.append(("w", warning))

    strings: dict[str, str] = {}
    sent: list[dict[str, Any] | None] = [None]
    """The envelope the reader last noted from the worker: a record with the same one sends None."""
    with no_cyclic_gc():
        for number, offset, raw, complete in iter_lines(path, start):
            if len(events) >= BATCH:
                yield events, (number, offset)
                events = []
            line = raw.strip()
            if not line:
                continue
            kind = first_type(line)
            if complete and kind in SKIPPED_TYPES:
                continue
            if complete and kind in LINK_ONLY_TYPES and QUEUED not in line:
                found = links(line)
                if found is not None:
                    events.append(("l", number, found[0], found[1], own_timestamp(line)))
                    continue
            data = parse_line(line, path, number, complete, warn)
            if data is None:
                events.append(("x", number, links(line)))
                continue
            events.append(_digest(data, number, offset, len(raw), long_chars, strings, sent))
    yield events, None


def _digest(
    data: dict[str, Any],
    number: int,
    offset: int,
    size: int,
    long_chars: int | None,
    strings: dict[str, str],
    sent: list[dict[str, Any] | None],
) -> tuple[Any, ...]:
    """A conversation record converted, or the record itself when the reader must see it whole."""
    kind, uuid = data.get("type"), data.get("uuid")
    if (kind != "user" and kind != "assistant") or not isinstance(uuid, str) or not uuid:
        sent[0] = None  # the reader notes this record's envelope itself
        return ("r", number, offset, size, data)  # titles, system records, uuid-less ones: the reader's
    try:
        out = convert_record(data, number, offset, 0, strings)
    except SHAPE_ERRORS:
        sent[0] = None
        return ("r", number, offset, size, data)  # the reader meets the same error and reports it
    envelope: dict[str, Any] | None = {key: data[key] for key in ENVELOPE_KEYS if key in data}
    if envelope == sent[0]:
        envelope = None  # noting it again would change nothing
    else:
        sent[0] = envelope
    parent = data.get("parentUuid")
    usage = out.usage
    converted = (
        tuple(_message(message, long_chars) for message in out.messages),
        tuple(out.notes),
        None if usage is None else _usage(usage),
        out.group,
        out.model,
        out.answered,
        out.calls,
    )
    return (
        "c",
        number,
        offset,
        size,
        data.get("timestamp"),
        envelope,
        uuid,
        parent if isinstance(parent, str) else None,
        bool(data.get("isSidechain")),
        kind,
        converted,
    )


def _usage(usage: Usage) -> tuple[int, ...]:
    return (
        usage.input_tokens,
        usage.cached_input_tokens,
        usage.cache_creation_tokens,
        usage.output_tokens,
        usage.reasoning_tokens,
        usage.context_tokens,
    )


def _message(message: Message, long_chars: int | None) -> tuple[Any, ...]:
    """One message as a tuple, its text cut to its head when the reader leaves it on disk."""
    text = message.text
    length = -1
    if long_chars is not None and len(text) > long_chars:
        length, text = len(text), text[:HEAD_CHARS]
    return (
        message.id,
        ROLE_INDEX[message.role],
        KIND_INDEX[message.kind],
        text,
        message.tool_name,
        message.call_id,
        message.timestamp,
        message.is_error,
        message.opaque,
        message.injected,
        message.full_output_path,
        length,
    )


class SplitReader(Protocol):
    """What a split read drives: the transcript reader of `load.py`, as the replay feeds it."""

    @property
    def info(self) -> SessionInfo: ...

    @property
    def store(self) -> TextStore | None: ...

    def read_lines(self, lines: Iterator[tuple[int, int, bytes, bool]]) -> int: ...

    def report(self, warning: ReadWarning) -> None: ...

    def take_record(self, data: dict[str, Any], number: int, offset: int, size: int) -> None: ...

    def damaged(self, number: int, found: tuple[str, str | None] | None) -> None: ...

    def linked(self, number: int, uuid: str, parent: str | None, stamp: str | None) -> None: ...

    def take_converted(
        self,
        number: int,
        offset: int,
        size: int,
        stamp: Any,
        envelope: dict[str, Any] | None,
        uuid: str,
        parent: str | None,
        side: bool,
        kind: str,
        converted: tuple[Any, ...],
    ) -> None: ...


def read_split(reader: SplitReader, split: int) -> None:
    """Read a whole transcript into `reader`, the part from byte `split` on read by a worker meanwhile."""
    path = reader.info.path
    active = reader.store is not None and reader.store.active
    aside = Aside(read_tail, path, split, TEXT_CHARS if active else None)
    try:
        next_line = reader.read_lines(iter_lines(path, 0, 1, split))
        shift = next_line - 1

        def replay(events: Events) -> None:
            for event in events:
                _replay(reader, event, shift)

        resume = replay_parts(aside, split, os.path.getsize(path), replay)
        if resume is not None:  # no worker, or it stopped early: read the rest here
            reader.read_lines(iter_lines(path, resume[1], resume[0] + shift))
    finally:
        aside.close()


def _replay(reader: SplitReader, event: tuple[Any, ...], shift: int) -> None:
    """Give the reader one event of the worker's, its line numbers moved past the reader's own part."""
    tag = event[0]
    if tag == "w":
        warning = event[1]
        reader.report(warning if warning.line is None else replace(warning, line=warning.line + shift))
        return
    number = event[1]
    if tag == "c":
        reader.take_converted(number + shift, *event[2:])
    elif tag == "l":
        reader.linked(number + shift, *event[2:])
    elif tag == "r":
        reader.take_record(event[4], number + shift, event[2], event[3])
    else:
        reader.damaged(number + shift, event[2])
