# smig: compiled with mypyc where it can (setup.py)
"""Provides the two-process read of a huge rollout (see `adapters/split_read.py`).

The worker reads the tail with the reader's own code: the same byte test skips the same lines,
`convert` turns each `response_item` into drafts, and a long text is sent as its length and head
(what `TextStore` would keep of it). Every other record goes back parsed, to be fed as usual.
The reader replays all that in file order, so ids, tool names and usage come out as in one pass.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from smig_tui.adapters.agents.codex.items import RESULT_TYPES, convert, cwd_from_environment
from smig_tui.adapters.agents.codex.load import Draft, RolloutLoader, feed_lines
from smig_tui.adapters.agents.codex.scan import iso_or_none
from smig_tui.adapters.gc_pause import no_cyclic_gc
from smig_tui.adapters.jsonl import SHAPE_ERRORS, Record, iter_lines, parse_line, shape_warning
from smig_tui.adapters.split_read import KIND_INDEX, ROLE_INDEX, Events, Resume, replay_parts
from smig_tui.adapters.stored_text import HEAD_CHARS, TEXT_CHARS
from smig_tui.adapters.workers import Aside
from smig_tui.core.models import ReadWarning
from smig_tui.core.ports import WarningSink


class _Names(dict[str, str]):
    """The worker's call id → tool name table, noting what each line adds (the reader replays it)."""

    def __init__(self) -> None:
        super().__init__()
        self.learned: list[tuple[str, str]] = []

    def __setitem__(self, key: str, value: str) -> None:
        self.learned.append((key, value))
        super().__setitem__(key, value)


def read_tail(path: str, start: int, long_chars: int | None) -> Iterator[tuple[Events, Resume | None]]:
    """Digest the rollout from byte `start` on, numbering its lines from 1, in batches of events,
    each with where the next batch starts (None after the last).

    Events, in file order: ("w", ReadWarning); ("r", line, offset, size, data) for a record to feed
    as it is (with only the fields the reader uses; a token count repeating the last one's figures
    is left out); ("d", line, offset, size, timestamp, is_result,
    learned names, drafts) for a response item, texts longer than `long_chars` cut to their head;
    last in each batch, ("t", the last timestamp seen), skipped lines included.
    """
    skipper = RolloutLoader(path)  # for its byte test, which notes the times of the lines it skips
    events: list[tuple[Any, ...]] = []

    def warn(warning: ReadWarning) -> None:
        events.append(("w", warning))

    names = _Names()
    last_count: list[Any] = [_NO_COUNT]
    with no_cyclic_gc():
        for number, offset, raw, complete in iter_lines(path, start):
            if len(events) >= BATCH:
                events.append(("t", skipper.last_timestamp))
                yield events, (number, offset)
                events = []
            if skipper.skippable(raw):
                continue
            data = parse_line(raw, path, number, complete, warn)
            if data is None:
                continue
            stamp = iso_or_none(data.get("timestamp"))
            if stamp:
                skipper.last_timestamp = stamp
            payload = data.get("payload")
            if data.get("type") != "response_item" or not isinstance(payload, dict):
                record = _slim(data, last_count)
                if record is not None:
                    events.append(("r", number, offset, len(raw), record))
                continue
            names.learned = []
            try:
                drafts = convert(payload, names)
            except SHAPE_ERRORS:
                events.append(("r", number, offset, len(raw), data))  # the reader meets the same error
                continue
            events.append(
                (
                    "d",
                    number,
                    offset,
                    len(raw),
                    stamp,
                    payload.get("type") in RESULT_TYPES,
                    tuple(names.learned),
                    tuple(_draft(draft, long_chars) for draft in drafts),
                )
            )
        events.append(("t", skipper.last_timestamp))
    yield events, None


BATCH = 2048
"""Events per part the worker sends: the reader holds one part's objects at a time."""


def _slim(data: dict[str, Any], last_count: list[Any]) -> dict[str, Any] | None:
    """A record with only what `RolloutLoader.feed` reads of the many it gets: turn contexts and
    token counts (a third of a rollout's records, each with fields the reader never looks at).

    None for a token count that repeats the last one's figures (`last_count`, updated here): Codex
    re-emits them, and the reader, having taken the first, ignores the others (`_token_count`
    skips an unchanged total). Only one without a total would be applied again, so it is kept.
    """
    kind, payload = data.get("type"), data.get("payload")
    if not isinstance(payload, dict):
        return data
    if kind == "turn_context":
        kept = {key: payload[key] for key in ("model", "cwd") if key in payload}
    elif kind == "event_msg" and payload.get("type") == "token_count":
        info = payload.get("info")
        if isinstance(info, dict):
            info = {key: info[key] for key in _TOKEN_COUNT_KEYS if key in info}
        if info == last_count[0] and not (isinstance(info, dict) and info.get("total_token_usage") is None):
            return None
        last_count[0] = info
        kept = {"type": "token_count", "info": info}
    else:
        return data
    return {"timestamp": data.get("timestamp"), "type": kind, "payload": kept}


_NO_COUNT = object()
"""What the last token count was before the worker met one: equal to none."""
_TOKEN_COUNT_KEYS = ("last_token_usage", "model_context_window", "total_token_usage")


def _draft(draft: Any, long_chars: int | None) -> Draft:
    """One draft, its text cut to its head when the reader leaves it on disk."""
    text, length, environment = draft.text, -1, None
    if long_chars is not None and len(text) > long_chars:
        length = len(text)
        if text.lstrip().startswith("<environment_context"):
            environment = (cwd_from_environment(text),)
        text = text[:HEAD_CHARS]
    return (
        ROLE_INDEX[draft.role],
        KIND_INDEX[draft.kind],
        text,
        draft.tool_name,
        draft.call_id,
        draft.is_error,
        draft.opaque,
        draft.injected,
        length,
        environment,
    )


def feed_split(loader: RolloutLoader, path: str, split: int, warn: WarningSink) -> None:
    """Feed a whole rollout to `loader`, the part from byte `split` on read by a worker meanwhile."""
    aside = Aside(read_tail, path, split, TEXT_CHARS if loader.store.active else None)
    try:
        next_line = feed_lines(loader, iter_lines(path, 0, 1, split), path, warn)
        shift = next_line - 1

        def replay(events: Events) -> None:
            for event in events:
                tag = event[0]
                if tag == "d":
                    loader.feed_digest(event[1] + shift, *event[2:])
                elif tag == "r":
                    _feed_one(loader, Record(event[1] + shift, event[2], event[4], event[3]), path, warn)
                elif tag == "w":
                    warning = event[1]
                    warn(warning if warning.line is None else replace(warning, line=warning.line + shift))
                elif event[1]:
                    loader.last_timestamp = event[1]

        resume = replay_parts(aside, split, os.path.getsize(path), replay)
        if resume is not None:  # no worker, or it stopped early: read the rest here
            feed_lines(loader, iter_lines(path, resume[1], resume[0] + shift), path, warn)
    finally:
        aside.close()


def _feed_one(loader: RolloutLoader, record: Record, path: str, warn: WarningSink) -> None:
    """Feed one record, a record of an unexpected shape becoming a warning (as `source._feed` does)."""
    try:
        loader.feed(record)
    except SHAPE_ERRORS as error:
        warn(shape_warning(path, record.line, error))
