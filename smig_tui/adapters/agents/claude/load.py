# smig: compiled with mypyc where it can (setup.py)
"""Provides the full, streaming read of one Claude Code transcript into a neutral Session."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from smig_tui.adapters.agents.claude.blocks import (
    Converted,
    convert_queued,
    convert_record,
    queued_prompt,
)
from smig_tui.adapters.agents.claude.scan import (
    LINK_ONLY_TYPES,
    SKIPPED_TYPES,
    first_type,
    is_timestamp,
    links,
    looks_absolute,
    own_timestamp,
)
from smig_tui.adapters.agents.claude.split import QUEUED, TAIL_SHARE, read_split
from smig_tui.adapters.agents.claude.titles import TitleFacts, prompt_from_text
from smig_tui.adapters.agents.claude.tree import Node, PreservedSegment, Tree, in_model_order
from smig_tui.adapters.gc_pause import no_cyclic_gc
from smig_tui.adapters.jsonl import SHAPE_ERRORS, iter_lines, parse_line, shape_warning
from smig_tui.adapters.split_read import KINDS, ROLES, split_offset
from smig_tui.adapters.stored_text import LineText, TextStore
from smig_tui.core.errors import SessionReadError
from smig_tui.core.models import (
    Kind,
    Message,
    ReadWarning,
    Role,
    Session,
    SessionInfo,
    Usage,
    new_message,
    new_usage,
    settle_usage,
)
from smig_tui.core.ports import WarningSink

_QUEUED = QUEUED
"""Marks an attachment with a prompt the user sent mid-turn: it must be parsed, not skipped."""

_ENVELOPE = ("cwd", "version", "entrypoint", "gitBranch", "slug")
"""Envelope fields whose last value is reported."""

_MISPLACED = (
    "the messages this compaction kept (compactMetadata.preservedSegment) are not on the"
    " conversation path; they stay in file order"
)


@dataclass(slots=True)
class _Reader:
    """State of one streaming pass over a transcript."""

    info: SessionInfo
    warn: WarningSink
    tree: Tree = field(default_factory=Tree)
    titles: TitleFacts = field(default_factory=TitleFacts)
    warnings: list[ReadWarning] = field(default_factory=list)
    envelope: dict[str, str] = field(default_factory=dict)
    """Last value seen of cwd, version, entrypoint, gitBranch, slug; first cwd under `first_cwd`."""
    updated: str | None = None
    store: TextStore | None = None
    """Leaves long texts on disk when the transcript is large."""
    converted: int = 0
    """Messages converted so far: where the next ones land if the conversation never branched."""
    strings: dict[str, str] = field(default_factory=dict)
    """Tool names and open call ids, so messages share one string each (see `blocks._Stamp`)."""

    def report(self, warning: ReadWarning) -> None:
        """Keep a warning for the Session and pass it on."""
        self.warnings.append(warning)
        self.warn(warning)

    def read(self) -> None:
        """Stream every line once; bulky records cost a byte test, not a JSON parse.

        A huge transcript's second half is read by a worker meanwhile (`claude/split.py`).
        """
        path = self.info.path
        size = os.stat(path).st_size
        self.store = TextStore.for_file(path, size, line_texts)
        split = split_offset(path, size, TAIL_SHARE)
        if split is None:
            self.read_lines(iter_lines(path))
        else:
            read_split(self, split)

    def read_lines(self, lines: Iterator[tuple[int, int, bytes, bool]]) -> int:
        """Take the lines `iter_lines` gives; return the number the line after them would have."""
        path = self.info.path
        number = 0
        for number, offset, raw, complete in lines:
            line = raw.strip()
            if not line:
                continue
            kind = first_type(line)
            if complete and kind in SKIPPED_TYPES:
                continue
            bulky = complete and kind in LINK_ONLY_TYPES and _QUEUED not in line
            if bulky and self._link_only(line, number):
                continue
            data = parse_line(line, path, number, complete, self.report)
            if data is None:
                self._damaged(line, number)
                continue
            self.take_record(data, number, offset, len(raw))
        return number + 1

    def take_record(self, data: dict[str, Any], number: int, offset: int, size: int) -> None:
        """Take one parsed record; one of an unexpected shape becomes a warning."""
        try:
            self._record(data, number, offset, size)
        except SHAPE_ERRORS as error:
            self.report(shape_warning(self.info.path, number, error))

    def _link_only(self, line: bytes, number: int) -> bool:
        """Add a progress/attachment record to the tree from its bytes; False if that failed."""
        found = links(line)
        if found is None:
            return False
        self.tree.add(Node(uuid=found[0], parent=found[1], line=number))
        stamp = own_timestamp(line)
        if stamp:
            self.updated = stamp
        return True

    def _damaged(self, line: bytes, number: int) -> None:
        """Remember an unparseable line, keeping its links when they survived."""
        self.damaged(number, links(line))

    def damaged(self, number: int, found: tuple[str, str | None] | None) -> None:
        """Remember an unparseable line and the links read from its bytes (None if they did not survive)."""
        self.tree.damaged.append(number)
        if found is not None:
            self.tree.add(Node(uuid=found[0], parent=found[1], line=number))

    def linked(self, number: int, uuid: str, parent: str | None, stamp: str | None) -> None:
        """Add a progress/attachment record the worker read from its bytes (see `_link_only`)."""
        self.tree.add(Node(uuid=uuid, parent=parent, line=number))
        if stamp:
            self.updated = stamp

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
    ) -> None:
        """Take a user/assistant record the worker converted, as `_record` takes it parsed (`envelope`
        is None when it is the one noted last)."""
        if envelope is not None:
            self._note_envelope(envelope)
        if is_timestamp(stamp):
            self.updated = stamp
        drafts, notes, usage, group, model, answered, calls = converted
        first, strings, store = self.converted, self.strings, self.store
        messages: list[Message] = []
        for part, draft in enumerate(drafts):
            message_id, role, what, text, tool_name, call_id, timestamp, is_error, opaque, injected, output, length = (
                draft
            )
            what = KINDS[what]
            if what is Kind.TOOL_CALL:  # one string per name and open call, as `blocks._Stamp` shares them
                tool_name = None if tool_name is None else strings.setdefault(tool_name, tool_name)
                call_id = None if call_id is None else strings.setdefault(call_id, call_id)
            elif what is Kind.TOOL_RESULT and call_id is not None:
                call_id = strings.pop(call_id, call_id)
            body: str | LineText = text
            if (
                length >= 0 and store is not None
            ):  # a long text, `text` its head, left on disk as `TextStore.leave` would
                body = LineText(store.path, offset, size, part, length, text, store.texts)
            messages.append(
                new_message(
                    first + part,
                    message_id,
                    ROLES[role],
                    what,
                    body,
                    tool_name,
                    call_id,
                    timestamp,
                    number,
                    offset,
                    None,
                    is_error,
                    opaque,
                    injected,
                    output,
                )
            )
        payload = Converted(
            tuple(messages), notes, None if usage is None else new_usage(*usage), group, model, answered, calls
        )
        self.converted += len(messages)
        if kind == "user" and any(message.full_output_path for message in messages):
            payload.messages = tuple(self._locate_output(message) for message in messages)
        self.tree.add(Node(uuid, parent, number, sidechain=side, payload=payload))

    def _record(self, data: dict[str, Any], number: int, offset: int, size: int) -> None:
        """Dispatch one parsed record."""
        self._note_envelope(data)
        kind = data.get("type")
        conversation = kind == "user" or kind == "assistant"
        if not conversation and self.titles.take(data):
            return
        uuid = data.get("uuid")
        parent = data.get("parentUuid") if isinstance(data.get("parentUuid"), str) else None
        side = bool(data.get("isSidechain"))
        has_uuid = isinstance(uuid, str) and bool(uuid)
        key = uuid if isinstance(uuid, str) and uuid else f"L{number}"
        prompt = queued_prompt(data) if kind == "attachment" else None
        if conversation or prompt is not None:
            if prompt is not None:
                payload = convert_queued(data, prompt, number, offset, self.converted, self.strings)
            else:
                payload = convert_record(data, number, offset, self.converted, self.strings)
            self.converted += len(payload.messages)
            if kind == "user" and any(message.full_output_path for message in payload.messages):
                payload.messages = tuple(self._locate_output(message) for message in payload.messages)
            if self.store is not None and self.store.active:
                payload.messages = self.store.leave(payload.messages, offset, size)
            node = Node(key, parent, number, sidechain=side, payload=payload, floating=not has_uuid)
            self.tree.add(node)
        elif has_uuid:
            boundary = kind == "system" and data.get("subtype") == "compact_boundary"
            logical = data.get("logicalParentUuid") if boundary else None
            self.tree.add(
                Node(
                    uuid=key,
                    parent=parent,
                    line=number,
                    logical_parent=logical if isinstance(logical, str) else None,
                    sidechain=side,
                    boundary=boundary,
                    preserved=_preserved_segment(data) if boundary else None,
                )
            )

    def _locate_output(self, message: Message) -> Message:
        """Point a persisted tool output at the file that holds it: its name in this session's own
        `tool-results/` (right after a home was moved or copied too), else the recorded path if it
        is a `tool-results/` file; None when neither is there."""
        recorded = message.full_output_path
        if recorded is None:
            return message
        own = os.path.join(self.info.path[: -len(".jsonl")], "tool-results", os.path.basename(recorded))
        choices = (own, recorded) if os.path.basename(os.path.dirname(recorded)) == "tool-results" else (own,)
        found = next((path for path in choices if os.path.isfile(path)), None)
        return message if found == recorded else replace(message, full_output_path=found)

    def _note_envelope(self, data: dict[str, Any]) -> None:
        """Track the envelope fields worth reporting."""
        envelope, get = self.envelope, data.get
        for key in _ENVELOPE:
            value = get(key)
            if isinstance(value, str) and value:
                envelope[key] = value
        if "first_cwd" not in envelope and looks_absolute(data.get("cwd")):
            envelope["first_cwd"] = data["cwd"]
        stamp = data.get("timestamp")
        if is_timestamp(stamp):
            self.updated = stamp


def _preserved_segment(data: dict[str, Any]) -> PreservedSegment | None:
    """Read a compact boundary's `compactMetadata.preservedSegment`, when complete."""
    metadata = data.get("compactMetadata")
    segment = metadata.get("preservedSegment") if isinstance(metadata, dict) else None
    if not isinstance(segment, dict):
        return None
    head, tail, anchor = (segment.get(key) for key in ("headUuid", "tailUuid", "anchorUuid"))
    if not (isinstance(head, str) and isinstance(tail, str) and isinstance(anchor, str)):
        return None
    return PreservedSegment(head, tail, anchor)


def line_texts(data: dict[str, Any]) -> Sequence[str]:
    """The texts a user, assistant or queued-prompt record gives, in order, for `TextStore`."""
    prompt = queued_prompt(data)
    if prompt is not None:
        return [message.text for message in convert_queued(data, prompt, 0, 0).messages]
    return [message.text for message in convert_record(data, 0, 0).messages]


def load_session(info: SessionInfo, warn: WarningSink) -> Session:
    """Read a transcript in full and return its active conversation as a Session."""
    reader = _Reader(info, warn)
    with no_cyclic_gc():
        try:
            reader.read()
        except OSError as error:
            raise SessionReadError(f"Cannot read {info.path}: {error.strerror or error}.") from error
        session = _assemble(reader)
        del reader  # its tree, a node per record, goes before the collector is back: it would walk them all
    return session


@dataclass(slots=True)
class _Assembly:
    """Messages of the active path being put together."""

    messages: list[Message] = field(default_factory=list)
    measured: Usage | None = None
    model: str | None = None
    compactions: int = 0

    def take(self, path: list[Node], note: Callable[[Node, str], None]) -> None:
        """Append the messages of the path's records, passing their notes to `note`, and give each
        response's usage to its last message. One loop over 140,000 records, each freed as it is taken."""
        messages = self.messages
        last_of: dict[tuple[str, str], int] = {}
        usage_of: dict[tuple[str, str], Usage] = {}
        for node in path:
            if node.boundary:
                self.compactions += 1
            payload = node.payload
            if payload is None:
                continue
            node.payload = None  # its messages now live here: free the drafts as we go
            for text in payload.notes:
                note(node, text)
            drafts, at = payload.messages, len(messages)
            if drafts and (drafts[0].index != at or drafts[-1].index != at + len(drafts) - 1):
                drafts = tuple(draft.placed(at + k, draft.usage) for k, draft in enumerate(drafts))  # it branched
            messages.extend(drafts)
            if payload.model:
                self.model = payload.model
            usage = payload.usage
            if usage is None:
                continue
            if usage.context_tokens > 0:
                self.measured = usage
            key = payload.group or (node.uuid, "")
            known = usage_of.get(key)
            if known is None or usage.output_tokens >= known.output_tokens:
                usage_of[key] = usage  # later split records carry the final output count
            if drafts:
                last_of[key] = len(messages) - 1
        for key, index in last_of.items():
            settle_usage(messages[index], usage_of[key])


def _assemble(reader: _Reader) -> Session:
    """Pick the active path and turn it into a Session."""
    info = reader.info
    tree = reader.tree
    own_side = info.is_subagent or not any(node.payload is not None and not node.sidechain for node in tree.order)
    assembly = _Assembly()

    def misplaced(boundary: Node) -> None:
        reader.report(ReadWarning(info.path, boundary.line, _MISPLACED))

    def note(node: Node, text: str) -> None:
        reader.report(ReadWarning(info.path, node.line, text))

    assembly.take(in_model_order(tree.active_path(own_chain_is_sidechain=own_side), misplaced), note)
    messages = tuple(assembly.messages)
    reader.titles.first_prompt = _first_prompt(messages)
    envelope = reader.envelope
    measured = assembly.measured.context_tokens if assembly.measured else None
    updated_info = replace(
        info,
        cwd=envelope.get("first_cwd") or info.cwd,
        title=reader.titles.title(tree.nodes.__contains__) or info.title,
        model=assembly.model or info.model,
        updated=reader.updated or info.updated,
        source_version=envelope.get("version") or info.source_version,
        origin=envelope.get("entrypoint") or info.origin,
        message_count=len(messages),
        context_tokens=measured if measured is not None else info.context_tokens,
    )
    extra: dict[str, str] = {key: envelope[key] for key in ("gitBranch", "slug") if key in envelope}
    agent_type = _agent_type(info.path)
    if agent_type:
        extra["agentType"] = agent_type
    return Session(
        info=updated_info,
        messages=messages,
        warnings=tuple(reader.warnings),
        measured_context_tokens=measured,
        compactions=assembly.compactions,
        extra=extra,
    )


def _agent_type(path: str) -> str | None:
    """Read a sub-agent's type from its `agent-<id>.meta.json` sidecar, when there is one."""
    if not os.path.basename(path).startswith("agent-") or not path.endswith(".jsonl"):
        return None
    try:
        with open(path[: -len(".jsonl")] + ".meta.json", "rb") as handle:
            meta = json.loads(handle.read(64 * 1024))
    except (OSError, ValueError, RecursionError):
        return None  # the sidecar is optional and only informative
    kind = meta.get("agentType") if isinstance(meta, dict) else None
    return kind if isinstance(kind, str) and kind else None


def _first_prompt(messages: tuple[Message, ...]) -> str | None:
    """Return the first thing a person typed, for a title of last resort."""
    for message in messages:
        if message.role is not Role.USER or message.kind is not Kind.TEXT:
            continue
        if message.injected and "<command-name>" not in message.text:
            continue
        title = prompt_from_text(message.text)
        if title:
            return title
    return None
