"""Provides `indented_json`: `json.dumps(value, indent=2, ensure_ascii=False, default=str)`, in pieces, faster.

With an indent, the standard library encodes in Python, one generator step per token: the 139,000 rows
of a 500 MB session's `smig plan --json` took about 2 s. Here an object whose values are all scalars
(the rows of every long list smig prints) is one f-string of C-encoded scalars; everything else goes
through the standard encoder, so the text is the same byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

INDENT = "  "
_ENCODER = json.JSONEncoder(indent=2, ensure_ascii=False, default=str)
_encode_string = json.encoder.encode_basestring  # the C function, when the accelerator is built
_LITERALS: dict[Any, str] = {None: "null", True: "true", False: "false"}


class LazyList:
    """A list whose items are made while it is written: `indented_json` encodes it as the list of
    those items, holding one at a time (a huge session's messages as objects took 0.4 GB at once)."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items


_NOTHING = object()


def indented_json(value: Any) -> Iterator[str]:
    """Yield the text of `value` as `json.dumps(value, indent=2, ensure_ascii=False, default=str)`."""
    yield from _pieces(value, 0)


def _pieces(value: Any, depth: int) -> Iterator[str]:
    """The text of one value whose first line is already indented to `depth`."""
    kind = type(value)
    if kind is dict and value and all(type(key) is str for key in value):
        flat = _flat_object(value, depth)
        if flat is not None:
            yield flat
            return
        inner = "\n" + INDENT * (depth + 1)
        yield "{"
        for number, (key, item) in enumerate(value.items()):
            yield ("," if number else "") + inner + _encode_string(key) + ": "
            yield from _pieces(item, depth + 1)
        yield "\n" + INDENT * depth + "}"
    elif kind is LazyList:
        yield from _lazy_pieces(value, depth)
    elif kind is list and value:
        inner = "\n" + INDENT * (depth + 1)
        yield "["
        for number, item in enumerate(value):
            yield ("," if number else "") + inner
            yield from _pieces(item, depth + 1)
        yield "\n" + INDENT * depth + "]"
    else:  # scalars, empty containers, tuples, non-string keys, objects for `default`: as the encoder does
        text = _scalar(value)
        yield text if text is not None else _reindent(_ENCODER.encode(value), depth)


def _lazy_pieces(value: LazyList, depth: int) -> Iterator[str]:
    """A `LazyList` as the list of its items (`[]` when it has none, known at its first item)."""
    items = iter(value.items)
    first = next(items, _NOTHING)
    if first is _NOTHING:
        yield "[]"
        return
    inner = "\n" + INDENT * (depth + 1)
    yield "[" + inner
    yield from _pieces(first, depth + 1)
    for item in items:
        yield "," + inner
        yield from _pieces(item, depth + 1)
    yield "\n" + INDENT * depth + "]"


def _flat_object(value: dict[str, Any], depth: int) -> str | None:
    """The text of an object whose values are all strings, ints, booleans or None; else None."""
    inner = ",\n" + INDENT * (depth + 1)
    parts = []
    for key, item in value.items():
        text = _scalar(item)
        if text is None:
            return None
        parts.append(_encode_string(key) + ": " + text)
    return "{\n" + INDENT * (depth + 1) + inner.join(parts) + "\n" + INDENT * depth + "}"


def _scalar(value: Any) -> str | None:
    """The text of a string, an int, a boolean or None (exact types only: a subclass goes to the encoder)."""
    kind = type(value)
    if kind is str:
        return _encode_string(value)
    if kind is int:
        return int.__repr__(value)
    if value is None or kind is bool:
        return _LITERALS[value]
    return None


def _reindent(text: str, depth: int) -> str:
    """Shift the later lines of a value encoded at depth 0 to `depth` (encoded strings hold no newline)."""
    return text.replace("\n", "\n" + INDENT * depth) if depth and "\n" in text else text


BLOCK_CHARS = 1 << 16


def blocks(pieces: Iterable[str], size: int = BLOCK_CHARS) -> Iterator[str]:
    """Many small pieces of text joined into blocks of about `size` characters (a few writes, not millions)."""
    block: list[str] = []
    length = 0
    for piece in pieces:
        block.append(piece)
        length += len(piece)
        if length >= size:
            yield "".join(block)
            block.clear()
            length = 0
    if block:
        yield "".join(block)
