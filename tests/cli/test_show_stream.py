"""`smig show` streams its rows: the same output whether long texts are held or left on disk (read back
only when a row needs more than the head a reader keeps), and the streamed table is `render`'s."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from cli_runner import smig

from smig_tui.adapters import stored_text
from smig_tui.cli.table import Column, cell_width, render, stream

MAIN = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"
TEXTS = [
    "Add a --verbose flag\n" + "word " * 900,  # its kept head alone fills a row
    " \n\t" * 150 + "late words after a head of whitespace " * 80,  # its kept head is blank: read back
    "x" * 3000,  # one long word
    "短い文字" * 700,  # wide characters
]


def _long_texts(home: Path) -> None:
    """The fixture's main transcript with four of its texts made long (two tool results, two replies)."""
    path = home / "projects" / "-home-user-proj" / f"{MAIN}.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[28]["message"]["content"][0]["text"] = TEXTS[0]
    records[26]["message"]["content"][0]["content"] = TEXTS[1]
    records[17]["message"]["content"][0]["content"] = TEXTS[2]
    records[15]["message"]["content"][0]["text"] = TEXTS[3]
    path.write_text("".join(json.dumps(record) + "\n" for record in records))


@pytest.mark.parametrize("flags", [[], ["--full"], ["--json"]])
def test_show_is_the_same_with_long_texts_left_on_disk(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch, flags: list[str]
) -> None:
    _long_texts(fake_home["claude"])
    monkeypatch.setenv("COLUMNS", "90")
    held = smig("show", MAIN, *flags)
    monkeypatch.setattr(stored_text, "FILE_BYTES", 0)  # every long text is left in the file and read back
    left = smig("show", MAIN, *flags)
    assert held == left and held[0] == 0
    assert all(marker in held[1] for marker in ("Add a --verbose flag", "late words", "xxxxxxxx", "短い文字"))


def test_a_short_head_is_read_back_for_its_row(fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    _long_texts(fake_home["claude"])
    monkeypatch.setattr(stored_text, "FILE_BYTES", 0)
    monkeypatch.setenv("COLUMNS", "300")
    code, stdout, _ = smig("show", MAIN)
    row = next(line for line in stdout.splitlines() if "late words" in line)
    assert code == 0 and row.endswith("…") and "late words after a head of whitespace late words" in row


COLUMNS = (
    Column("#", right=True),
    Column("kind"),
    Column("tool", drop=1),
    Column("text", text=True, least=16, wrap=True),
)


@pytest.mark.parametrize("width", [20, 40, 80, 160])
def test_the_streamed_table_is_the_rendered_one(width: int) -> None:
    chance = random.Random(width)
    words = ["a", "word", "longerword", "x" * 70, "漢字の列", "", "é", "tab\there"]
    rows = [
        (
            str(number),
            chance.choice(["message", "tool_call", "tool_result (error)"]),
            chance.choice(["", "shell", "apply_patch_with_a_long_name"]),
            "\n".join(
                " ".join(chance.choices(words, k=chance.randrange(0, 40))) for _ in range(chance.randrange(1, 3))
            ),
        )
        for number in range(200)
    ]
    table = [[column.header for column in COLUMNS], *rows]
    natural = [max(map(cell_width, column)) for column in zip(*table, strict=True)]
    assert list(stream(COLUMNS, rows, natural, width)) == render(COLUMNS, rows, width)
