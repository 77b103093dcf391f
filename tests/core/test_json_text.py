"""`indented_json` writes exactly what `json.dumps(indent=2, ensure_ascii=False, default=str)` writes."""

from __future__ import annotations

import enum
import json
import random
from datetime import datetime
from json.encoder import encode_basestring
from typing import Any

import pytest

from smig_tui.core.json_text import ROW_BATCH, FlatRows, LazyList, blocks, encode_string, indented_json


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


def _standard(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


CASES: list[Any] = [
    None,
    True,
    0,
    -7,
    1.5,
    float("nan"),
    "",
    'a "quoted"\nline\t\u0001 é 😀 \u2028',
    [],
    {},
    [[]],
    [{}],
    {"a": {}, "b": [], "c": [{}], "d": [[1, [2, {}]]]},
    {"rows": [{"index": i, "id": f"m{i}", "kept": i % 2 == 0, "reason": None, "tokens": i * 10} for i in range(5)]},
    {"nested": {"flat": {"x": 1}, "mixed": {"f": 2.5, "s": "t"}}},
    {1: "int key", None: "none key", False: "bool key", 2.5: "float key"},
    {"tuple": (1, "two", (3,)), "when": datetime(2026, 12, 4, 18, 0)},
    {"enum": Colour.RED, "level": Level.HIGH, "big": 10**30},
    [{"deep": [{"deeper": [{"x": None}]}]}],
    {"inf": float("inf"), "minus": float("-inf"), "floats": [0.1, -2.0, 1e16, 1e-7, 5e-324]},
    {"at the limit": list(range(64)), "past it": list(range(65)), "then": {"x": [{"y": 1}] * 65}},
    {"message": {"index": 1, "usage": {"input_tokens": 3}, "text": "\ud800 lone"}, "after": (1,)},
]


@pytest.mark.parametrize("value", CASES, ids=range(len(CASES)))
def test_the_same_text_as_the_standard_encoder(value: Any) -> None:
    assert "".join(indented_json(value)) == _standard(value)


def _random_value(rng: random.Random, depth: int) -> Any:
    choice = rng.randrange(9 if depth < 4 else 5)
    if choice == 0:
        return rng.choice([None, True, False])
    if choice == 1:
        return rng.randint(-(10**12), 10**12)
    if choice == 2:
        return rng.random() * 1000
    if choice in (3, 4):
        return "".join(rng.choice('ab "\\\n\té😀\u0000') for _ in range(rng.randrange(6)))
    if choice in (5, 6):
        return {f"k{n}": _random_value(rng, depth + 1) for n in range(rng.randrange(4))}
    return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def test_random_documents_match_the_standard_encoder() -> None:
    rng = random.Random(22)
    for _ in range(500):
        value = _random_value(rng, 0)
        assert "".join(indented_json(value)) == _standard(value)


@pytest.mark.parametrize("value", CASES)
def test_a_lazy_list_is_written_as_the_list_of_its_items(value: Any) -> None:
    """In a document, a `LazyList` of items reads as the list of those items (`[]` when it has none)."""
    for items in ([], [value], [value, {"next": value}, [value]]):
        document = {"before": 1, "rows": LazyList(iter(items)), "after": [LazyList(iter(items))]}
        expected = {"before": 1, "rows": items, "after": [items]}
        assert "".join(indented_json(document)) == _standard(expected)


def test_blocks_join_pieces_without_changing_them() -> None:
    pieces = [str(number) * (number % 7) for number in range(5000)]
    joined = list(blocks(pieces, 100))
    assert "".join(joined) == "".join(pieces) and all(len(block) < 100 + max(map(len, pieces)) for block in joined)


def test_encode_string_writes_long_texts_as_the_standard_encoder_does() -> None:
    """orjson writes the long texts; every character a text can hold comes out as `encode_basestring` writes it,
    and a lone surrogate, which orjson refuses, too."""
    every = "".join(map(chr, range(0x800))) + "\U0001f600\u2028\u2029\ufeff\uffff\x7f"
    for text in (every, every * 3, "a" * 31 + "\n", "a" * 32 + "\x00", "x" * 40 + "\ud800" + "y" * 40, "é"):
        assert encode_string(text) == encode_basestring(text)


def _row(rng: random.Random, number: int) -> dict[str, Any]:
    """A plan row's shape with every kind of value it may hold, and text orjson and the encoder must agree on."""
    text = "".join(rng.choice('ab "\\\n\t\x00\x1f\x7fé😀\u2028\ufeff') for _ in range(rng.randrange(40)))
    return {
        "index": number,
        "id": text,
        "tokens": rng.choice([0, -1, 2**63 - 1, -(2**63), rng.randrange(10**6)]),
        "kept": rng.random() < 0.5,
        "reason": rng.choice([None, "over budget", text]),
        "empty": rng.choice(["", {}, []]) if number % 3 else "",
    }


@pytest.mark.parametrize("count", [0, 1, ROW_BATCH - 1, ROW_BATCH, 2 * ROW_BATCH + 5])
def test_flat_rows_are_written_as_the_list_of_those_rows(count: int) -> None:
    """orjson writes the rows a batch at a time, at any depth, as the standard encoder writes the list."""
    rng = random.Random(count)
    rows = [_row(rng, number) for number in range(count)]
    document = {"head": 1, "items": FlatRows(iter(rows)), "deeper": {"items": FlatRows(rows[:3])}}
    expected = {"head": 1, "items": rows, "deeper": {"items": rows[:3]}}
    assert "".join(indented_json(document)) == _standard(expected)
    assert "".join(indented_json(FlatRows(rows))) == _standard(rows)


def test_a_batch_orjson_refuses_is_written_the_standard_way() -> None:
    """A lone surrogate or an int beyond 64 bits in one row: the same text, that batch row by row."""
    rng = random.Random(5)
    rows = [_row(rng, number) for number in range(ROW_BATCH + 10)]
    rows[7]["id"] = "\ud800 lone"
    rows[ROW_BATCH + 3]["tokens"] = 2**64
    assert "".join(indented_json({"items": FlatRows(rows)})) == _standard({"items": rows})


def test_a_row_with_a_huge_text_is_written_alone_the_standard_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """With `text_key`, a row whose text has `LONG_TEXT_CHARS` or more never goes to orjson (its text,
    decoded and indented there, took a session of one 100 MB message's JSON export from 445 to 656 MB):
    the rows around it still do, and the text is the same as the standard encoder's, at any depth."""
    from smig_tui.core import json_text

    monkeypatch.setattr(json_text, "LONG_TEXT_CHARS", 100)
    given: list[list[dict[str, object]]] = []
    real = json_text._encoded

    def encoded(rows: list[dict[str, object]]) -> str | None:
        given.append(rows)
        return real(rows)

    monkeypatch.setattr(json_text, "_encoded", encoded)
    rng = random.Random(9)
    rows = [_row(rng, number) | {"text": 'é\n"' * (20 if number % 5 else 40)} for number in range(23)]
    document = {"deeper": {"items": FlatRows(iter(rows), 8, "text")}}
    assert "".join(indented_json(document)) == _standard({"deeper": {"items": rows}})
    sent = [row for run in given for row in run]
    assert sent == [row for row in rows if len(row["text"]) < 100]  # type: ignore[arg-type]
    assert len(given) > 3  # the runs between the long rows, batch after batch


def test_a_huge_string_is_written_in_pieces_as_the_standard_encoder_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A string of `LONG_TEXT_CHARS` or more, anywhere (alone, in an object, a list, a row written alone, a
    joined text's part), is encoded a `STRING_PIECE` at a time: the same text as `json.dumps` of the whole,
    whatever character a piece's edge falls on (an escape, a lone surrogate, a character beyond the BMP)."""
    from smig_tui.core import json_text

    monkeypatch.setattr(json_text, "LONG_TEXT_CHARS", 40)
    monkeypatch.setattr(json_text, "STRING_PIECE", 7)
    huge = 'é\n"\\\x01😀\u2028\ud800ab' * 9
    rows = [{"index": 1, "text": "short"}, {"index": 2, "text": huge, "after": huge}, {"index": 3, "text": "x"}]
    document = {"alone": huge, "in": [huge, {"key": huge}], "rows": FlatRows(iter(rows), 8, "text")}
    expected = {"alone": huge, "in": [huge, {"key": huge}], "rows": rows}
    assert "".join(indented_json(document)) == _standard(expected)
    assert "".join(indented_json(huge)) == _standard(huge)
    parts = [("a",), (huge[:20], huge, "tail"), (huge,), ("b", "c")]
    joined = "".join(indented_json({"content": json_text.JoinedText("\n\n", iter(parts))}))
    assert joined == _standard({"content": "\n\n".join("".join(part) for part in parts)})


def test_a_huge_string_is_never_held_encoded_whole() -> None:
    """Traced allocations while writing a row of one 8 MB text: encoded whole and joined to its key and its
    row, the text was held three more times (a 100 MB message's `smig show --json` peaked at 445 MB)."""
    import tracemalloc

    text = 'a line of output, "quoted" and é\n' * 250_000
    tracemalloc.start()
    try:
        for _ in indented_json({"messages": FlatRows(iter([{"index": 0, "text": text}]), 64, "text")}):
            pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(text) > 8_000_000 and peak < 0.25 * len(text), (peak, len(text))
