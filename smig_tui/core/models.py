"""Provides the neutral, agent-independent model of sessions and messages.

Readers turn Codex rollouts and Claude Code transcripts into these frozen dataclasses; every other
part of smig (token counting, plans, writers, the TUI) works on them only.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, overload


class Agent(str):
    """The id of the coding agent a session belongs to, as written in records and on the command line.

    The agents are plugins (`core/agent_rules.py`, the `smig.agents` entry points): an id is checked
    against the installed ones where it comes in (CLI, MCP, config), not here, so a stored session of
    an agent that is no longer installed still reads.
    """

    __slots__ = ()

    @property
    def value(self) -> str:
        """The id as a plain string (as a `StrEnum` member gave it)."""
        return str.__str__(self)


class Role(StrEnum):
    """Who produced a message, in the terms both agents share."""

    SYSTEM = "system"
    DEVELOPER = "developer"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class Kind(StrEnum):
    """What a message carries."""

    TEXT = "text"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    REASONING = "reasoning"
    SUMMARY = "summary"
    IMAGE = "image"


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage an agent logged for one model call."""

    input_tokens: int = 0
    """Uncached prompt tokens (Claude) or all prompt tokens, cached included (Codex)."""
    cached_input_tokens: int = 0
    """Prompt tokens read from cache (Claude `cache_read_input_tokens`, Codex subset of input)."""
    cache_creation_tokens: int = 0
    """Prompt tokens written to cache (Claude only)."""
    output_tokens: int = 0
    """Completion tokens, reasoning included."""
    reasoning_tokens: int = 0
    """Reasoning share of the output, where logged."""
    context_tokens: int = 0
    """Tokens of context in use after this call: the figure to hold against a window."""

    def as_dict(self) -> dict[str, int]:
        """Its fields by name, as `dataclasses.asdict` gives them, at a fraction of its cost (asdict
        deep-copies every value; these are ints): a JSON export writes one per model call."""
        return {name: getattr(self, name) for name in _USAGE_FIELDS}


(
    _set_input_tokens,
    _set_cached_input_tokens,
    _set_cache_creation_tokens,
    _set_output_tokens,
    _set_reasoning_tokens,
    _set_context_tokens,
) = (getattr(Usage, name).__set__ for name in Usage.__slots__)
_USAGE_FIELDS = tuple(Usage.__dataclass_fields__)


def new_usage(
    input_tokens: int = 0,
    cached_input_tokens: int = 0,
    cache_creation_tokens: int = 0,
    output_tokens: int = 0,
    reasoning_tokens: int = 0,
    context_tokens: int = 0,
) -> Usage:
    """`Usage(...)` for readers, which make one per model call of a session (75,000 in a 500 MB
    Claude Code transcript): a frozen dataclass's `__init__` costs three times setting the slots
    directly. A test holds it equal to `Usage(...)`."""
    usage: Usage = object.__new__(Usage)
    _set_input_tokens(usage, input_tokens)
    _set_cached_input_tokens(usage, cached_input_tokens)
    _set_cache_creation_tokens(usage, cache_creation_tokens)
    _set_output_tokens(usage, output_tokens)
    _set_reasoning_tokens(usage, reasoning_tokens)
    _set_context_tokens(usage, context_tokens)
    return usage


class StoredText(Protocol):
    """A message text left in its source file and read back when asked for (an adapter makes it).

    Readers leave the long texts of huge sessions on disk, so a 500 MB session does not hold its
    tool outputs in memory; reading one back raises `SourceChangedError` if the file was rewritten.
    """

    @property
    def length(self) -> int:
        """Characters of the text."""
        ...

    @property
    def head(self) -> str:
        """The text's first few hundred characters, held for previews."""
        ...

    @property
    def class_head(self) -> str:
        """What its class of text is decided from (`core.text_classes`): the same first characters as a
        held text's where they are at hand without reading the source again (a packed text), else `head`."""
        ...

    def read(self) -> str:
        """Return the whole text from the source file."""
        ...

    def fingerprint(self) -> str:
        """A stable key of the stored text (a hash of its source line), read without parsing."""
        ...


@dataclass(frozen=True, slots=True)
class Message:
    """One item of a conversation, in source order; `text` is its readable content."""

    index: int
    """Position in `Session.messages`, from 0."""
    id: str
    """Stable id inside the session (Claude record uuid, or `L<line>` for Codex)."""
    role: Role
    kind: Kind
    body: str | StoredText
    """The text itself, or where a reader left a long one (`text` reads it either way)."""
    tool_name: str | None = None
    call_id: str | None = None
    """Links a tool call with its result."""
    timestamp: str | None = None
    """ISO 8601 UTC as the agent wrote it."""
    line: int | None = None
    """1-based line number in the source file."""
    offset: int | None = None
    """Byte offset of that line in the source file."""
    usage: Usage | None = None
    """Usage of the model call that produced this message, where the agent logged it."""
    is_error: bool = False
    """A tool result the agent marked as failed."""
    opaque: bool = False
    """Content the agent stored encrypted (Codex reasoning): kept as a marker, never decoded."""
    injected: bool = False
    """Context the harness injected (AGENTS.md, environment, meta), not typed by a person."""
    full_output_path: str | None = None
    """Where the whole output of a tool result lives when the agent stored it outside the session
    (Claude Code's `tool-results/`); `text` is then the preview the model saw, which counts use."""

    @property
    def text(self) -> str:
        """Readable text: the prose, the tool call's arguments, or the tool output."""
        body = self.body
        return body if isinstance(body, str) else body.read()

    @property
    def text_length(self) -> int:
        """Characters of `text`, known without reading a stored text back."""
        body = self.body
        return len(body) if isinstance(body, str) else body.length

    def placed(self, index: int, usage: Usage | None) -> Message:
        """A copy at another position with another usage: readers renumber every message, and
        `dataclasses.replace` costs several times this on 150,000 of them. A message already
        there is returned as it is, so a reader that numbers messages as it meets them copies none."""
        if index == self.index and usage is self.usage:
            return self
        return new_message(
            index,
            self.id,
            self.role,
            self.kind,
            self.body,
            self.tool_name,
            self.call_id,
            self.timestamp,
            self.line,
            self.offset,
            usage,
            self.is_error,
            self.opaque,
            self.injected,
            self.full_output_path,
        )

    def with_body(self, body: str | StoredText) -> Message:
        """A copy with another body (a reader leaving a long text on disk), cheaper than `replace`."""
        return new_message(
            self.index,
            self.id,
            self.role,
            self.kind,
            body,
            self.tool_name,
            self.call_id,
            self.timestamp,
            self.line,
            self.offset,
            self.usage,
            self.is_error,
            self.opaque,
            self.injected,
            self.full_output_path,
        )

    def head(self, chars: int) -> str:
        """The first `chars` characters of `text`; a stored text is read back only if its head is short."""
        body = self.body
        if isinstance(body, str):
            return body[:chars]
        return body.head[:chars] if chars <= len(body.head) else body.read()[:chars]


(
    _set_index,
    _set_id,
    _set_role,
    _set_kind,
    _set_body,
    _set_tool_name,
    _set_call_id,
    _set_timestamp,
    _set_line,
    _set_offset,
    _set_usage,
    _set_is_error,
    _set_opaque,
    _set_injected,
    _set_full_output_path,
) = (getattr(Message, name).__set__ for name in Message.__slots__)
_new_object = object.__new__


def new_message(
    index: int,
    id: str,
    role: Role,
    kind: Kind,
    body: str | StoredText,
    tool_name: str | None = None,
    call_id: str | None = None,
    timestamp: str | None = None,
    line: int | None = None,
    offset: int | None = None,
    usage: Usage | None = None,
    is_error: bool = False,
    opaque: bool = False,
    injected: bool = False,
    full_output_path: str | None = None,
) -> Message:
    """`Message(...)` for readers, which make one per line of a file: a frozen dataclass's `__init__`
    goes through `object.__setattr__` for each of the 15 fields, setting the slots directly costs
    half as much (0.1 s of a 500 MB session's load). A test holds it equal to `Message(...)`."""
    message: Message = _new_object(Message)
    _set_index(message, index)
    _set_id(message, id)
    _set_role(message, role)
    _set_kind(message, kind)
    _set_body(message, body)
    _set_tool_name(message, tool_name)
    _set_call_id(message, call_id)
    _set_timestamp(message, timestamp)
    _set_line(message, line)
    _set_offset(message, offset)
    _set_usage(message, usage)
    _set_is_error(message, is_error)
    _set_opaque(message, opaque)
    _set_injected(message, injected)
    _set_full_output_path(message, full_output_path)
    return message


def settle_usage(message: Message, usage: Usage | None) -> None:
    """Give a message the usage of the model call that produced it, in place: only for a reader, on a
    message it made itself and has handed to no one yet. A reader learns a response's usage at the
    response's last record, and copying each response's last message to add it (`placed`) cost
    63,000 copies, a tenth of a second, of reading a 500 MB Claude Code transcript."""
    _set_usage(message, usage)


@dataclass(frozen=True, slots=True)
class ReadWarning:
    """Something a reader skipped or could not understand, with where it was."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What is known about a session from its file head and tail, enough to list it."""

    id: str
    agent: Agent
    path: str
    cwd: str | None = None
    title: str | None = None
    model: str | None = None
    created: str | None = None
    """ISO 8601 UTC."""
    updated: str | None = None
    """ISO 8601 UTC of the last record seen (or the file mtime)."""
    source_version: str | None = None
    """Version of the agent that wrote the file (Codex `cli_version`, Claude `version`)."""
    origin: str | None = None
    """How the session was started: Codex `source`/`originator`, Claude `entrypoint`."""
    parent_id: str | None = None
    """Session this one was forked or spawned from."""
    is_subagent: bool = False
    """A sub-agent, review, compaction or `exec` session: hidden from listings by default."""
    size: int = 0
    mtime: float = 0.0
    message_count: int | None = None
    """Known only after a full read (or from the cache); None while unknown."""
    context_tokens: int | None = None
    """Context in use at the last model call, as the agent logged it."""
    context_window: int | None = None
    """The source model's window, where the agent logged it (Codex `model_context_window`)."""
    project: str | None = None
    """Grouping key: Claude project directory name, Codex cwd."""
    counted_tokens: int | None = None
    """smig's own o200k count of what would migrate, when the session was counted before and is unchanged."""
    root_record: str | None = None
    """Claude: uuid of the first conversation record. A native fork copies its parent's records,
    uuids included, so sessions sharing it are one conversation and its forks."""
    archived: bool = False
    """Read from smig's archive: the agent deleted the original file."""
    git_branch: str | None = None
    """The git branch its folder was on, as the agent last recorded it (Codex, Claude Code); None when unknown."""

    def as_dict(self) -> dict[str, Any]:
        """Its fields by name, as `dataclasses.asdict` gives them, at a twentieth of its cost (asdict
        deep-copies every value; these are flat): the listing cache stores one per session file."""
        return {name: getattr(self, name) for name in _INFO_FIELDS}


_INFO_FIELDS = tuple(SessionInfo.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class Session:
    """A fully read session: its info plus the messages on the active conversation path."""

    info: SessionInfo
    messages: tuple[Message, ...]
    warnings: tuple[ReadWarning, ...] = ()
    instructions: str | None = None
    """System or base instructions the source agent ran with, where recorded."""
    measured_context_tokens: int | None = None
    """Context in use at the last model call, from logged usage (de-duplicated)."""
    compactions: int = 0
    """How many times the agent compacted this conversation."""
    extra: dict[str, str] = field(default_factory=dict)
    """Small reader-specific facts worth showing (git branch, slug, …)."""
    compacted_away: tuple[Message, ...] = ()
    """Messages the file still holds that a compaction took out of the history (Codex replaces the
    history before a `compacted` line), when the reader was asked for them: search indexes them."""

    @property
    def id(self) -> str:
        """The session id."""
        return self.info.id


class Strategy(StrEnum):
    """How a session too large for its target is compressed."""

    AS_IS = "as-is"
    """No compression: the whole session fits."""
    TRUNCATE = "truncate"
    """Keep whole messages from the newest backwards; a placeholder note replaces the rest."""
    TOOLS_FIRST = "tools-first"
    """Shorten or drop old tool output before dropping conversation."""
    SUMMARY = "summary"
    """Replace the whole conversation with an LLM-written handoff summary."""
    SUMMARY_TAIL = "summary-tail"
    """An LLM-written summary of the dropped head, plus the newest messages verbatim."""


@dataclass(frozen=True, slots=True)
class AgentWindow:
    """How much of a model's window one agent lets a conversation fill, and where that came from."""

    agent: str
    """`codex` or `claude`."""
    window: int
    """The window the agent runs the model at (Codex `model_context_window`, Claude Code 1M or 200K)."""
    usable: int
    """What a conversation can fill before the agent compacts: Codex 95%, Claude Code ~33k less."""
    source: str
    """Where `window` comes from: the agent's catalog, or the user's own agent configuration."""
    max_window: int | None = None
    """The most the user may raise `window` to in the agent's configuration (Codex `max_context_window`)."""


@dataclass(frozen=True, slots=True)
class ModelCapacity:
    """What a target model can take, from the capacity table (with provenance)."""

    name: str
    provider: str
    context_window: int
    max_output: int
    encoding: str
    """tiktoken encoding used to count for it (`o200k_base`, `cl100k_base`, or `o200k_split_digits`)."""
    calibration: float = 1.0
    """Multiplier from that encoding's count to this provider's tokenizer (an estimate when not 1)."""
    harness_window: int | None = None
    """The usable share when run inside an agent harness (Codex, Claude Code auto-compact)."""
    source: str = ""
    """Where the figures come from (URL or table name) and when."""
    aliases: tuple[str, ...] = ()
    max_input: int | None = None
    """The prompt limit when the provider caps input below the window (GPT-5: 272k of 400k)."""
    status: str = "current"
    """`current`, `legacy` (still served, superseded) or `retired` (kept to read old sessions)."""
    retired: str | None = None
    """The date a retired model stopped being served."""
    replacement: str | None = None
    """The model to use instead of a retired one."""
    released: str | None = None
    tokenizer: str = ""
    """The tokenizer family (`claude-4.7`, `gemini`, …): models of one family count alike."""
    calibration_source: str = ""
    """How `calibration` was measured or estimated."""
    calibration_error: float | None = None
    """The measured worst error of `calibration` (0.16: ±16%); None when it was not measured."""
    class_calibration: tuple[tuple[str, float, float], ...] = ()
    """(text class, factor, measured error) per class of `core.text_classes`, when the tokenizer family
    was measured per class: each message is counted with its class's factor (`calibration` is then
    the family's average, for display)."""
    agents: tuple[AgentWindow, ...] = ()
    """The window inside each agent that runs the model; the first is its home agent (`harness_window`)."""
    sources: tuple[tuple[str, str], ...] = ()
    """Per-figure sources (`field`, source) where one differs from `source` (live fetches, overrides)."""
    route: str | None = None
    """The provider this entry holds figures for when they are that provider's own (a live listing of
    a model whose maker is another provider): it is then found as `route/name` only, never as `name`."""

    def source_of(self, figure: str) -> str:
        """Return where one figure (`context_window`, `max_output`, …) comes from."""
        if figure == "calibration" and self.calibration_source:
            return self.calibration_source
        given = dict(self.sources).get(figure)
        if given is not None:
            return given
        if figure == "harness_window" and self.agents and self.harness_window == self.agents[0].usable:
            return self.agents[0].source  # the home agent's usable window
        if getattr(self, figure, None) is None:
            return ""  # a figure the model does not have comes from nowhere
        return self.source


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether a session fits a target as it is, by its actual size."""

    target: str
    session_tokens: int
    """The session's size as the target would count it."""
    window: int
    reserve: int
    """Room kept free for the target's reply."""
    fits: bool
    prompt_limit: int | None = None
    """A cap on the prompt below `window - reserve` (input limit, or the harness's usable share)."""
    harness: bool = False
    """True when the target agent's harness share was applied (Codex 95%, Claude Code auto-compact)."""
    exact: bool = True
    """False when `session_tokens` is an estimate (offline fallback or another provider's tokenizer)."""
    partial: bool = False
    """True when messages older than what any plan keeps were guessed from their length, not counted:
    `session_tokens` is then approximate, but `fits` (False) is certain."""
    overhead: int = 0
    """Tokens the receiving agent adds to every request (its system prompt, tools, injected context)."""
    harness_agent: str | None = None
    """The agent whose compaction rule gave the harness share (the receiving agent); None when the user's
    config set the share or none was applied."""

    @property
    def budget(self) -> int:
        """Tokens available for the migrated conversation, after the receiving agent's overhead."""
        room = self.window - self.reserve
        if self.prompt_limit is not None:
            room = min(room, self.prompt_limit)
        return max(0, room - self.overhead)

    @property
    def over_by(self) -> int:
        """How many tokens must go for the session to fit (0 when it fits)."""
        return max(0, self.session_tokens - self.budget)


@dataclass(frozen=True, slots=True)
class PlanItem:
    """One source message's fate in a plan."""

    message: Message
    tokens: int
    """Tokens of the message as the target would receive it (after any shortening)."""
    kept: bool
    reason: str
    """Why: `newest`, `pinned`, `over budget`, `orphaned tool pair`, `tool output shortened`, …"""
    text: str | None = None
    """Replacement text when the plan shortened the message; None keeps the original."""
    original_tokens: int | None = None
    """Tokens before shortening, when `text` is set."""


_SET_ITEM_FIELDS = tuple(getattr(PlanItem, name).__set__ for name in PlanItem.__slots__)


def _new_plan_item(
    message: Message, tokens: int, kept: bool, reason: str, text: str | None, original_tokens: int | None
) -> PlanItem:
    """`PlanItem(...)` with its slots set directly, as `new_message` does: a frozen dataclass's `__init__`
    calls `object.__setattr__` per field, and a huge plan's JSON reads 280,000 items. A test holds
    it equal to `PlanItem(...)`."""
    item: PlanItem = _new_object(PlanItem)
    set_message, set_tokens, set_kept, set_reason, set_text, set_original = _SET_ITEM_FIELDS
    set_message(item, message)
    set_tokens(item, tokens)
    set_kept(item, kept)
    set_reason(item, reason)
    set_text(item, text)
    set_original(item, original_tokens)
    return item


class PlanItems(Sequence[PlanItem]):
    """A plan's items kept as columns (each message's tokens and fate), each `PlanItem` built when read.

    A huge session has a row per message and four plans of it are held at once, while a table shows
    a window of rows and a writer takes the kept ones: building 140k objects per plan cost seconds and
    hundreds of MB. Equal to the tuple of the same items. A message's fate, in order: never migrated
    (`skip`), pinned, dropped by a step, else kept from `keep_from` on; a shortened message kept has
    its new text, dropped it shows its original tokens.
    """

    __slots__ = (
        "_messages",
        "_tokens",
        "_keep_from",
        "_kept_reason",
        "_over_reason",
        "_skip",
        "_pinned",
        "_dropped",
        "_shortened",
        "_shortened_reason",
        "_tallies",
    )

    def __init__(
        self,
        messages: Sequence[Message],
        tokens: Sequence[int],
        keep_from: int,
        kept_reason: str,
        over_reason: str,
        skip: Mapping[int, str],
        pinned: Mapping[int, str] | None = None,
        dropped: Mapping[int, str] | None = None,
        shortened: Mapping[int, tuple[str, int]] | None = None,
        shortened_reason: str = "",
    ) -> None:
        self._messages, self._tokens, self._keep_from = messages, tokens, keep_from
        self._kept_reason, self._over_reason = kept_reason, over_reason
        self._skip, self._pinned, self._dropped = skip, pinned or {}, dropped or {}
        self._shortened, self._shortened_reason = shortened or {}, shortened_reason
        """Text and original tokens of each shortened message, by index."""
        self._tallies: dict[frozenset[str], tuple[int, int]] = {}
        """`tally` by the set of reasons asked for: a TUI tab words its line again on every resize."""

    def largest(self) -> int:
        """The most tokens one message has (a shortened one counted whole): what a column of counts must hold."""
        return max(self._tokens, default=0)

    def __len__(self) -> int:
        return len(self._messages)

    @overload
    def __getitem__(self, index: int) -> PlanItem: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[PlanItem, ...]: ...

    def __getitem__(self, index: int | slice) -> PlanItem | tuple[PlanItem, ...]:
        if isinstance(index, slice):
            return tuple(self._item(i) for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._item(index)

    def __iter__(self) -> Iterator[PlanItem]:
        return self.items_at(range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"PlanItems({len(self)} messages, kept from {self._keep_from})"

    def fate(self, i: int) -> tuple[bool, str, int]:
        """Whether message `i` is kept, why, and its tokens as its item shows them (no item built)."""
        if i in self._skip:
            kept, reason = False, self._skip[i]
        elif i in self._pinned:
            kept, reason = True, self._pinned[i]
        elif i in self._dropped:
            kept, reason = False, self._dropped[i]
        elif i >= self._keep_from:
            kept, reason = True, self._kept_reason
        else:
            kept, reason = False, self._over_reason
        if i in self._shortened:
            return (True, self._shortened_reason, self._tokens[i]) if kept else (False, reason, self._shortened[i][1])
        return kept, reason, self._tokens[i]

    def items_at(self, indices: Iterable[int]) -> Iterator[PlanItem]:
        """The items at `indices`, in that order: `_item` of each, from `fields_at` (a huge plan's JSON
        read 280,000 items, and two calls per item were most of their cost)."""
        return (_new_plan_item(*fields) for fields in self.fields_at(indices))

    def fields_at(self, indices: Iterable[int]) -> Iterator[tuple[Message, int, bool, str, str | None, int | None]]:
        """The fields of the items at `indices` (message, tokens, kept, reason, text, original tokens),
        in that order, no item built: `smig plan --json` writes a row of each of 139,000."""
        messages, tokens, keep_from = self._messages, self._tokens, self._keep_from
        skip, pinned, dropped, shortened = self._skip, self._pinned, self._dropped, self._shortened
        kept_reason, over_reason = self._kept_reason, self._over_reason
        for i in indices:
            if i in skip:
                kept, reason = False, skip[i]
            elif i in pinned:
                kept, reason = True, pinned[i]
            elif i in dropped:
                kept, reason = False, dropped[i]
            elif i >= keep_from:
                kept, reason = True, kept_reason
            else:
                kept, reason = False, over_reason
            if i in shortened:
                text, original = shortened[i]
                if kept:
                    yield messages[i], tokens[i], True, self._shortened_reason, text, original
                else:
                    yield messages[i], original, False, reason, None, None
                continue
            yield messages[i], tokens[i], kept, reason, None, None

    def _item(self, i: int) -> PlanItem:
        kept, reason, tokens = self.fate(i)
        if kept and i in self._shortened:
            text, original = self._shortened[i]
            return _new_plan_item(self._messages[i], tokens, True, reason, text, original)
        return _new_plan_item(self._messages[i], tokens, kept, reason, None, None)

    def tally(self, reasons: Container[str]) -> tuple[int, int]:
        """How many messages are dropped for one of `reasons`, and their tokens as their items show them.

        What `fate` says of each, from the columns: a TUI tab's line gives it for every plan shown,
        and a fate per message of a huge session took longer than the plan.
        """
        if isinstance(reasons, frozenset):
            known = self._tallies.get(reasons)
            if known is None:
                known = self._tallies[reasons] = self._tally(reasons)
            return known
        return self._tally(reasons)

    def _tally(self, reasons: Container[str]) -> tuple[int, int]:
        skip, pinned, dropped, shortened = self._skip, self._pinned, self._dropped, self._shortened
        tokens = self._tokens
        gone = [i for i, reason in skip.items() if reason in reasons]
        gone += [i for i, reason in dropped.items() if reason in reasons and i not in skip and i not in pinned]
        shown = sum(shortened[i][1] if i in shortened else tokens[i] for i in gone)
        if self._over_reason not in reasons:
            return len(gone), shown
        # Every message older than the kept tail that no other fate claims: the whole run's sum, less those.
        end = min(self._keep_from, len(self))
        claimed = {i for fated in (skip, pinned, dropped) for i in fated if i < end}
        shown += sum(tokens[:end]) - sum(map(tokens.__getitem__, claimed))
        shown += sum(original - tokens[i] for i, (_, original) in shortened.items() if i < end and i not in claimed)
        return len(gone) + end - len(claimed), shown

    def kept_indices(self) -> list[int]:
        """Indices of the kept messages, in order (no item built)."""
        skip, pinned, dropped, keep_from = self._skip, self._pinned, self._dropped, self._keep_from
        older = sorted(i for i in pinned if i < keep_from and i not in skip)
        tail = [i for i in range(keep_from, len(self)) if i not in skip and (i in pinned or i not in dropped)]
        return older + tail


class _ItemsAt(Sequence[PlanItem]):
    """Some of a plan's items, by index, each built when read: a huge session's plan drops 138,000
    messages, and `smig plan --json` asked for their count, their tokens and every item (420,000
    items built where 280,000 are read). Equal to the tuple of the same items."""

    __slots__ = ("_indices", "_items")

    def __init__(self, items: PlanItems, indices: list[int]) -> None:
        self._items, self._indices = items, indices

    def __len__(self) -> int:
        return len(self._indices)

    @overload
    def __getitem__(self, index: int) -> PlanItem: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[PlanItem, ...]: ...

    def __getitem__(self, index: int | slice) -> PlanItem | tuple[PlanItem, ...]:
        if isinstance(index, slice):
            return tuple(map(self._items._item, self._indices[index]))
        return self._items._item(self._indices[index])

    def __iter__(self) -> Iterator[PlanItem]:
        return self._items.items_at(self._indices)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"{tuple(self)!r}"


def kept_indices(items: Sequence[PlanItem]) -> list[int]:
    """Indices of the kept items, in order: from the columns when the items are `PlanItems`."""
    if isinstance(items, PlanItems):
        return items.kept_indices()
    return [i for i, item in enumerate(items) if item.kept]


def fates(items: Sequence[PlanItem]) -> Iterator[tuple[bool, str, int]]:
    """(kept, reason, tokens) of every item, in order, without building items that are columns."""
    if isinstance(items, PlanItems):
        return (items.fate(i) for i in range(len(items)))
    return ((item.kept, item.reason, item.tokens) for item in items)


@dataclass(frozen=True, slots=True)
class Plan:
    """The full, previewable outcome of migrating one session to one target."""

    strategy: Strategy
    decision: Decision
    items: Sequence[PlanItem]
    """One per source message, in order (`PlanItems` from the planner, built as they are read)."""
    placeholder: str | None = None
    """The note put at the top in place of what was dropped."""
    summary: str | None = None
    """The LLM summary, for summary strategies, once written."""
    summary_budget: int = 0
    """Tokens reserved for the summary in summary strategies."""
    tokens_before: int = 0
    tokens_after: int = 0
    notes: tuple[str, ...] = ()
    """Plain sentences about the plan worth showing: over budget, summary pending, estimates."""

    @property
    def kept(self) -> Sequence[PlanItem]:
        """Items that survive, in source order (of `PlanItems`, a view: its length builds no item)."""
        items = self.items
        if isinstance(items, PlanItems):
            return _ItemsAt(items, items.kept_indices())
        return tuple(items[i] for i in kept_indices(items))

    @property
    def dropped(self) -> Sequence[PlanItem]:
        """Items that are dropped, in source order (of `PlanItems`, a view: its length builds no item)."""
        items = self.items
        if isinstance(items, PlanItems):
            kept = set(items.kept_indices())
            return _ItemsAt(items, [i for i in range(len(items)) if i not in kept])
        return tuple(item for item in items if not item.kept)
