"""Provides the one JSON parser the session readers use: orjson where it gives what `json.loads` gives,
`json.loads` itself everywhere else.

Parsing is most of reading a session, and orjson parses these lines in about half the CPU of the
standard library's C scanner. It refuses some text `json.loads` takes (lone surrogate escapes such
as `"\\ud800"`, NaN and Infinity, numbers beyond a double, invalid UTF-8, a BOM): those lines go to
`json.loads`, so a damaged or odd line reads, warns and fails exactly as it always did. One thing
it takes but gives differently: an integer beyond 64 bits becomes a float. Such an integer is at
least 19 digits long, so a line with a run of 19 digits (most often inside a string: harmless, it
only costs the slower parse) goes to `json.loads` too. The one difference left: a line nested deeper
than the standard parser follows (about 990 levels, less on a deeper stack) but less than orjson's
1,024 is read, where it was skipped as nested too deeply.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_DIGITS = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
"""Maps every ASCII digit to "0" and every other byte to a space, to find a long run of digits."""
_LONG_NUMBER = b"0" * 19
"""2**63 has 19 digits: an integer with fewer always fits orjson's 64 bits."""
_SCANNER: Any = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # the C scanner; typeshed omits it


def loads(raw: bytes) -> Any:
    """`json.loads(raw)` for a stripped line: the same value, or the same error (JSONDecodeError,
    RecursionError, UnicodeDecodeError)."""
    data = fast_loads(raw)
    return json.loads(raw) if data is None else data


def loads_text(text: str) -> Any:
    """`json.loads(text)` for a stripped line already decoded: the same value, or the same error.

    Reached for what orjson refused or cannot be trusted with; the C scanner alone skips three Python
    calls and two whitespace matches of `json.loads`, and whatever it rejects is parsed again by
    `json.loads`, so errors read exactly as before."""
    try:
        data, end = _SCANNER(text, 0)
    except (StopIteration, ValueError):
        return json.loads(text)
    return data if end == len(text) else json.loads(text)


def fast_loads(raw: bytes) -> Any:
    """The value orjson gives for `raw` when it is the value `json.loads` gives, else None (then the
    caller parses it the standard way, with its own error handling)."""
    if _LONG_NUMBER in raw.translate(_DIGITS):
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
