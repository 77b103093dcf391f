"""The readers' one JSON parser gives exactly what `json.loads` gives, line for line: msgspec where it
reads the text, the standard parser for what msgspec refuses."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import msgspec
import pytest

from smig_tui.adapters.json_parse import SHORT_LINE, fast_loads, loads, loads_text, parse
from smig_tui.adapters.jsonl import iter_records
from smig_tui.core.models import ReadWarning

FIXTURES = Path(__file__).parents[1] / "fixtures"

REFUSED = {
    "lone high surrogate": rb'{"t":"\ud800"}',
    "lone low surrogate": rb'{"t":"a\udc00b"}',
    "NaN": b'{"n":NaN}',
    "Infinity": b'{"n":-Infinity}',
    "a number beyond a double": b'{"n":1e400}',
    "invalid UTF-8": b'{"t":"caf\xe9"}',
    "an encoded surrogate": b'{"t":"\xed\xa0\x80"}',
}
"""Lines msgspec refuses and `json.loads` reads."""

BIG_INTEGERS = {
    "2**64": b'{"n":18446744073709551616}',
    "below -2**63": b'{"n":[-9223372036854775809]}',
    "a JavaScript 2**64": b'{"input":{"id":18446744073709552000},"k":1}',
    "30 digits": b'{"n":123456789012345678901234567890}',
}
"""Lines with integers beyond 64 bits, which orjson (the parser before) read as floats."""


def _padded(raw: bytes) -> bytes:
    """The same object with a long string first, so that `loads` takes the fast parse (`SHORT_LINE`)."""
    assert raw.startswith(b"{")
    return b'{"pad":"' + b"x" * SHORT_LINE + b'",' + raw[1:]


def _same(left: Any, right: Any) -> bool:
    """Equal values of equal types all the way down (1 == 1.0 and nan != nan otherwise hide a difference)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(_same(left[key], right[key]) for key in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, float) and math.isnan(left):
        return math.isnan(right)
    return bool(left == right)


def _outcome(parse: Any, raw: Any) -> tuple[Any, ...]:
    """What a parse gives: its value, or its error's type and message."""
    try:
        return ("value", parse(raw))
    except (ValueError, RecursionError) as error:
        return ("error", type(error), str(error))


def _same_outcome(left: tuple[Any, ...], right: tuple[Any, ...]) -> bool:
    return _same(left[1], right[1]) if left[0] == right[0] == "value" else left == right


@pytest.mark.parametrize("raw", REFUSED.values(), ids=list(REFUSED))
def test_what_msgspec_refuses_is_read_as_json_loads_reads_it(raw: bytes) -> None:
    with pytest.raises(msgspec.DecodeError):
        msgspec.json.decode(raw)  # else this case tests nothing
    assert fast_loads(raw) is None
    for line in (raw, _padded(raw)):
        assert _same_outcome(_outcome(loads, line), _outcome(json.loads, line))
    text = raw.decode("utf-8", errors="replace")
    assert _same_outcome(_outcome(loads_text, text), _outcome(json.loads, text))


@pytest.mark.parametrize("raw", BIG_INTEGERS.values(), ids=list(BIG_INTEGERS))
def test_an_integer_beyond_64_bits_stays_an_exact_integer_on_the_fast_parse(raw: bytes) -> None:
    assert _same(fast_loads(raw), json.loads(raw))
    assert _same(loads(_padded(raw)), json.loads(_padded(raw)))


def test_an_integer_too_long_to_convert_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    """`json.loads` refuses an integer of more digits than Python converts (4,300) with a plain ValueError."""
    raw = b'{"n":' + b"7" * 5000 + b"}"
    with pytest.raises(ValueError, match="4300"):
        json.loads(raw)
    assert fast_loads(raw) is None
    path = tmp_path / "long.jsonl"
    path.write_bytes(raw + b'\n{"ok":1}\n')
    warnings: list[ReadWarning] = []
    assert [record.data for record in iter_records(str(path), warnings.append)] == [{"ok": 1}]
    assert [(w.line, w.message) for w in warnings] == [
        (1, "number too long to read (thousands of digits); line skipped")
    ]


def test_the_largest_64_bit_integers_and_long_digit_strings_read_the_same() -> None:
    for raw in (
        b'{"n":18446744073709551615,"m":-9223372036854775808}',
        b'{"id":"12345678901234567890123","n":1.5e300,"z":-0,"f":0.30000000000000004}',
    ):
        assert _same(fast_loads(raw), json.loads(raw))
        assert _same(loads(_padded(raw)), json.loads(_padded(raw)))


@pytest.mark.parametrize(
    "raw",
    [b'{"a":1', b'{"a":"\x01"}', b'\xef\xbb\xbf{"a":1}', b"[1,]", b'{"a":1} x', b""],
    ids=["truncated", "control character", "BOM", "trailing comma", "trailing text", "empty"],
)
def test_text_both_refuse_raises_what_json_loads_raises(raw: bytes) -> None:
    assert _outcome(loads, raw) == _outcome(json.loads, raw)
    if raw.startswith(b"{"):
        assert _outcome(loads, _padded(raw)) == _outcome(json.loads, _padded(raw))
        assert fast_loads(_padded(raw)) is None
    text = raw.decode("utf-8")
    assert _outcome(loads_text, text) == _outcome(json.loads, text)
    assert _outcome(json.loads, text)[0] == "error"


def test_a_fixture_sessions_lines_parse_as_json_loads_parses_them() -> None:
    lines = 0
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        for raw in path.read_bytes().splitlines():
            stripped = raw.strip()
            if not stripped:
                continue
            try:
                expected = json.loads(stripped)
            except (ValueError, RecursionError):
                continue
            assert _same(loads(stripped), expected), f"{path}: {stripped[:80]!r}"
            fast = fast_loads(stripped)
            if fast is not None:
                assert _same(fast, expected), f"{path}: {stripped[:80]!r}"
                lines += 1
    assert lines > 1000


def test_a_damaged_file_reads_and_warns_as_before(tmp_path: Path) -> None:
    """Through the readers' line parser: each refused line is read or warned about as `json.loads` would."""
    path = tmp_path / "odd.jsonl"
    path.write_bytes(b"\n".join([*REFUSED.values(), *BIG_INTEGERS.values(), b'{"ok":true}', b"[1]", b"null"]) + b"\n")
    warnings: list[ReadWarning] = []
    records = [record.data for record in iter_records(str(path), warnings.append)]
    expected = [
        json.loads(raw.decode("utf-8", errors="replace")) for raw in [*REFUSED.values(), *BIG_INTEGERS.values()]
    ]
    assert all(map(_same, records, [*expected, {"ok": True}]))
    assert len(records) == len(expected) + 1
    assert [w.message for w in warnings] == [
        "invalid UTF-8 replaced with U+FFFD",
        "invalid UTF-8 replaced with U+FFFD",
        "line is JSON list, not an object; skipped",
        "line is JSON NoneType, not an object; skipped",
    ]


def test_integers_that_fit_64_bits_take_the_fast_parse() -> None:
    for raw in (b'{"n":999999999999999999}', b'{"n":-999999999999999999,"t":"12345678901234567"}'):
        assert fast_loads(raw) == json.loads(raw)


@pytest.mark.parametrize("depth", [1024, 100_000])
def test_nesting_too_deep_is_left_to_json_loads_and_its_recursion_error(depth: int) -> None:
    raw = b'{"a":' + b"[" * depth + b"]" * depth + b"}"
    assert fast_loads(raw) is None
    with pytest.raises(RecursionError):
        loads(raw)


def test_nesting_the_standard_parser_follows_takes_the_fast_parse() -> None:
    raw = b'{"a":' + b"[" * 500 + b"]" * 500 + b"}"
    assert fast_loads(raw) == json.loads(raw)


@pytest.mark.parametrize(
    "text",
    [
        *(raw.decode("utf-8", errors="replace") for raw in [*REFUSED.values(), *BIG_INTEGERS.values()]),
        '{"t":"a lone \ud800 held as a character"}',
        '{"t":"caf\u00e9 \u65e5\u672c \ud83d\ude00","n":[1.5,-0,1e400]}',
        ' {"padded":true}\n',
        '{"a":1} x',
        "[1,]",
    ],
)
def test_parse_gives_what_json_loads_gives_for_text_too(text: str) -> None:
    """Database rows arrive as text (OpenCode's and Crush's parts): `parse` takes them as they are."""
    assert _same_outcome(_outcome(parse, text), _outcome(json.loads, text))
    assert _same_outcome(
        _outcome(parse, text.encode("utf-8", "surrogatepass")),
        _outcome(json.loads, text.encode("utf-8", "surrogatepass")),
    )
