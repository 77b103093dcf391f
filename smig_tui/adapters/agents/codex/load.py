# smig: compiled with mypyc where it can (setup.py)
"""Provides `RolloutLoader`, which rebuilds a Codex thread's model-visible history from its records.

It follows what Codex does on resume: response items in order; a `compacted` line with a
replacement history replaces everything before it (without one, the typed prompts and the summary
remain); `thread_rolled_back` drops the newest user turns; usage comes from `token_count` events.
Prompts that exist only as `user_message` events (filtered rollouts) are kept too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from smig_tui.adapters.agents.codex.items import (
    RESPONSE_TYPES,
    ItemMessage,
    convert,
    cwd_from_environment,
    typed_prompt,
)
from smig_tui.adapters.agents.codex.scan import iso_or_none
from smig_tui.adapters.jsonl import SHAPE_ERRORS, Record, parse_line, shape_warning
from smig_tui.adapters.split_read import KINDS, ROLES
from smig_tui.adapters.stored_text import TEXT_CHARS, LineText, TextStore
from smig_tui.adapters.zstd_files import content_size, is_compressed
from smig_tui.core.models import (
    Kind,
    Message,
    ReadWarning,
    Role,
    Session,
    SessionInfo,
    StoredText,
    Usage,
    new_message,
    new_usage,
)
from smig_tui.core.ports import WarningSink

Draft = tuple[int, int, str, str | None, str | None, bool, bool, bool, int, tuple[str | None] | None]
"""(role, kind, text, tool name, call id, is_error, opaque, injected, length, environment): `length`
is -1 when `text` is whole, else the whole text's length with `text` its head; `environment` is
(its cwd,) when a long text is an `<environment_context>` block."""

_SKIPPED_TYPES = (b'"type":"world_state"', b'"type":"ghost_snapshot"')
_WANTED_EVENTS = (
    b'"type":"token_count"',
    b'"type":"user_message"',
    b'"type":"thread_rolled_back"',
)
_TIMESTAMP = re.compile(rb'^\{"timestamp":"([^"]{10,40})"')
_LEAD = re.compile(rb'^\{"timestamp":"([^"]{10,40})","type":"(\w+)","payload":\{"type":"(\w+)"')
"""How Codex itself writes a line's start: one match gives the time, the type and the payload type."""
_ISO_LEAD = re.compile(
    rb'^\{"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[^"]{0,21})","type":"(\w+)","payload":\{"type":"(\w+)"'
)
"""`_LEAD` whose time already passes `iso_or_none` (as every line Codex writes does), so it needs no second look."""
_LEAD_BYTES = 160
_SKIPPED = frozenset((b"world_state", b"ghost_snapshot"))
_EVENTS_WANTED = frozenset((b"token_count", b"user_message", b"thread_rolled_back"))


@dataclass(slots=True)
class _Prompt:
    """A typed prompt seen as an event, and where the history stood when it came."""

    position: int
    text: str
    id: str
    line: int
    offset: int
    timestamp: str | None


class RolloutLoader:
    """Accumulates one rollout's records, in file order, into a Session."""

    def __init__(self, path: str, keep_compacted: bool = False) -> None:
        self.path = path
        self.keep_compacted = keep_compacted
        """Keep what each compaction takes out of the history (for search), in `compacted_away`."""
        self.compacted_away: list[Message] = []
        self.prefix = ""
        """Put before message ids: empty for the thread's own file, the thread id for inherited ones."""
        self.store = _store_for(path)
        self.messages: list[Message] = []
        self.prompts: list[_Prompt] = []
        self.tool_names: dict[str, str] = {}
        self.meta: dict[str, Any] | None = None
        self.model: str | None = None
        self.cwd: str | None = None
        self.last_timestamp: str | None = None
        self.last_total: Any = None
        self.context_tokens: int | None = None
        self.window: int | None = None
        self.compactions = 0
        self.usages: dict[int, Usage] = {}
        """Usage per history position, applied once at the end: copying frozen messages costs."""
        self._count_tail: bytes | None = None
        """The bytes after the time of the last token count taken, when a line repeating them would
        change nothing (`skippable` skips such a line unparsed: Codex re-emits most counts)."""
        self._tested_count: tuple[int, bytes] | None = None
        """The offset and tail of the token count `skippable` last let through, for `_token_count`."""

    def begin_file(self, path: str, prefix: str) -> None:
        """Read the next file of the thread's lineage (a parent's, before the thread's own)."""
        self.store = _store_for(path)
        self.prefix = prefix
        self._tested_count = None

    def adopt_meta(self, payload: dict[str, Any]) -> None:
        """Take the thread's own session_meta first, so the inherited files' metas are ignored."""
        self._meta(payload)

    def skippable(self, raw: bytes, offset: int = -1) -> bool:
        """Tell from the raw line at `offset`, without parsing, that a record never matters to the history.

        A skipped line still moves `updated` on, so a full read agrees with discovery's tail read.
        """
        lead = _ISO_LEAD.match(raw, 0, _LEAD_BYTES) or _LEAD.match(raw, 0, _LEAD_BYTES)
        if lead is not None:  # the usual shape: decided from the two types alone
            kind, inner = lead.group(2, 3)
            skip = inner in _SKIPPED or kind in _SKIPPED or (kind == b"event_msg" and inner not in _EVENTS_WANTED)
            if not skip and inner == b"token_count" and lead.re is _ISO_LEAD:
                skip = self._repeated_count(raw, lead.group(1), lead.end(1), offset)
            if skip:
                stamp = lead.group(1).decode("ascii", "replace")
                self.last_timestamp = stamp if lead.re is _ISO_LEAD else iso_or_none(stamp) or self.last_timestamp
            return skip
        start = raw[:_LEAD_BYTES]
        skip = any(tag in start for tag in _SKIPPED_TYPES) or (
            b'"type":"event_msg"' in start and not any(tag in start for tag in _WANTED_EVENTS)
        )
        if skip:
            stamp = _TIMESTAMP.search(start)
            if stamp:
                self.last_timestamp = iso_or_none(stamp.group(1).decode("ascii", "replace")) or self.last_timestamp
        return skip

    def _repeated_count(self, raw: bytes, stamp: bytes, end: int, offset: int) -> bool:
        """Tell whether a token count line repeats, after its time, the last count taken; note it if not.

        Only a time that reads the same raw and parsed (ASCII, no escape, no second `timestamp` key)
        qualifies, so skipping the line moves `updated` exactly as feeding it would.
        """
        tail = raw[end:]
        if tail == self._count_tail and stamp.isascii() and b"\\" not in stamp and b'"timestamp"' not in tail:
            return True
        self._tested_count = (offset, tail)
        return False

    def feed(self, record: Record) -> None:
        """Take one record."""
        data = record.data
        stamp = iso_or_none(data.get("timestamp"))
        if stamp:
            self.last_timestamp = stamp
        payload = data.get("payload")
        kind = data.get("type")
        if not isinstance(payload, dict):
            self._bare(record, kind)
        elif kind == "response_item":
            self._item(record, payload, stamp)
        elif kind == "session_meta":
            self._meta(payload)
        elif kind == "turn_context":
            self._turn_context(payload)
        elif kind == "compacted":
            self._compacted(record, payload, stamp)
        elif kind == "event_msg":
            self._event(record, payload, stamp)

    def _bare(self, record: Record, kind: Any) -> None:
        """Bare-era lines: the first holds the meta, the rest are ResponseItems or state markers."""
        data = record.data
        if record.line == 1 and kind is None and "id" in data:
            self._meta(data)
        elif kind in RESPONSE_TYPES:
            self._items(record, [data], None, f"{self.prefix}L{record.line}")

    def _meta(self, payload: dict[str, Any]) -> None:
        """Keep the first session_meta only: later ones belong to replayed parent history."""
        if self.meta is None:
            self.meta = payload
            if isinstance(payload.get("cwd"), str):
                self.cwd = payload["cwd"]

    def _turn_context(self, payload: dict[str, Any]) -> None:
        """Take the model and cwd; the latest turn's model wins."""
        if isinstance(payload.get("model"), str) and payload["model"]:
            self.model = payload["model"]
        if self.cwd is None and isinstance(payload.get("cwd"), str):
            self.cwd = payload["cwd"]

    def _item(self, record: Record, payload: dict[str, Any], stamp: str | None) -> None:
        """Append the messages of a `response_item` line: `_items` for its one item, without the list
        and loop (a 500 MB rollout has 150,000 of them)."""
        drafts = convert(payload, self.tool_names)
        base_id = f"{self.prefix}L{record.line}"
        if len(drafts) == 1:
            self._append(drafts[0], record, stamp, base_id, 0)
            return
        for number, draft in enumerate(drafts, start=1):
            self._append(draft, record, stamp, f"{base_id}.{number}", number - 1)

    def _items(
        self, record: Record, items: list[Any], stamp: str | None, base_id: str, whole_line: bool = True
    ) -> None:
        """Append the messages that ResponseItems carry; several from one line get suffixed ids.

        Long texts of a line that holds one item are left on disk in a large file (`TextStore`); a
        compacted line's replacement history is held, as reading one item back would parse them all.
        """
        drafts: list[ItemMessage] = []
        for item in items:
            if isinstance(item, dict):
                drafts.extend(convert(item, self.tool_names))
        several = len(items) != 1 or len(drafts) != 1
        for number, draft in enumerate(drafts, start=1):
            message_id = f"{base_id}.{number}" if several else base_id
            self._append(draft, record, stamp, message_id, number - 1 if whole_line else None)

    def _append(
        self, draft: ItemMessage, record: Record, stamp: str | None, message_id: str, part: int | None = None
    ) -> None:
        """Freeze a draft into a Message at the end of the history; `part` is its place in a one-item line."""
        text = draft.text
        if self.cwd is None and text.lstrip().startswith("<environment_context"):
            self.cwd = cwd_from_environment(text)
        body: str | StoredText = text
        if part is not None and len(text) > TEXT_CHARS:  # `TextStore.body` keeps shorter ones as they are
            body = self.store.body(text, record.offset, record.size, part)
        self.messages.append(
            new_message(
                len(self.messages),
                message_id,
                draft.role,
                draft.kind,
                body,
                draft.tool_name,
                draft.call_id,
                stamp,
                record.line,
                record.offset,
                None,
                draft.is_error,
                draft.opaque,
                draft.injected,
            )
        )

    def feed_digest(
        self,
        line: int,
        offset: int,
        size: int,
        stamp: str | None,
        is_result: bool,
        learned: tuple[tuple[str, str], ...],
        drafts: tuple[Draft, ...],
    ) -> None:
        """Take a `response_item` line a worker converted (`split.read_tail`), as `feed` takes it parsed."""
        if stamp:
            self.last_timestamp = stamp
        names = self.tool_names
        for known_call, name in learned:
            names[known_call] = name
        base_id = f"{self.prefix}L{line}"
        several = len(drafts) != 1
        messages = self.messages
        for part, (role, kind, text, tool_name, call_id, is_error, opaque, injected, length, env) in enumerate(drafts):
            if is_result:  # the worker knew only the calls of its own part
                tool_name = names.get(call_id or "") or tool_name
            body: str | StoredText = text
            if length >= 0:  # a long text, `text` its head: left on disk as `TextStore.body` would
                body = LineText(self.store.path, offset, size, part, length, text, self.store.texts)
                if self.cwd is None and env is not None:
                    self.cwd = env[0]
            elif self.cwd is None and text.lstrip().startswith("<environment_context"):
                self.cwd = cwd_from_environment(text)
            messages.append(
                new_message(
                    len(messages),
                    f"{base_id}.{part + 1}" if several else base_id,
                    ROLES[role],
                    KINDS[kind],
                    body,
                    tool_name,
                    call_id,
                    stamp,
                    line,
                    offset,
                    None,
                    is_error,
                    opaque,
                    injected,
                )
            )

    def _compacted(self, record: Record, payload: dict[str, Any], stamp: str | None) -> None:
        """Replace the history as Codex does on resume.

        With a replacement history, that is the new history. Without one, Codex rebuilds it from the
        typed user messages so far plus the summary.
        """
        self.compactions += 1
        self.context_tokens = None  # the context measured before compaction is no longer in use
        history = payload.get("replacement_history")
        summary = payload.get("message")
        before = self._with_event_prompts() if self.keep_compacted else None
        if isinstance(history, list):
            self.messages = []
            self.prompts = []
            self.usages = {}
            self._items(record, history, stamp, f"{self.prefix}L{record.line}", whole_line=False)
            if isinstance(summary, str) and summary.strip():
                self._mark_summary(summary.strip())
        else:
            self._settle()
            typed = [m for m in self.messages if m.role is Role.USER and not m.injected]
            self.messages = [message.placed(index, None) for index, message in enumerate(typed)]
            if isinstance(summary, str) and summary.strip():
                self._append(
                    ItemMessage(Role.USER, Kind.SUMMARY, summary), record, stamp, f"{self.prefix}L{record.line}"
                )
        if before is not None:
            self._keep_compacted_away(before)

    def _keep_compacted_away(self, before: list[Message]) -> None:
        """Keep the messages a compaction took out: those the new history does not hold again."""
        kept_ids = {message.id for message in self.messages}
        kept_prompts = {message.text for message in self.messages if message.role is Role.USER}
        self.compacted_away.extend(
            message
            for message in before
            if not message.opaque
            and message.id not in kept_ids
            and not (message.role is Role.USER and message.text in kept_prompts)
        )

    def _settle(self) -> None:
        """Fold pending usage and event-only prompts into the history before it is rewritten."""
        self.messages = self._with_event_prompts()
        self.prompts = []
        self.usages = {}

    def _roll_back(self, turns: Any) -> None:
        """Drop the newest `turns` user turns, as Codex does for `thread_rolled_back`."""
        if not isinstance(turns, int) or turns <= 0:
            return
        self.context_tokens = None  # measured on the history that was just cut
        self._settle()
        starts = [
            index
            for index, message in enumerate(self.messages)
            if message.role is Role.USER and not message.injected and message.kind is not Kind.SUMMARY
        ]
        if starts:
            self.messages = self.messages[: starts[max(0, len(starts) - turns)]]

    def _mark_summary(self, summary: str) -> None:
        """Mark the summary: local compaction keeps it in the replacement history as a user turn."""
        for position in range(len(self.messages) - 1, -1, -1):
            message = self.messages[position]
            if message.role is Role.USER and message.kind is Kind.TEXT and message.text.rstrip().endswith(summary):
                self.messages[position] = replace(message, kind=Kind.SUMMARY)
                return

    def _event(self, record: Record, payload: dict[str, Any], stamp: str | None) -> None:
        """Use token counts, typed prompts and rollbacks; other events are UI noise here."""
        kind = payload.get("type")
        if kind == "token_count":
            self._token_count(payload.get("info"), record.offset)
        elif kind == "thread_rolled_back":
            self._roll_back(payload.get("num_turns"))
        elif kind == "user_message":
            text = typed_prompt(str(payload.get("message") or ""))
            if text:
                self.prompts.append(
                    _Prompt(len(self.messages), text, f"{self.prefix}L{record.line}", record.line, record.offset, stamp)
                )

    def _token_count(self, info: Any, offset: int = -1) -> None:
        """Attach a model call's usage to the message it produced; re-emitted events count once.

        A count whose line `skippable` saw is remembered by its bytes, unless it has no total (a line
        repeating it would be applied again): lines repeating it are then skipped unparsed.
        """
        tested, self._tested_count = self._tested_count, None
        repeatable = not isinstance(info, dict) or info.get("total_token_usage") is not None
        self._count_tail = tested[1] if tested is not None and tested[0] == offset and repeatable else None
        if not isinstance(info, dict) or not isinstance(info.get("last_token_usage"), dict):
            return
        if isinstance(info.get("model_context_window"), int) and info["model_context_window"] > 0:
            self.window = info["model_context_window"]
        total = info.get("total_token_usage")
        if total is not None and total == self.last_total:
            return
        self.last_total = total
        usage = usage_from(info["last_token_usage"])
        self.context_tokens = usage.context_tokens or None
        for position in range(len(self.messages) - 1, -1, -1):
            if self.messages[position].role is Role.ASSISTANT:
                self.usages[position] = usage
                break

    def finish(self, info: SessionInfo, warnings: tuple[ReadWarning, ...]) -> Session:
        """Build the Session, with the facts only a full read knows written into its info."""
        messages = self._with_event_prompts()
        meta = self.meta or {}
        model = self.model or info.model
        full_info = replace(
            info,
            cwd=self.cwd or info.cwd,
            project=info.project or self.cwd,
            model=model,
            updated=self.last_timestamp or info.updated,
            message_count=len(messages),
            context_tokens=self.context_tokens if self.context_tokens is not None else info.context_tokens,
            context_window=self.window or info.context_window,
        )
        return Session(
            info=full_info,
            messages=tuple(messages),
            warnings=warnings,
            instructions=instructions_from(meta),
            measured_context_tokens=self.context_tokens,
            compactions=self.compactions,
            extra=_extra(meta),
            compacted_away=tuple(self.compacted_away),
        )

    def _with_event_prompts(self) -> list[Message]:
        """Apply usage, add prompts no user message mirrors (dropped by the rollout), renumber."""
        messages = list(self.messages)
        for position, usage in self.usages.items():  # one model call in ten messages: copy only those
            messages[position] = messages[position].placed(messages[position].index, usage)
        if all(_mirrored(messages, prompt.position) for prompt in self.prompts):
            return messages
        for prompt in reversed(self.prompts):
            if _mirrored(messages, prompt.position):
                continue
            messages.insert(
                prompt.position,
                Message(
                    index=0,
                    id=prompt.id,
                    role=Role.USER,
                    kind=Kind.TEXT,
                    body=prompt.text,
                    timestamp=prompt.timestamp,
                    line=prompt.line,
                    offset=prompt.offset,
                ),
            )
        return [
            message if message.index == index else message.placed(index, message.usage)
            for index, message in enumerate(messages)
        ]


def feed_lines(
    loader: RolloutLoader,
    lines: Iterator[tuple[int, int, bytes, bool]],
    path: str,
    warn: WarningSink,
    ends_before: Callable[[int, dict[str, Any]], bool] | None = None,
) -> int:
    """Feed what `iter_lines` gives to `loader`, up to `ends_before` (an inherited part's end).

    Lines that never matter cost a byte test, the rest a parse; a record of an unexpected shape
    becomes a warning. Returns the number the next line would have.
    """
    number = 0
    for number, offset, raw, complete in lines:
        if loader.skippable(raw, offset):
            continue
        data = parse_line(raw, path, number, complete, warn)
        if data is None:
            continue
        if ends_before is not None and ends_before(offset, data):
            break
        try:
            loader.feed(Record(number, offset, data, len(raw)))
        except SHAPE_ERRORS as error:
            warn(shape_warning(path, number, error))
    return number + 1


def _store_for(path: str) -> TextStore:
    """Where long texts of a huge file go: left on disk, or packed in memory for a compressed file (no cheap seek)."""
    if is_compressed(path):
        return TextStore.for_compressed(path, content_size(path), line_texts)
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0  # the read that follows reports the error
    return TextStore.for_file(path, size, line_texts)


def line_texts(data: dict[str, Any]) -> Sequence[str]:
    """The texts a response-item line (or a bare-era item line) gives, in order, for `TextStore`."""
    payload = data.get("payload")
    item = payload if isinstance(payload, dict) else data
    return [draft.text for draft in convert(item, {})]


def _mirrored(messages: list[Message], position: int) -> bool:
    """Tell whether a typed user message sits in the same input stretch as an event's position."""
    for step in (-1, 1):
        index = position - 1 if step < 0 else position
        while 0 <= index < len(messages) and messages[index].role in (
            Role.USER,
            Role.DEVELOPER,
            Role.SYSTEM,
        ):
            if messages[index].role is Role.USER and not messages[index].injected:
                return True
            index += step
    return False


def usage_from(usage: dict[str, Any]) -> Usage:
    """Map Codex's TokenUsage; the context in use after a call is `total_tokens` (in + out)."""

    def number(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) and value > 0 else 0

    total = number("total_tokens") or number("input_tokens") + number("output_tokens")
    return new_usage(
        input_tokens=number("input_tokens"),
        cached_input_tokens=number("cached_input_tokens"),
        output_tokens=number("output_tokens"),
        reasoning_tokens=number("reasoning_output_tokens"),
        context_tokens=total,
    )


def instructions_from(meta: dict[str, Any]) -> str | None:
    """Return the base instructions, in either the newer `{text}` or the older string shape."""
    base = meta.get("base_instructions")
    if isinstance(base, dict) and isinstance(base.get("text"), str) and base["text"]:
        return str(base["text"])
    if isinstance(base, str) and base:
        return base
    old = meta.get("instructions")
    return old if isinstance(old, str) and old else None


def _extra(meta: dict[str, Any]) -> dict[str, str]:
    """Small facts worth showing: originator, provider, git branch and commit, agent nickname."""
    extra: dict[str, str] = {}
    for key in ("originator", "model_provider", "agent_nickname", "agent_role", "thread_source"):
        if isinstance(meta.get(key), str) and meta[key]:
            extra[key] = meta[key]
    git = meta.get("git")
    if isinstance(git, dict):
        for key, name in (("branch", "git_branch"), ("commit_hash", "git_commit")):
            if isinstance(git.get(key), str) and git[key]:
                extra[name] = git[key]
    return extra
