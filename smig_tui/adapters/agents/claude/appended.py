"""Provides `read_appended`: the messages of the lines a Claude Code transcript gained since it was
last read, when they simply continue its conversation.

A transcript is a tree (each record names its parent) whose active conversation is the chain back
from the newest record. New lines continue it when they form one chain hanging off the record the
conversation ended at (or a progress record after it). Anything else — a rewind that branches off
earlier, parallel tool results on side branches, a compaction, a sidechain, a damaged line, a
prompt without a uuid — means the whole transcript must be read again: then this returns None.
"""

from __future__ import annotations

import json
import os

from smig_tui.adapters.agents.claude.load import _QUEUED, _assemble, _Reader, line_texts
from smig_tui.adapters.agents.claude.scan import LINK_ONLY_TYPES, SKIPPED_TYPES, first_type, links
from smig_tui.adapters.append_resume import point_after, resume_point, still_prefix
from smig_tui.adapters.jsonl import SHAPE_ERRORS, iter_lines, parse_line, shape_warning
from smig_tui.adapters.stored_text import TextStore
from smig_tui.core.models import Session, SessionInfo
from smig_tui.core.ports import Appended, ResumePoint, WarningSink


def point_after_load(session: Session) -> ResumePoint | None:
    """The resume point after a full read: the file's end, and the record its conversation ended at."""
    last = max(session.messages, key=lambda message: message.line or 0, default=None)
    if last is None or last.line is None or last.offset is None or last.id.startswith("L"):
        return None  # no conversation yet, or it ends on a record without a uuid: read it whole next time
    state = json.dumps({"leaf": last.id.split("#")[0], "offset": last.offset})
    return resume_point(session.info, state, (last.line, last.offset))


def read_appended(info: SessionInfo, point: ResumePoint, first_position: int, warn: WarningSink) -> Appended | None:
    """The messages after `point`, numbered from `first_position`, or None when the transcript must be read whole."""
    if not point.state or not still_prefix(info.path, point):
        return None
    state = json.loads(point.state)
    tip = _tip(info.path, str(state["leaf"]), int(state["offset"]), point.offset)
    if tip is None:
        return None
    reader = _Reader(info, warn)
    reader.store = TextStore.for_file(info.path, os.stat(info.path).st_size, line_texts)
    end, next_line = point.offset, point.line
    for number, offset, raw, complete in iter_lines(info.path, point.offset, point.line):
        if not complete:  # still being written: read it next time, whole
            break
        end, next_line = offset + len(raw) + 1, number + 1
        line = raw.strip()
        if not line:
            continue
        kind = first_type(line)
        if kind in SKIPPED_TYPES:
            continue
        if kind in LINK_ONLY_TYPES and _QUEUED not in line and reader._link_only(line, number):
            continue
        data = parse_line(line, info.path, number, True, reader.report)
        if data is None:
            return None  # a damaged line may have cut the chain: the full read bridges it
        try:
            reader._record(data, number, offset, len(raw))
        except SHAPE_ERRORS as error:
            reader.report(shape_warning(info.path, number, error))
    if not _continues(reader, tip, info.is_subagent):
        return None
    session = _assemble(reader)
    new_point = point_after(info.path, end, next_line, _state_after(session, point.state))
    if new_point is None:
        return None
    return Appended(
        tuple(message.placed(first_position + n, message.usage) for n, message in enumerate(session.messages)),
        new_point,
    )


def _tip(path: str, leaf: str, leaf_offset: int, end: int) -> set[str] | None:
    """The leaf record and the records after it that hang off it (progress, system notes), or None
    when a conversation record follows it that the conversation did not take (a branch)."""
    tip = {leaf}
    for _, offset, raw, _ in iter_lines(path, leaf_offset):
        if offset >= end:
            break
        line = raw.strip()
        kind = first_type(line) if line else None
        if not line or kind in SKIPPED_TYPES:
            continue
        if offset == leaf_offset:
            continue  # the leaf itself
        if kind in LINK_ONLY_TYPES and _QUEUED not in line:
            found = links(line)
        else:  # anything else is parsed: a conversation record here is a branch the path did not take
            try:
                data = json.loads(line)
            except ValueError:
                return None
            if not isinstance(data, dict) or data.get("type") in ("user", "assistant") or _QUEUED in line:
                return None
            uuid, parent = data.get("uuid"), data.get("parentUuid")
            if not isinstance(uuid, str) or not uuid:
                continue  # bookkeeping with no place in the tree (api-request, mode, cost-state, ...)
            found = (uuid, parent) if parent is None or isinstance(parent, str) else None
        if found is None:
            return None
        if found[1] in tip:
            tip.add(found[0])
    return tip


def _continues(reader: _Reader, tip: set[str], subagent: bool) -> bool:
    """Tell whether the new records are one plain chain from the tip, every conversation record on it."""
    tree = reader.tree
    if tree.damaged or any(node.boundary or node.floating or (node.sidechain and not subagent) for node in tree.order):
        return False
    path = tree.active_path(own_chain_is_sidechain=subagent)
    on_path = {id(node) for node in path}
    if any(node.payload is not None and id(node) not in on_path for node in tree.order):
        return False
    roots = [node for node in tree.order if node.parent not in tree.nodes]
    return all(node.parent in tip for node in roots)


def _state_after(session: Session, previous: str) -> str:
    """The state for the next read: the newest conversation record, or the old one when none came."""
    last = max(session.messages, key=lambda message: message.line or 0, default=None)
    if last is None or last.offset is None:
        return previous
    return json.dumps({"leaf": last.id.split("#")[0], "offset": last.offset})
