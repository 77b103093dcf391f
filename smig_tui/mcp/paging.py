"""Provides the one way every large tool result is paged: at most `max_chars` UTF-8 bytes of JSON a page.

Every client cuts a long tool result, each in its own unit: Codex at about 48 KB, OpenCode at 51,200
bytes, Gemini CLI at 40,000 characters (JavaScript's, so a character outside the BMP counts twice),
Claude Code between 53 and 85 KB. A UTF-8 byte count is never below the count of characters in any
of those senses, so a page measured in bytes and kept under the smallest limit arrives whole in all
four, Japanese and emoji included. A page is a list's items from `offset` (or a text's characters
from `offset`) that fit in the budget with the rest of the result; `next_offset` and `next_page` say
how to get the next one, and are null on the last page.
"""

from __future__ import annotations

import json
from typing import Any

from smig_tui.core.errors import SmigError
from smig_tui.mcp.schemas import MAX_PAGE_CHARS

ENVELOPE = 400
"""Characters kept free for the paging fields themselves and the JSON around them."""

MIN_CONTENT = 200
"""Bytes of the paged content every page carries, however large the result around it."""


class InvalidArgumentError(SmigError):
    """A tool argument is malformed; the message names it."""

    exit_code = 2


def json_size(value: Any) -> int:
    """UTF-8 bytes of `value` as the client receives it (compact JSON, non-ASCII kept as is)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def page_items(
    result: dict[str, Any], key: str, items: list[Any], offset: int, max_chars: int, call: str
) -> dict[str, Any]:
    """`result` with `key` set to the items from `offset` that fit in `max_chars` bytes, and how to get the rest.

    The first item of a page is always included; one too large alone has its longest texts cut,
    and says so in `cut_chars`.
    """
    _check_offset(offset, len(items))
    room = max_chars - json_size(result) - ENVELOPE - len(call)
    chosen: list[Any] = []
    used = 0
    for item in items[offset:]:
        size = json_size(item) + 1
        if chosen and used + size > room:
            break
        if not chosen and size > room:
            item = shrink(item, max(room, 200))
            size = json_size(item) + 1
        chosen.append(item)
        used += size
    end = offset + len(chosen)
    return {**result, key: chosen, **_links(offset, end, len(items), call)}


def page_text(result: dict[str, Any], key: str, text: str, offset: int, max_chars: int, call: str) -> dict[str, Any]:
    """`result` with `key` set to the characters of `text` from `offset` whose JSON fits in `max_chars` bytes.

    The longest such slice is found by halving: its size only grows with its length, and each
    character takes one to six bytes (escapes such as `\\n`, and CJK or emoji in UTF-8).
    """
    _check_offset(offset, len(text))
    room = max(200, max_chars - json_size(result) - ENVELOPE - len(call))
    low, high = offset + 1, min(len(text), offset + room)  # a character costs at least one byte
    while low < high:
        middle = (low + high + 1) // 2
        if json_size(text[offset:middle]) <= room:
            low = middle
        else:
            high = middle - 1
    end = low
    return {**result, key: text[offset:end], "total_chars": len(text), **_links(offset, end, len(text), call)}


def fit_head(result: dict[str, Any], droppable: tuple[str, ...], max_chars: int, call: str) -> dict[str, Any]:
    """`result` less as few of its `droppable` keys (in that order) as leave a page of `max_chars` room for content.

    A small page under a large head (a migration written for many agents names each written file) would
    otherwise break its own budget. A key is left out whole, never cut, and the page says which and what
    `max_chars` brings them back.
    """

    def fits(head: dict[str, Any]) -> bool:
        return json_size(head) + ENVELOPE + len(call) + MIN_CONTENT <= max_chars

    if fits(result):
        return result
    whole = json_size(result) + ENVELOPE + len(call) + MIN_CONTENT
    head, left_out = dict(result), []
    for key in droppable:
        if key not in head:
            continue
        del head[key]
        left_out.append(key)
        asked = whole  # the whole head fits exactly when `whole` <= max_chars
        back = (
            f"call {call} with max_chars={asked:,} or more for them"
            if asked <= MAX_PAGE_CHARS
            else "no page holds them all"
        )
        marked = {
            **head,
            "head_left_out": list(left_out),
            "head_note": f"{', '.join(left_out)} left out to keep this page within max_chars={max_chars:,}; {back}.",
        }
        if fits(marked):
            return marked
    return marked if left_out else result


def _links(offset: int, end: int, total: int, call: str) -> dict[str, Any]:
    """Where this page starts and how to ask for the next one."""
    following = end if end < total else None
    hint = (
        f"This is part of the result. For the next page call {call} with the same arguments and offset={following}."
        if following is not None
        else None
    )
    return {"offset": offset, "next_offset": following, "next_page": hint}


def _check_offset(offset: int, total: int) -> None:
    """An offset past the end is a mistake worth a sentence, not an empty page."""
    if offset > total or (offset == total and total > 0):
        raise InvalidArgumentError(
            f"offset {offset:,} is past the end; the result has {total:,} (0 to {max(total - 1, 0):,})."
        )


def shrink(item: Any, room: int) -> Any:
    """A copy of `item` with its longest strings cut until its JSON fits in `room` bytes (a character cut is a byte or more)."""
    cut = 0
    for _ in range(20):
        over = json_size(item) - room
        if over <= 0:
            break
        path, text = _longest_string(item, ())
        if not path or len(text) < 40:
            break
        keep = max(0, len(text) - over - 40)
        cut += len(text) - keep
        item = _replace(item, path, text[:keep] + " …[cut]")
    if cut and isinstance(item, dict):
        item = {**item, "cut_chars": cut}
    return item


def _longest_string(value: Any, path: tuple[Any, ...]) -> tuple[tuple[Any, ...], str]:
    """The path to and the value of the longest string inside `value`."""
    if isinstance(value, str):
        return path, value
    best: tuple[tuple[Any, ...], str] = ((), "")
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found = _longest_string(child, (*path, key))
        if len(found[1]) > len(best[1]):
            best = found
    return best


def _replace(value: Any, path: tuple[Any, ...], text: str) -> Any:
    """A copy of `value` with the string at `path` replaced."""
    if not path:
        return text
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, text)}
    copy = list(value)
    copy[head] = _replace(copy[head], rest, text)
    return copy
