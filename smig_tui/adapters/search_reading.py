"""Provides the reading of sessions for the search index: each session read (on from where it ended
when it only grew), its messages as plain rows and its texts not indexed yet redacted, in two worker
processes during a big refresh while the index is written (`Readers`), here otherwise.
"""

from __future__ import annotations

import hashlib
import pickle
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from smig_tui.adapters.split_read import ONE_PROCESS_ENV
from smig_tui.adapters.stored_text import LineText, SpanText, read_texts
from smig_tui.adapters.workers import Call, WorkerLost, Workers
from smig_tui.core.errors import SmigError
from smig_tui.core.models import Kind, Message, ReadWarning, SessionInfo
from smig_tui.core.ports import AppendReader, HistoryReader, ResumePoint, SessionSource
from smig_tui.core.redact import redact_many
from smig_tui.core.search import CONVERSATION, tier

MAX_INDEXED_CHARS = 1 << 20
"""The head of a message indexed; a bigger tool output is searchable in its first megabyte only."""
SKIPPED_KINDS = (Kind.IMAGE,)
WORKERS = 2
"""Worker processes reading sessions in a big refresh (one per core of the machines smig targets)."""
AHEAD_BYTES = 256 << 20
"""Session bytes asked of the workers ahead of the one being written: while one reads a huge session,
the other reads on through this much (their results wait in memory, a fraction of it)."""


@dataclass(frozen=True, slots=True)
class Previous:
    """What the index holds for a file, as reading it on needs it (sent to a worker process)."""

    size: int
    indexed: int
    last_id: str | None
    resume: ResumePoint | None


@dataclass(slots=True)
class IndexRead:
    """One session read for the index, in plain values (cheap to send back from a worker process).

    `mode`: `whole` (index every message anew), `grow` (a reader that cannot read on found the old
    messages unchanged: these are the new ones), `append` (read on from where the lines ended), or
    `failed` (not readable: the warnings say why)."""

    mode: str
    rows: list[tuple[int, str, str, str, int, str | None, int, int]] = field(default_factory=list)
    """Each message to index: position, id, role, kind, tier, timestamp, digest of its text, and 1 when
    a compaction took it out of the history."""
    texts: dict[int, str] = field(default_factory=dict)
    """The redacted texts, by digest, of those the reader did not know as indexed already."""
    count: int = 0
    """Messages the session has now (`append`: messages read on)."""
    last_id: str | None = None
    point: ResumePoint | None = None
    warnings: list[ReadWarning] = field(default_factory=list)


class MissingText(Exception):
    """A text a read counted on as indexed is not (it left the index since): read the session again."""


KnownTexts = Callable[[list[int]], dict[int, int]]
"""Which of these digests name texts already indexed (or about to be): they need no redaction."""


def read_for_index(source: SessionSource, info: SessionInfo, previous: Previous | None, known: KnownTexts) -> IndexRead:
    """Read one session (on from where it ended when it only grew) and redact its texts not known yet."""
    warnings: list[ReadWarning] = []
    appender = source if isinstance(source, AppendReader) else None
    try:
        if appender and previous and previous.resume and info.size > previous.size:  # grown: read on, if it only grew
            appended = appender.read_appended(info, previous.resume, previous.indexed, warnings.append)
            if appended is not None:
                read = texts_read("append", appended.messages, known)
                read.count, read.point = len(appended.messages), appended.point
                read.last_id = appended.messages[-1].id if appended.messages else None
                read.warnings = warnings
                return read
        whole = source.load_history if isinstance(source, HistoryReader) else source.load
        session = whole(info, warnings.append)
        point = appender.resume_point(session) if appender else None
    except (SmigError, OSError, ValueError) as error:  # one unreadable file must not stop the index
        return IndexRead(
            "failed", warnings=[*warnings, ReadWarning(info.path, None, f"not indexed for search: {error}")]
        )
    # A reader that could not read on has seen the old lines change: none of them is kept.
    rewritten = bool(appender and previous and previous.resume)
    messages = session.messages
    grew = (
        not rewritten
        and previous is not None
        and info.size >= previous.size
        and previous.indexed <= len(messages)
        and (previous.indexed == 0 or messages[previous.indexed - 1].id == previous.last_id)
    )
    start = previous.indexed if grew and previous else 0
    gone = () if grew else session.compacted_away  # grown without a compaction: nothing newly compacted
    read = texts_read("grow" if grew else "whole", messages[start:], known, gone)
    read.count, read.point, read.warnings = len(messages), point, warnings
    read.last_id = messages[-1].id if messages else None
    return read


def texts_read(
    mode: str, messages: Sequence[Message], known: KnownTexts, compacted_away: Sequence[Message] = ()
) -> IndexRead:
    """The messages to index with their texts' digests (those a compaction took out of the history
    too, marked); the texts not known yet, redacted."""
    rows: list[tuple[int, str, str, str, int, str | None, int, int]] = []
    unseen: dict[int, str] = {}
    # A text met again (a file read again, a repeated instruction, a fork's turns) costs its `str`
    # hash and a compare, not BLAKE2b again: 0.65 -> 0.43 s over 522 MB of the benchmark's texts.
    # The texts stay alive in `unseen` anyway.
    digests: tuple[dict[str, int], dict[str, int]] = ({}, {})
    for gone, batch in ((1, compacted_away), (0, messages)):
        for start in range(0, len(batch), READ_AT_ONCE):
            part = batch[start : start + READ_AT_ONCE]
            for message, whole in zip(part, _texts(part), strict=True):
                raw = indexed_text(message, whole)
                if not raw:
                    continue
                rank = tier(message.role, message.kind, message.injected)
                tool = rank != CONVERSATION
                digest = digests[tool].get(raw)
                if digest is None:
                    digest = digests[tool][raw] = text_digest(raw, tool)
                rows.append(
                    (
                        message.index,
                        message.id,
                        message.role.value,
                        message.kind.value,
                        rank,
                        message.timestamp,
                        digest,
                        gone,
                    )
                )
                if digest not in unseen:
                    unseen[digest] = raw
    for digest in known(list(unseen)):
        del unseen[digest]
    raws = list(unseen.values())
    return IndexRead(mode, rows, dict(zip(unseen, (found.text for found in redact_many(raws)), strict=True)))


READ_AT_ONCE = 1024
"""Messages whose texts are read together: a huge session's long texts, left in its file, are read
back in file order with one open per batch and one parse per line (one by one, each text opened
the file and parsed its line), while only a batch's texts are held at a time."""


def _texts(messages: Sequence[Message]) -> Sequence[str]:
    """The messages' whole texts, reading those left in their file together."""
    if any(isinstance(message.body, LineText | SpanText) for message in messages):
        return read_texts(messages)
    return [message.text for message in messages]


_seen_here: set[int] = set()
"""Digests of the texts this worker process has redacted and sent (so the index has them)."""
_sources: dict[bytes, SessionSource] = {}
"""The sources this worker process was sent, by their pickle."""


def read_in_worker(pickled: bytes, info: SessionInfo, previous: Previous | None) -> IndexRead:
    """`read_for_index` in a worker process: a text it sent before is known (written by now). The
    source comes pickled and is unpickled once (once per session cost 0.1 ms, a fifth of a second
    over 2,000 sessions, and dropped what the source had learned)."""
    source = _sources.get(pickled)
    if source is None:
        source = _sources[pickled] = pickle.loads(pickled)
    read = read_for_index(source, info, previous, lambda digests: {d: 0 for d in digests if d in _seen_here})
    _seen_here.update(read.texts)
    return read


def text_digest(text: str, tool: bool) -> int:
    """What identifies a text in the index: 64 bits of its BLAKE2b hash (a collision among a
    million texts has odds of about one in 30 million), apart for each word table."""
    hashed = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8, person=b"tool" if tool else b"talk")
    return int.from_bytes(hashed.digest(), "big", signed=True)


def indexed_text(message: Message, text: str) -> str:
    """The text a message is found by, before redaction, from its whole text: its prose, a tool
    call's name and arguments, an output; empty when it is not indexed."""
    if message.opaque or message.kind in SKIPPED_KINDS:
        return ""
    text = text[:MAX_INDEXED_CHARS]
    if message.kind is Kind.TOOL_CALL and message.tool_name:
        text = f"{message.tool_name} {text}"
    return "" if text.isspace() else text  # (isspace: no copy of a long text, as strip made)


class Readers:
    """Reads sessions for the index: in two worker processes when a refresh has much to read (each
    reads a session, a huge one whole in one process, and redacts its new texts while this process
    writes the index), otherwise, or when no worker can start, right here. Results come back in the
    order asked."""

    def __init__(self, parallel: bool) -> None:
        # Each worker reads a huge session whole: the two of them and this process keep the CPUs busy
        # already, and a read's own second process (`split_read`) only added its start and its replay
        # (the cold build's workers, 4 pairs: 19.4-21.0 s of CPU with it, 16.7-17.8 s without, the same wall time).
        self._pool = Workers(WORKERS, {ONE_PROCESS_ENV: "1"}) if parallel else None

    def __enter__(self) -> Readers:
        return self

    def __exit__(self, *_: object) -> None:
        if self._pool is not None:
            self._pool.close()

    def read(
        self, asked: Iterable[tuple[SessionSource, SessionInfo, Previous | None]], known: KnownTexts
    ) -> Iterator[IndexRead]:
        """Each session read, in order; here, `known` says which texts the index holds already."""
        if self._pool is None:
            for source, info, previous in asked:
                yield read_for_index(source, info, previous, known)
            return
        pending: deque[tuple[tuple[SessionSource, SessionInfo, Previous | None], Call | None]] = deque()
        items = iter(asked)
        ahead = 0
        pickled: dict[int, bytes | None] = {}
        """Each source pickled once, by its id (None: it cannot be, so its sessions are read here)."""
        while True:
            while (len(pending) <= WORKERS or ahead < AHEAD_BYTES) and (item := next(items, None)) is not None:
                source, info, previous = item
                if id(source) not in pickled:
                    pickled[id(source)] = _pickled(source)
                blob = pickled[id(source)]
                call = None if blob is None else self._pool.submit(read_in_worker, blob, info, previous)
                pending.append((item, call))  # None: no worker left, or the source cannot go to one
                ahead += info.size
            if not pending:
                return
            item, call = pending.popleft()
            ahead -= item[1].size
            try:
                yield call.result() if call is not None else read_for_index(*item, known)
            except WorkerLost:  # it failed there or the worker died: read here
                yield read_for_index(*item, known)


def _pickled(source: SessionSource) -> bytes | None:
    """A source as sent to a worker process; None when it cannot be sent."""
    try:
        return pickle.dumps(source, pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
