"""The line index the cheap listings stand on (`file_sessions.indexed_lines`) finds every non-empty line's
span and head exactly as splitting the file would, whatever the block size, for lines shorter and
longer than a block or than the head window, damaged ones and a last line without its newline."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from smig_tui.adapters.agents import file_sessions
from smig_tui.adapters.agents.file_sessions import indexed_lines

HEAD = re.compile(rb'\{"t": ?"([^"\\]+)"')
SHAPES = ('{"t":"a","x":"%s"}', "", '{"t": "bb"}', "junk", '{"t":"c", "z":1', '{"x":1}', '{"t":"%s"}')


def _split(text: bytes, head_bytes: int) -> list[tuple[int, int, tuple[bytes | None, ...] | None]]:
    out, position = [], 0
    for raw in text.split(b"\n"):
        if raw:
            found = HEAD.match(raw[:head_bytes])
            out.append((position, position + len(raw), found.groups() if found and raw.endswith(b"}") else None))
        position += len(raw) + 1
    return out


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 65536])
def test_every_line_and_head_is_found_as_a_split_finds_it(
    block: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(block)
    monkeypatch.setattr(file_sessions, "BLOCK", block)
    for trial in range(150):
        head_bytes = rng.choice([4, 9, 1024])
        monkeypatch.setattr(file_sessions, "HEAD_BYTES", head_bytes)
        lines = [rng.choice(SHAPES).replace("%s", "y" * rng.randint(0, 30)) for _ in range(rng.randint(0, 8))]
        text = ("\n".join(lines) + rng.choice(["", "\n", "\n\n"])).encode()
        path = tmp_path / f"{trial}.jsonl"
        path.write_bytes(text)
        with indexed_lines(path, HEAD) as found:
            got = [(line.start, line.end, line.head) for line in found.lines] if found else []
            if found:
                assert [found.raw(line) for line in found.lines] == [text[a:b] for a, b, _ in got]
        assert got == _split(text, head_bytes), text
