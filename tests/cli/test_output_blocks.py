"""`Output.write_blocks` sends UTF-8 bytes straight to a UTF-8 stream's buffer: the same bytes, in the
same order, as through the text stream, lone surrogates written as their escapes."""

from __future__ import annotations

import io

import pytest

from smig_tui.cli.output import JSON_BLOCK_CHARS, Output

PIECES = ["plain ", "é 😀 ", "a lone \ud800 and \udfff", "\n", "x" * (JSON_BLOCK_CHARS + 5), "\nend\n"]
EXPECTED = "before\n" + "".join(PIECES).replace("\ud800", "\\ud800").replace("\udfff", "\\udfff") + "after\n"


@pytest.mark.parametrize("line_buffering", [False, True])
def test_blocks_reach_a_utf8_buffer_in_order_with_what_was_printed(line_buffering: bool) -> None:
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", line_buffering=line_buffering)
    out = Output(stdout=stdout, stderr=io.StringIO())
    out.data("before")  # still in the text stream's own buffer when the blocks start
    out.write_blocks(iter(PIECES))
    out.data("after")
    stdout.flush()
    assert raw.getvalue() == EXPECTED.encode("utf-8")


def test_a_stream_without_a_utf8_buffer_gets_the_same_text() -> None:
    for stdout in (io.StringIO(), io.TextIOWrapper(io.BytesIO(), encoding="utf-16")):
        out = Output(stdout=stdout, stderr=io.StringIO())
        out.data("before")
        out.write_blocks(iter(PIECES))
        out.data("after")
        if isinstance(stdout, io.StringIO):
            assert stdout.getvalue() == EXPECTED
        else:
            stdout.flush()
            assert stdout.buffer.getvalue().decode("utf-16") == EXPECTED  # type: ignore[attr-defined]
