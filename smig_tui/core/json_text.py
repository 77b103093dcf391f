"""Provides `indented_json`: `json.dumps(value, indent=2, ensure_ascii=False, default=str)`, in pieces, faster.

With an indent, the standard library encodes in Python, one generator step per token: the 139,000 rows
of a 500 MB session's `smig plan --json` took about 2 s. Here an object made of scalars, objects and
short lists (a message with its usage) is one string joined from C-encoded scalars; a long list is
written an item at a time, and the long lists of rows smig prints (`FlatRows`) by orjson a batch at a
time; anything else goes through the standard encoder, so the text is the same byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

import orjson

INDENT = "  "
_ENCODER = json.JSONEncoder(indent=2, ensure_ascii=False, default=str)
_encode_basestring = json.encoder.encode_basestring  # the C function, when the accelerator is built
_SHORT = 32
"""Below this many characters the standard encoder is the faster one (orjson's call costs more)."""


def encode_string(text: str) -> str:
    """`json.encoder.encode_basestring(text)`: the JSON string, non-ASCII kept. orjson writes a long
    text in a quarter of the CPU (encoding the texts was a fifth of a 500 MB session's
    `smig show --json`); a text it refuses (a lone surrogate) is encoded the standard way."""
    if len(text) < _SHORT:
        return _encode_basestring(text)
    try:
        return orjson.dumps(text).decode()
    except TypeError:
        return _encode_basestring(text)


_LITERALS: dict[Any, str] = {None: "null", True: "true", False: "false"}


class LazyList:
    """A list whose items are made while it is written: `indented_json` encodes it as the list of
    those items, holding one at a time (a huge session's messages as objects took 0.4 GB at once)."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items


class JoinedText:
    """A string written as `separator.join(map("".join, parts))` would be, its parts made while it is
    written, each given as the pieces it is joined from (one export turn of a session's tool calls and
    results, a 500 MB session's whole run after one prompt, was joined and encoded whole: 3 GB; a huge
    tool output is written as it is, not copied into its frame)."""

    __slots__ = ("parts", "separator")

    def __init__(self, separator: str, parts: Iterable[Sequence[str]]) -> None:
        self.separator, self.parts = separator, parts


class FlatRows:
    """A list of objects of string keys and string, int, boolean and None values or such objects (the
    rows of a huge plan, a huge session's messages), which `indented_json` writes with orjson a batch
    at a time: one C call per batch, where `_whole` made a dozen Python calls per row (a tenth of a
    500 MB session's `smig plan --json`). The text is the same byte for byte; a batch orjson refuses
    (a lone surrogate, an int beyond 64 bits, a subclass of str or int) is written the standard way.
    No floats or plain enums: orjson writes those its own way. Rows are made as they are written."""

    __slots__ = ("batch", "rows", "text_key")

    def __init__(self, rows: Iterable[dict[str, Any]], batch: int = 0, text_key: str | None = None) -> None:
        self.rows = rows
        self.batch = batch or ROW_BATCH
        """Rows encoded in one call: fewer where a row may hold a long text (their texts are held twice)."""
        self.text_key = text_key
        """The key of a text that may be huge: a row whose text has `LONG_TEXT_CHARS` or more is written
        alone, the standard way (orjson's text of a 100 MB one, decoded and indented, is three more copies)."""


ROW_BATCH = 256
"""Rows `FlatRows` encodes in one call: large enough that the call's cost vanishes, small enough to hold."""
MESSAGE_BATCH = 64
"""Rows encoded in one call where each holds a message's whole text, which may be long (held twice while
its batch is encoded): `smig show --json`, the JSON export."""
LONG_TEXT_CHARS = 1 << 20
"""A row's text this long is not given to orjson (`FlatRows.text_key`): a JSON export of a session of one
100 MB message peaked at 656 MB that way, 445 MB written alone. A string this long anywhere is written a
`STRING_PIECE` at a time (`_string_pieces`)."""
STRING_PIECE = 1 << 16
"""Characters of a huge string encoded at a time: encoded whole, then joined to its key and its row, a
100 MB text was held three more times while it was written. Small, as orjson's buffer for a piece of
non-ASCII text is about ten times its characters in bytes (21 MB for a million)."""


_NOTHING = object()


def indented_json(value: Any) -> Iterator[str]:
    """Yield the text of `value` as `json.dumps(value, indent=2, ensure_ascii=False, default=str)`."""
    yield from _pieces(value, 0)


def _pieces(value: Any, depth: int) -> Iterator[str]:
    """The text of one value whose first line is already indented to `depth`."""
    kind = type(value)
    if kind is dict and value:
        whole = _whole(value, depth)
        if whole is not None:
            yield whole
            return
        if all(type(key) is str for key in value):
            inner = "\n" + INDENT * (depth + 1)
            yield "{"
            for number, (key, item) in enumerate(value.items()):
                yield ("," if number else "") + inner + encode_string(key) + ": "
                yield from _pieces(item, depth + 1)
            yield "\n" + INDENT * depth + "}"
            return
    elif kind is LazyList:
        yield from _lazy_pieces(value, depth)
        return
    elif kind is JoinedText:
        yield from _joined_pieces(value)
        return
    elif kind is FlatRows:
        yield from _flat_pieces(value, depth)
        return
    elif kind is str and len(value) >= LONG_TEXT_CHARS:
        yield from _string_pieces(value)
        return
    elif kind is list and value:
        inner = "\n" + INDENT * (depth + 1)
        yield "["
        for number, item in enumerate(value):
            yield ("," if number else "") + inner
            yield from _pieces(item, depth + 1)
        yield "\n" + INDENT * depth + "]"
        return
    # scalars, empty containers, tuples, non-string keys, objects for `default`: as the encoder does
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


def _joined_pieces(value: JoinedText) -> Iterator[str]:
    """A `JoinedText` as the JSON string of its parts joined: JSON escapes each character on its own, so
    the parts' encodings, quotes taken off, joined by the separator's, are the whole's."""
    separator = encode_string(value.separator)[1:-1]
    yield '"'
    for number, part in enumerate(value.parts):
        if number:
            yield separator
        if len(part) == 1 and len(part[0]) < LONG_TEXT_CHARS:
            yield encode_string(part[0])[1:-1]
        elif sum(map(len, part)) < LONG_TEXT_CHARS:
            yield encode_string("".join(part))[1:-1]
        else:
            for piece in part:
                yield from _inner_pieces(piece)
    yield '"'


def _string_pieces(text: str) -> Iterator[str]:
    """A string's JSON text, a `STRING_PIECE` of it encoded at a time (as `_joined_pieces`, each character
    is escaped on its own, so the pieces' encodings are the whole's)."""
    yield '"'
    yield from _inner_pieces(text)
    yield '"'


def _inner_pieces(text: str) -> Iterator[str]:
    """A string's JSON text without its quotes, a `STRING_PIECE` at a time."""
    if len(text) < LONG_TEXT_CHARS:
        yield encode_string(text)[1:-1]
        return
    for start in range(0, len(text), STRING_PIECE):
        yield encode_string(text[start : start + STRING_PIECE])[1:-1]


_ROW_OPTIONS = (
    orjson.OPT_INDENT_2
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
"""Indented as `indented_json` indents; a subclass of str or int, a dataclass or a date (which orjson would
write its own way, the standard encoder another) goes to `_refuse`."""


def _refuse(value: Any) -> Any:
    raise TypeError(type(value).__name__)


def _flat_pieces(value: FlatRows, depth: int) -> Iterator[str]:
    """`FlatRows` as the list of its rows, a batch of them encoded by orjson at a time."""
    inner = "\n" + INDENT * (depth + 1)
    shift = "\n" + INDENT * depth
    opening = "["
    rows = iter(value.rows)
    while batch := list(islice(rows, value.batch)):
        for run, alone in _runs(batch, value.text_key):
            text = None if alone else _encoded(run)
            if text is None:  # a row with a huge text, or what orjson refuses or would write otherwise
                for row in run:
                    yield opening + inner
                    yield from _pieces(row, depth + 1)
                    opening = ","
                continue
            body = text[4:-2]  # the rows, less the list's own "[\n  " and "\n]"; their lines indented for depth 0
            yield opening + inner + (body.replace("\n", shift) if depth else body)
            opening = ","
    yield "[]" if opening == "[" else shift + "]"


def _runs(batch: list[dict[str, Any]], text_key: str | None) -> Iterator[tuple[list[dict[str, Any]], bool]]:
    """The batch in runs for orjson, each row whose `text_key` text is huge in a run of its own (True)."""
    if text_key is None:
        yield batch, False
        return
    start = 0
    for at, row in enumerate(batch):
        text = row.get(text_key)
        if type(text) is str and len(text) >= LONG_TEXT_CHARS:
            if at > start:
                yield batch[start:at], False
            yield [row], True
            start = at + 1
    if start < len(batch):
        yield batch[start:], False


def _encoded(rows: list[dict[str, Any]]) -> str | None:
    """The rows as orjson writes a list of them, indented; None when it refuses one or would write it
    otherwise than the standard encoder."""
    try:
        return orjson.dumps(rows, default=_refuse, option=_ROW_OPTIONS).decode()
    except TypeError:
        return None


WHOLE_ITEMS = 64
"""A list this long or shorter may be part of a value encoded whole; a longer one is written in pieces."""


def _whole(value: Any, depth: int) -> str | None:
    """The text of an object or list made only of strings shorter than `LONG_TEXT_CHARS`, ints, finite
    floats, booleans, None, objects with string keys and lists of at most `WHOLE_ITEMS`, as one string;
    else None (nothing is left out)."""
    kind = type(value)
    if kind is dict:
        if not value:
            return "{}"
        pairs = value.items()
    elif kind is list:
        if not value:
            return "[]"
        if len(value) > WHOLE_ITEMS:
            return None
        pairs = value
    else:
        return _scalar(value)
    parts = []
    for pair in pairs:
        if kind is dict:
            key, item = pair
            if type(key) is not str:
                return None
            head = encode_string(key) + ": "
        else:
            head, item = "", pair
        item_kind = type(item)
        if item_kind is str:
            if len(item) >= LONG_TEXT_CHARS:
                return None  # written in pieces (`_string_pieces`), not joined into one string
            text = encode_string(item)
        elif item_kind is int:
            text = int.__repr__(item)
        elif item is None or item_kind is bool:
            text = _LITERALS[item]
        else:
            whole = _whole(item, depth + 1)
            if whole is None:
                return None
            text = whole
        parts.append(head + text)
    inner = "\n" + INDENT * (depth + 1)
    opening, closing = ("{", "}") if kind is dict else ("[", "]")
    return opening + inner + ("," + inner).join(parts) + "\n" + INDENT * depth + closing


def _scalar(value: Any) -> str | None:
    """The text of a string, an int, a finite float, a boolean or None (exact types only: a subclass,
    NaN and the infinities go to the encoder)."""
    kind = type(value)
    if kind is str:
        return encode_string(value)
    if kind is int:
        return int.__repr__(value)
    if value is None or kind is bool:
        return _LITERALS[value]
    if kind is float and -_INFINITY < value < _INFINITY:
        return float.__repr__(value)
    return None


_INFINITY = float("inf")


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
