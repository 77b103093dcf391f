# smig: compiled with mypyc where it can (setup.py)
"""Provides the one JSON parser the session readers use: msgspec where it gives what `json.loads` gives,
`json.loads` itself everywhere else.

Parsing is most of reading a session, and msgspec parses these lines in about half the CPU of the
standard library's C scanner. Its values are the standard parser's, integers of any size included;
it refuses some text `json.loads` takes (lone surrogate escapes such as `"\\ud800"`, NaN and Infinity,
numbers beyond a double, invalid UTF-8, a BOM, an integer of more digits than Python converts): those
lines go to `json.loads`, so a damaged or odd line reads, warns and fails exactly as it always did.
Nesting deeper than the standard parser follows fails in both, as a RecursionError.

orjson, the parser before it, turns an integer beyond 64 bits into a float, so every line had to be
searched for a run of 19 digits first: a search that cost as much CPU as the parse itself.
"""

from __future__ import annotations

import json
from typing import Any

_SCANNER: Any = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # the C scanner; typeshed omits it


SHORT_LINE = 2048
"""`loads` leaves lines shorter than this to `json.loads`: a warm `smig list` parses only Codex's index
of thread names (300 short lines), and importing msgspec costs it more than they take."""


def loads(raw: bytes) -> Any:
    """`json.loads(raw)` for one of the few lines a listing reads (heads, indexes): `parse`, short lines
    left to `json.loads` itself."""
    return json.loads(raw) if len(raw) < SHORT_LINE else parse(raw)


def parse(raw: bytes | str) -> Any:
    """`json.loads(raw)` for a reader's records, one at a time: the same value, or the same error
    (JSONDecodeError, RecursionError, UnicodeDecodeError, ValueError for an integer too long to convert)."""
    data = fast_loads(raw)
    return json.loads(raw) if data is None else data


def loads_text(text: str) -> Any:
    """`json.loads(text)` for a stripped line already decoded: the same value, or the same error.

    Reached for what msgspec refused; the C scanner alone skips three Python calls and two
    whitespace matches of `json.loads`, and whatever it rejects is parsed again by `json.loads`, so
    errors read exactly as before."""
    try:
        data, end = _SCANNER(text, 0)
    except (StopIteration, ValueError):
        return json.loads(text)
    return data if end == len(text) else json.loads(text)


def fast_loads(raw: bytes | str) -> Any:
    """The value msgspec gives for `raw`, which is the value `json.loads` gives, or None when it refuses
    the text (then the caller parses it the standard way, with its own error handling)."""
    try:
        return _decode(raw)
    except (ValueError, RecursionError):  # msgspec's DecodeError is a ValueError
        return None


def _first_decode(raw: bytes | str) -> Any:
    """Import msgspec at the first parse (a warm `smig list` parses nothing), then parse with it."""
    global _decode
    import msgspec

    _decode = msgspec.json.Decoder().decode
    return _decode(raw)


_decode = _first_decode
