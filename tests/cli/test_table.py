"""The one layout rule of the CLI's tables: figures whole, text shrinks first, then columns drop, least needed first."""

from __future__ import annotations

import io
import random

import pytest

from smig_tui.cli.table import Column, _chunks, cell_width, cut, render, terminal_width, unique_prefixes, wrap
from smig_tui.core.words import age_text, name_list, plural, size_text

COLUMNS = (
    Column("id"),
    Column("tokens", right=True),
    Column("model", drop=1),
    Column("title", text=True, least=8, drop=2),
)
ROWS = [
    ("01a20305-2ac0", "1,204,504", "claude-sonnet-4-5-20250929", "Rename the package from proj to projkit"),
    ("9c8d7e6f", "12", "gpt-5.5", "Fix login redirect loop"),
]


def _cells(lines: list[str]) -> list[list[str]]:
    return [line.split("  ") for line in lines]


def test_a_table_that_fits_is_printed_as_it_is() -> None:
    lines = render(COLUMNS, ROWS, 200)
    assert lines[0].split() == ["id", "tokens", "model", "title"]
    assert lines[1].endswith("Rename the package from proj to projkit") and "1,204,504" in lines[1]
    assert lines[2].index("12") + 2 == lines[1].index("1,204,504") + 9  # numbers are right-aligned


@pytest.mark.parametrize("width", [80, 72, 60, 50, 40, 30, 20, 10])
def test_figures_are_never_cut_at_any_width(width: int) -> None:
    lines = render(COLUMNS, ROWS, width)
    for row, line in zip(ROWS, lines[1:], strict=True):
        assert row[0] in line and row[1] in line
    if width >= len("01a20305-2ac0  1,204,504"):
        assert max(cell_width(line) for line in lines) <= width


def test_text_shrinks_before_a_column_is_dropped_then_the_least_needed_goes_first() -> None:
    # 13 + 9 + 26 + 39 + 3 gaps = 93: shrink the title first (to 27 columns at 80)
    at_80 = render(COLUMNS, ROWS, 80)
    assert "claude-sonnet-4-5-20250929" in at_80[1] and at_80[1].endswith("…")
    assert max(len(line) for line in at_80) == 80
    # at 50 the title at its least (8) and the model no longer fit together: the model goes first
    at_50 = render(COLUMNS, ROWS, 50)
    assert "claude" not in at_50[1] and "model" not in at_50[0] and "title" in at_50[0]
    assert at_50[1].startswith("01a20305-2ac0  1,204,504  Rename the package")
    # at 30 the title goes too: only figures are left
    assert render(COLUMNS, ROWS, 30)[1].split() == ["01a20305-2ac0", "1,204,504"]


def test_wide_characters_are_measured_in_terminal_cells() -> None:
    assert cell_width("漢字") == 4 and cell_width("é") == 1 and cell_width("e\u0301") == 1
    assert cut("漢字漢字", 5) == "漢字…" and cell_width(cut("漢字漢字", 5)) == 5
    lines = render((Column("n", right=True), Column("t", text=True, least=4)), [("1", "漢字漢字漢字")], 8)
    assert cell_width(lines[1]) <= 8


def test_a_wrapping_column_continues_under_itself() -> None:
    columns = (Column("#", right=True), Column("text", text=True, least=10, wrap=True))
    lines = render(columns, [("7", "one two three four five six seven eight nine ten")], 20)
    assert lines[1] == "7  one two three"
    assert len(lines) > 2 and all(line.startswith("   ") and len(line) <= 20 for line in lines[2:])
    assert " ".join(line.strip() for line in lines[1:])[3:] == "one two three four five six seven eight nine ten"
    assert wrap("a\n\nbb cc", 3) == ["a", "", "bb", "cc"] and wrap("abcdefg", 3) == ["abc", "def", "g"]


def test_unique_prefixes_are_as_short_as_they_can_be_and_never_ambiguous() -> None:
    ids = ["01a20305-2ac0-7000", "01a20305-2ac1-7000", "9c8d7e6f-5a4b", "short"]
    prefixes = unique_prefixes(ids)
    assert prefixes["9c8d7e6f-5a4b"] == "9c8d7e6f" and prefixes["short"] == "short"
    assert prefixes["01a20305-2ac0-7000"] == "01a20305-2ac0" and prefixes["01a20305-2ac1-7000"] == "01a20305-2ac1"
    for full, prefix in prefixes.items():
        assert [other for other in ids if other.startswith(prefix)] == [full]


def test_the_width_is_columns_else_a_terminal_else_80(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "123")
    assert terminal_width(io.StringIO()) == 123
    monkeypatch.setenv("COLUMNS", "junk")
    monkeypatch.setattr("smig_tui.cli.table._standard_streams", lambda: iter(()))
    assert terminal_width(io.StringIO()) == 80


def test_words_agree_with_their_numbers() -> None:
    assert plural(1, "message") == "1 message" and plural(2, "message") == "2 messages"
    assert plural(0, "token") == "0 tokens" and plural(1_204, "token") == "1,204 tokens"
    assert plural(2, "summary") == "2 summaries"
    assert [size_text(n) for n in (820, 12_345, 1_234_567, 5 * 1024**3)] == ["820 B", "12 KB", "1.2 MB", "5.0 GB"]
    assert name_list(["Codex", "Claude Code", "Gemini CLI", "OpenCode"]) == "Codex, Claude Code, Gemini CLI or OpenCode"


@pytest.mark.parametrize(
    ("stamp", "said"),
    [
        ("2026-12-04T11:59:30Z", "now"),
        ("2026-12-04T11:43:00Z", "17m ago"),
        ("2026-12-04T09:00:00+00:00", "3h ago"),
        ("2026-11-29T12:00:00Z", "5d ago"),
        ("2026-10-20T12:00:00Z", "6w ago"),
        ("2026-08-01T12:00:00Z", "4mo ago"),
        ("2024-11-01T12:00:00Z", "2y ago"),
        ("not a date", ""),
        (None, ""),
    ],
)
def test_ages_are_short_and_relative(stamp: str | None, said: str) -> None:
    from datetime import UTC, datetime

    assert age_text(stamp, now=datetime(2026, 12, 4, 12, 0, tzinfo=UTC)) == said


def _word_by_word(text: str, width: int) -> list[str]:
    """`wrap` as it was before its shortcuts: every word measured in cells."""
    width = max(1, width)
    out: list[str] = []
    for paragraph in text.split("\n"):
        line, used = "", 0
        for word in paragraph.split(" "):
            size = cell_width(word)
            if line and used + 1 + size <= width:
                line, used = line + " " + word, used + 1 + size
                continue
            if line:
                out.append(line)
            if size <= width:
                line, used = word, size
            else:
                *full, line = _chunks(word, width)
                out.extend(full)
                used = cell_width(line)
        out.append(line)
    return out


def test_wrap_breaks_every_text_as_measuring_each_word_does() -> None:
    """The shortcuts (single-spaced text cut at its last space that fits, ASCII words measured by length)
    change no line: leading, trailing and doubled spaces, newlines, long words, wide, combining and
    control characters included."""
    rng = random.Random(35)
    alphabet = ["a", "bc", "defgh", " ", " ", "  ", "\n", "\t", "\x01", "é", "…", "中", "😀", "\u0301", "x" * 30]
    single = ["a", "bc", "defgh", "é…", "é", "a…", "中", "e\u0301", "x" * 30]
    for number in range(6000):
        if number % 2:  # one space between words, as a preview has them: the shortcut that cuts at spaces
            text = " ".join(rng.choice(single) for _ in range(rng.randrange(1, 30)))
        else:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(40)))
        for width in (1, 5, 12, len(text) - 1, len(text), len(text) + 1, 200):
            assert wrap(text, width) == _word_by_word(text, width), (text, width)
