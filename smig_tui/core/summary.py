"""Provides the handoff-summary prompt, transcript rendering, and map-reduce chunk planning (pure).

Nothing here touches the network: `plan_summary_job` turns messages into redacted chunks that fit
the summarizer model's window, and `run_summary` drives any `ChatBackend` through map then reduce.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from smig_tui.core import summary_prompt
from smig_tui.core.errors import ConfigError, SummaryCancelledError
from smig_tui.core.models import Kind, Message, Role
from smig_tui.core.redact import LINE_MARGIN, redact
from smig_tui.core.summary_prompt import (
    PROMPT_VERSION,
    ChatMessages,
    Chunk,
    map_prompt,
    reduce_prompt,
)

if TYPE_CHECKING:
    import threading

    from smig_tui.core.ports import ChatBackend

CHARS_PER_TOKEN = 3.0
"""Conservative prose/code ratio used to turn a token budget into a character target; with the
prompt's 1.25x ceiling a summary stays within its budget at the usual ~4 characters per token."""
DEFAULT_TARGET_CHARS = 6000
PROMPT_OVERHEAD_TOKENS = 700
"""Room for the system and instruction text around a chunk."""
MIN_CHUNK_TOKENS = 1000

Counter_ = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """Over-estimate tokens (3 characters each), so chunks never overflow a window."""
    return math.ceil(len(text) / 3) if text else 0


def chars_for_tokens(tokens: int) -> int:
    """Return the character target that keeps a summary within `tokens`."""
    return max(400, int(tokens * CHARS_PER_TOKEN))


def output_tokens_for(target_chars: int) -> int:
    """Return the output cap for a request asked to write about `target_chars` characters."""
    return math.ceil(target_chars / 2.5) + 1024


@dataclass(frozen=True, slots=True)
class RenderLimits:
    """How much of each kind of message a transcript keeps; tool traffic is condensed hardest."""

    text_chars: int = 12_000
    tool_call_chars: int = 600
    tool_result_chars: int = 800
    reasoning_chars: int = 400
    injected_chars: int = 300


def condense(text: str, limit: int, counts: Counter[str] | None = None) -> str:
    """Keep the head and tail of `text` within about `limit` characters, saying how much went.

    Secrets are replaced before the cut, never after: the whole text when it is short, else the
    head and the tail each with `LINE_MARGIN` characters more than is kept, so a secret the cut
    passes through is redacted whole first. What was replaced is added to `counts`.
    """
    text = text.strip()
    head = limit * 2 // 3
    tail = limit - head
    if len(text) <= limit + 2 * LINE_MARGIN:
        cleaned = _redacted(text, counts).strip()
        if len(cleaned) <= limit:
            return cleaned
        start, end, omitted = cleaned[:head], cleaned[len(cleaned) - tail :], len(cleaned) - head - tail
    else:
        start = _redacted(text[: head + LINE_MARGIN], counts)[:head]
        end = _redacted(text[len(text) - tail - LINE_MARGIN :], counts)[-tail:]
        omitted = len(text) - head - tail
    return f"{start.rstrip()}\n… [{omitted:,} chars omitted] …\n{end.lstrip()}"


def _redacted(text: str, counts: Counter[str] | None) -> str:
    found = redact(text)
    if counts is not None:
        counts.update(found.counts)
    return found.text


def render_message(
    message: Message, limits: RenderLimits = RenderLimits(), counts: Counter[str] | None = None
) -> str | None:
    """Render one message as a transcript block, redacted (secrets replaced before any cut, counted
    in `counts`), or None when it carries nothing worth sending."""
    if message.opaque or (not message.text.strip() and message.kind != Kind.IMAGE):
        return None
    tool = f" {message.tool_name}" if message.tool_name else ""
    if message.kind == Kind.TOOL_CALL:
        label, limit = f"{message.role.value} → tool call{tool}", limits.tool_call_chars
    elif message.kind == Kind.TOOL_RESULT:
        failed = " (failed)" if message.is_error else ""
        label, limit = f"tool result{tool}{failed}", limits.tool_result_chars
    elif message.kind == Kind.REASONING:
        label, limit = f"{message.role.value} reasoning", limits.reasoning_chars
    elif message.kind == Kind.IMAGE:
        return f"[{message.index}] {message.role.value} image:\n[image not included]"
    elif message.kind == Kind.SUMMARY:
        label, limit = "earlier summary", limits.text_chars
    elif message.injected or message.role in (Role.SYSTEM, Role.DEVELOPER):
        label, limit = f"{message.role.value} context", limits.injected_chars
    else:
        label, limit = message.role.value, limits.text_chars
    return f"[{message.index}] {label}:\n{condense(message.text, limit, counts)}"


@dataclass(frozen=True, slots=True)
class Block:
    """One rendered, redacted message."""

    index: int
    text: str
    tokens: int


@dataclass(frozen=True, slots=True)
class SummaryJob:
    """Everything known about a summary before any request: what is sent, in how many parts."""

    chunks: tuple[Chunk, ...]
    redactions: dict[str, int]
    """Secrets replaced before sending, by kind."""
    target_chars: int
    head_only: bool
    content_sha256: str
    """Hash of the redacted transcript: the cache key's content part."""
    message_count: int
    capacity_tokens: int
    """Largest chunk the summarizer's window takes with room for prompt and output."""

    @property
    def tokens(self) -> int:
        """Estimated tokens of transcript that will be sent."""
        return sum(chunk.tokens for chunk in self.chunks)

    @property
    def redaction_total(self) -> int:
        """How many secrets were replaced."""
        return sum(self.redactions.values())

    def cache_key(self, provider: str, model: str) -> str:
        """Return the cache key: content after redaction, model, prompt version, target length."""
        parts = [
            summary_prompt.PROMPT_VERSION,
            provider,
            model,
            str(self.target_chars),
            str(self.head_only),
            self.content_sha256,
        ]
        return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class SummaryResult:
    """A written summary and what it took."""

    text: str
    model: str
    provider: str
    redactions: dict[str, int] = field(default_factory=dict)
    chunks: int = 1
    cached: bool = False
    requests: int = 0
    """Requests actually made (0 for a cache hit)."""
    truncated: bool = False
    """A reply may be incomplete: cut at its output cap, or its stream ended early."""
    prompt_version: str = PROMPT_VERSION

    @property
    def redaction_total(self) -> int:
        """How many secrets were replaced before sending."""
        return sum(self.redactions.values())


def redact_blocks(
    messages: Sequence[Message], count: Counter_, limits: RenderLimits = RenderLimits()
) -> tuple[list[Block], Counter[str]]:
    """Render and redact each message separately (redacted before it is shortened), so no secret
    is ever split across chunks or cut in half."""
    blocks: list[Block] = []
    totals: Counter[str] = Counter()
    for message in messages:
        rendered = render_message(message, limits, totals)
        if rendered is None:
            continue
        blocks.append(Block(message.index, rendered, count(rendered)))
    return blocks, totals


def split_block(block: Block, capacity: int, count: Counter_) -> list[Block]:
    """Cut a block too big for one chunk into consecutive slices that each fit."""
    pieces = max(2, math.ceil(block.tokens / capacity))
    while True:
        size = math.ceil(len(block.text) / pieces)
        slices = [block.text[start : start + size] for start in range(0, len(block.text), size)]
        blocks = [Block(block.index, piece, count(piece)) for piece in slices]
        if all(part.tokens <= capacity for part in blocks) or size <= 1:
            return blocks
        pieces *= 2


def plan_chunks(blocks: Sequence[Block], capacity: int, count: Counter_) -> tuple[Chunk, ...]:
    """Pack blocks in order into as few chunks as fit `capacity` tokens each."""
    chunks: list[Chunk] = []
    current: list[Block] = []
    used = 0
    separator = count("\n\n")

    def flush() -> None:
        nonlocal current, used
        if current:
            text = "\n\n".join(part.text for part in current)
            chunks.append(Chunk(text, used, current[0].index, current[-1].index))
        current, used = [], 0

    for block in blocks:
        parts = split_block(block, capacity, count) if block.tokens > capacity else [block]
        for part in parts:
            extra = part.tokens + (separator if current else 0)
            if current and used + extra > capacity:
                flush()
                extra = part.tokens
            current.append(part)
            used += extra
    flush()
    return tuple(chunks)


def chunk_capacity(context_window: int, target_chars: int) -> int:
    """Return the transcript tokens one request can carry in a window of `context_window`."""
    margin = max(256, context_window // 20)
    capacity = context_window - output_tokens_for(target_chars) - PROMPT_OVERHEAD_TOKENS - margin
    if capacity < MIN_CHUNK_TOKENS:
        raise ConfigError(
            f"The summarizer's context_window ({context_window:,} tokens) is too small for a "
            f"{target_chars:,}-character summary; raise [summarizer] context_window or lower "
            "the target."
        )
    return capacity


def plan_summary_job(
    messages: Sequence[Message],
    *,
    context_window: int,
    target_chars: int = DEFAULT_TARGET_CHARS,
    head_only: bool = False,
    count: Counter_ = estimate_tokens,
    limits: RenderLimits = RenderLimits(),
) -> SummaryJob:
    """Render, redact and chunk `messages` for a summarizer with a `context_window`-token window."""
    capacity = chunk_capacity(context_window, target_chars)
    blocks, redactions = redact_blocks(messages, count, limits)
    digest = hashlib.sha256()
    for block in blocks:
        digest.update(block.text.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1e")
    return SummaryJob(
        chunks=plan_chunks(blocks, capacity, count),
        redactions=dict(sorted(redactions.items())),
        target_chars=target_chars,
        head_only=head_only,
        content_sha256=digest.hexdigest(),
        message_count=len(messages),
        capacity_tokens=capacity,
    )


def group_notes(notes: Sequence[str], capacity: int, count: Counter_) -> list[list[str]]:
    """Split notes into consecutive groups whose total fits `capacity`, for a multi-level reduce."""
    groups: list[list[str]] = [[]]
    used = 0
    for note in notes:
        size = count(note) + 16
        if groups[-1] and used + size > capacity:
            groups.append([])
            used = 0
        groups[-1].append(note)
        used += size
    return groups


@dataclass
class RunStats:
    """What a run did, filled in as it goes."""

    requests: int = 0
    truncated: bool = False


def _quiet(_: str) -> None:
    """Ignore a progress step."""


@dataclass
class _Runner:
    """Sends the requests of one job, counting them and stopping when cancelled."""

    job: SummaryJob
    backend: ChatBackend
    cancel: threading.Event | None
    count: Counter_
    stats: RunStats = field(default_factory=RunStats)

    def ask(self, messages: ChatMessages, stream_to: Callable[[str], None] | None) -> str:
        """Send one request, unless the user has cancelled."""
        if self.cancel is not None and self.cancel.is_set():
            raise SummaryCancelledError("The summary was cancelled.")
        self.stats.requests += 1
        reply = self.backend.complete(
            messages,
            max_output_tokens=output_tokens_for(self.job.target_chars),
            on_delta=stream_to,
            cancel=self.cancel,
        )
        self.stats.truncated = self.stats.truncated or reply.truncated
        return reply.text

    def reduce(
        self,
        notes: list[str],
        on_delta: Callable[[str], None] | None,
        progress: Callable[[str], None],
    ) -> str:
        """Merge part notes, in rounds while they are too big for one request."""
        target, head_only = self.job.target_chars, self.job.head_only
        while True:
            groups = group_notes(notes, self.job.capacity_tokens, self.count)
            if len(groups) == len(notes) > 1:
                # Notes too big to pair by size still halve in number each round, so this ends.
                groups = [list(notes[start : start + 2]) for start in range(0, len(notes), 2)]
            if len(groups) == 1:
                progress(f"merging {len(notes)} parts")
                return self.ask(reduce_prompt(notes, target, head_only), on_delta)
            progress(f"merging {len(notes)} parts in {len(groups)} groups")
            notes = [self.ask(reduce_prompt(group, target, head_only), None) for group in groups]


def run_summary(
    job: SummaryJob,
    backend: ChatBackend,
    *,
    on_delta: Callable[[str], None] | None = None,
    on_progress: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
    count: Counter_ = estimate_tokens,
) -> tuple[str, RunStats]:
    """Summarise each chunk, then reduce the notes; only the final answer streams to `on_delta`."""
    runner = _Runner(job, backend, cancel, count)
    progress = on_progress or _quiet
    parts = len(job.chunks)
    if parts == 0:
        raise ConfigError("There is nothing to summarise: the selected messages carry no text.")
    if parts == 1:
        first = map_prompt(job.chunks[0], 1, 1, job.target_chars, job.head_only)
        return runner.ask(first, on_delta), runner.stats
    notes = []
    for number, chunk in enumerate(job.chunks, 1):
        progress(f"summarising part {number} of {parts}")
        notes.append(runner.ask(map_prompt(chunk, number, parts, job.target_chars, job.head_only), None))
    return runner.reduce(notes, on_delta, progress), runner.stats


def describe_redactions(redactions: dict[str, int]) -> str:
    """Say how many secrets were redacted, by kind, in one short phrase."""
    total = sum(redactions.values())
    if not total:
        return "no secrets redacted"
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(redactions.items()))
    return f"{total} secret{'s' if total != 1 else ''} redacted ({kinds})"
