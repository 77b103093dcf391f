"""Provides `read_appended`: the messages of the lines a Codex rollout gained since it was last read.

Codex only appends to a live rollout, so its new lines usually just add turns. Lines that rewrite
the history already read (a `compacted` line, a `thread_rolled_back` event) or a typed prompt that
only an event holds (placed by what came before) mean the whole thread must be read again: then
this says so by returning None. A compressed rollout is never read on.
"""

from __future__ import annotations

from smig_tui.adapters.agents.codex.load import RolloutLoader
from smig_tui.adapters.agents.codex.load import _mirrored as mirrored  # the full read's own rule
from smig_tui.adapters.append_resume import point_after, still_prefix
from smig_tui.adapters.jsonl import SHAPE_ERRORS, Record, iter_lines, parse_line, shape_warning
from smig_tui.adapters.zstd_files import is_compressed
from smig_tui.core.ports import Appended, ResumePoint, WarningSink


def read_appended(path: str, point: ResumePoint, first_position: int, warn: WarningSink) -> Appended | None:
    """The messages after `point`, numbered from `first_position`, or None when the rollout must be read whole."""
    if is_compressed(path) or not still_prefix(path, point):
        return None
    loader = RolloutLoader(path)
    end, next_line = point.offset, point.line
    for number, offset, raw, complete in iter_lines(path, point.offset, point.line):
        if not complete:  # still being written: read it next time, whole
            break
        end, next_line = offset + len(raw) + 1, number + 1
        if loader.skippable(raw, offset):
            continue
        data = parse_line(raw, path, number, complete, warn)
        if data is None:
            continue
        if _rewrites_history(data):
            return None
        try:
            loader.feed(Record(number, offset, data, len(raw)))
        except SHAPE_ERRORS as error:
            warn(shape_warning(path, number, error))
    messages = loader.messages
    if not all(mirrored(messages, prompt.position) for prompt in loader.prompts):
        return None
    new_point = point_after(path, end, next_line)
    if new_point is None:
        return None
    return Appended(
        tuple(message.placed(first_position + n, message.usage) for n, message in enumerate(messages)), new_point
    )


def _rewrites_history(data: dict[str, object]) -> bool:
    """Tell whether a record changes messages before it: a compaction or a rollback."""
    kind = data.get("type")
    payload = data.get("payload")
    if kind == "compacted":
        return True
    return kind == "event_msg" and isinstance(payload, dict) and payload.get("type") == "thread_rolled_back"
