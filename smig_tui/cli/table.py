"""Provides the one layout rule every CLI table follows, for the width the user actually has.

Figures (numbers, ids, dates, model names, fixed words such as a plan's reason) are never cut. When a
table is too wide, text columns (titles, message texts) shrink first, down to their least width; then
whole columns are dropped, the least needed first (`drop` order), and the rest widen again. Only when
nothing is left to drop does a line run past the width, and then the terminal wraps it: a figure is
still printed whole.

A rich Table measures every cell several times, which for thousands of sessions cost more than
discovering them; this layout measures each cell once.
"""

from __future__ import annotations

import os
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, chain
from typing import IO, NamedTuple

SESSION_HELP = "session id, or a unique prefix as `smig list` shows it, or the path of its file"
"""How every command that takes a session names the argument (ids of all four agents; OpenCode's
path is `<database>#<id>`)."""

DEFAULT_WIDTH = 80
"""The width when neither COLUMNS nor any terminal says one (output to a file from cron, say)."""
GAP = "  "
ELLIPSIS = "…"


class Column(NamedTuple):
    """One column: how it is aligned, whether it may shrink, and when it is dropped (a NamedTuple: a
    dataclass costs a millisecond to create, on every `smig list`)."""

    header: str
    right: bool = False
    """Right-aligned (numbers)."""
    text: bool = False
    """Free text that may be cut with an ellipsis, down to `least` cells; everything else is a figure."""
    least: int = 12
    """The narrowest a text column is shown at; narrower than that it is dropped instead."""
    drop: int | None = None
    """Columns that may be left out when the table does not fit, lowest first; None: always shown."""
    wrap: bool = False
    """A text column that continues on the next lines instead of being cut (the last column only)."""


def terminal_width(stream: IO[str] | None = None) -> int:
    """The width to lay out for: COLUMNS, else the terminal of stdout, stderr or stdin, else 80.

    Piped output (`smig models | less`) still lands on the user's terminal, whose width stderr or
    stdin still tells.
    """
    value = os.environ.get("COLUMNS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    for candidate in (stream, *_standard_streams()):
        try:
            fd = candidate.fileno() if candidate is not None else -1
        except (AttributeError, OSError, ValueError):  # a StringIO, a closed stream
            continue
        try:
            columns = os.get_terminal_size(fd).columns
        except OSError:
            continue
        if columns > 0:
            return columns
    return DEFAULT_WIDTH


def _standard_streams() -> Iterator[IO[str]]:
    import sys

    for stream in (sys.__stdout__, sys.__stderr__, sys.__stdin__):
        if stream is not None:
            yield stream


def cell_width(text: str) -> int:
    """Terminal cells `text` takes: two for wide East Asian characters and most emoji, none for combining marks."""
    if text.isascii():
        return len(text)
    return sum(_sizes(text))


def cut(text: str, width: int) -> str:
    """`text` in at most `width` cells, ending with an ellipsis when it had to be cut."""
    if width <= 0:
        return ""
    if text.isascii():
        return text if len(text) <= width else text[: width - 1] + ELLIPSIS
    ends = list(accumulate(_sizes(text)))
    if not ends or ends[-1] <= width:
        return text
    return text[: bisect_right(ends, width - 1)] + ELLIPSIS


_WIDTHS: dict[str, int] = {chr(code): 1 for code in range(128)}
"""Each character's width once looked up: a listing of titles in Chinese asks for the same few thousand
characters over and over, and a lookup in C costs far less than asking `unicodedata` each time."""


def _sizes(text: str) -> Iterator[int]:
    """The width of each character of `text`."""
    try:
        return iter(list(map(_WIDTHS.__getitem__, text)))
    except KeyError:
        for char in set(text).difference(_WIDTHS):
            _WIDTHS[char] = _char_width(char)
        return map(_WIDTHS.__getitem__, text)


def _char_width(char: str) -> int:
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def pad(text: str, width: int, right: bool = False) -> str:
    """`text` padded with spaces to `width` cells."""
    if text.isascii():
        return text.rjust(width) if right else text.ljust(width)
    fill = " " * max(0, width - cell_width(text))
    return fill + text if right else text + fill


def fit(columns: Sequence[Column], natural: Sequence[int], width: int) -> list[int | None]:
    """Each column's width in a table `width` cells wide, None for a dropped column (see the module doc).

    A wrapping column asks only for its least width: it takes whatever the line has left.
    """
    shown = list(range(len(columns)))
    droppable = sorted((c.drop, i) for i, c in enumerate(columns) if c.drop is not None)
    wanted = [min(n, c.least) if c.wrap else n for c, n in zip(columns, natural, strict=True)]
    while True:
        widths = {i: wanted[i] for i in shown}
        excess = sum(widths.values()) + len(GAP) * (len(shown) - 1) - width
        excess = _shrink_text(columns, widths, excess)
        if excess <= 0 or not droppable:
            return [widths.get(i) for i in range(len(columns))]
        shown.remove(droppable.pop(0)[1])


def _shrink_text(columns: Sequence[Column], widths: dict[int, int], excess: int) -> int:
    """Narrow the text columns, the widest first (so titles and folders end up alike), none below its
    least width; return the excess left."""
    floor = {i: min(w, columns[i].least) for i, w in widths.items() if columns[i].text}
    while excess > 0:
        candidates = sorted(((widths[i], i) for i in floor if widths[i] > floor[i]), reverse=True)
        if not candidates:
            break
        top, i = candidates[0]
        runner_up = candidates[1][0] if len(candidates) > 1 else 0
        target = max(floor[i], runner_up, top - excess)
        target = min(target, top - 1)
        excess -= top - target
        widths[i] = target
    return excess


def render(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    width: int,
    header: bool = True,
    bold: bool = False,
) -> list[str]:
    """The table's lines (header first, bold when asked), laid out by `fit`; no trailing spaces."""
    rows = [[col.header for col in columns], *rows] if header else list(rows)
    if not rows:
        return []
    cap = width + 1  # a one-line text cell wider than the whole line is measured (and cut) from its start only
    cells = [
        [cell[:cap] for cell in column] if col.text and not col.wrap else column
        for col, column in zip(columns, zip(*rows, strict=True), strict=True)
    ]
    natural = [max(map(len if "".join(column).isascii() else cell_width, column)) for column in cells]
    widths = fit(columns, natural, width)
    shown = [i for i, w in enumerate(widths) if w is not None]
    if any(columns[i].wrap for i in shown):
        lines = [line for row in zip(*cells, strict=True) for line in _row_lines(columns, row, shown, widths, width)]
    else:
        lines = _lines([columns[i] for i in shown], [widths[i] or 0 for i in shown], [cells[i] for i in shown])
    if header and bold:
        lines[0] = f"\x1b[1m{lines[0]}\x1b[0m"
    return lines


def stream(
    columns: Sequence[Column],
    rows: Iterable[Sequence[str]],
    natural: Sequence[int],
    width: int,
    bold: bool = False,
) -> Iterator[str]:
    """The lines of `render(columns, rows, width, bold=bold)`, one row at a time, from each column's
    natural width worked out beforehand (its widest cell, the header included), so a table of a whole
    session's 139,000 messages never holds more than one row."""
    widths = fit(columns, natural, width)
    shown = [i for i, w in enumerate(widths) if w is not None]
    for number, row in enumerate(chain(([col.header for col in columns],), rows)):
        lines = _row_lines(columns, row, shown, widths, width)
        if number == 0 and bold:
            lines[0] = f"\x1b[1m{lines[0]}\x1b[0m"
        yield from lines


def _lines(columns: list[Column], widths: list[int], cells: list[Sequence[str]]) -> list[str]:
    """One line a row, laid out column by column (a table of thousands of sessions in a few milliseconds)."""
    laid: list[list[str]] = []
    for position, (column, size, values) in enumerate(zip(columns, widths, cells, strict=True)):
        if column.text:
            values = [cut(value, size) for value in values]
        if position == len(columns) - 1 and not column.right:
            laid.append(list(values))
        elif "".join(values).isascii():
            laid.append(
                [value.rjust(size) for value in values] if column.right else [value.ljust(size) for value in values]
            )
        else:
            laid.append([pad(value, size, column.right) for value in values])
    return [GAP.join(row).rstrip() for row in zip(*laid, strict=True)]


def _row_lines(
    columns: Sequence[Column], row: Sequence[str], shown: list[int], widths: list[int | None], width: int
) -> list[str]:
    """One row: one line, or several when its last column wraps."""
    cells: list[str] = []
    continued: list[str] = []
    start = 0
    for position, i in enumerate(shown):
        column, size = columns[i], widths[i] or 0
        last = position == len(shown) - 1
        if column.wrap and last:
            parts = wrap(row[i], max(size, width - start))
            cells.append(parts[0])
            continued = parts[1:]
            break
        cell = cut(row[i], size) if column.text else row[i]
        cells.append(cell if last and not column.right else pad(cell, size, column.right))
        start += size + len(GAP)
    return [GAP.join(cells).rstrip()] + [(" " * start + part).rstrip() for part in continued]


def wrap(text: str, width: int) -> list[str]:
    """`text` broken into lines of at most `width` cells, at spaces where it can be, keeping its newlines."""
    width = max(1, width)
    out: list[str] = []
    for paragraph in text.split("\n"):
        lines = _single_spaced(paragraph, width)
        if lines is not None:
            out.extend(lines)
            continue
        measure = len if paragraph.isascii() else cell_width  # `smig show` wraps 139,000 rows' words
        line, used = "", 0  # `used`: the cells of `line`, kept as it grows (measuring it again was quadratic)
        for word in paragraph.split(" "):
            size = measure(word)
            if line and used + 1 + size <= width:
                line += " " + word
                used += 1 + size
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


def _single_spaced(paragraph: str, width: int) -> list[str] | None:
    """`wrap`'s lines of a paragraph of words of a cell per character, one space between them and none
    at either end (a `smig show` preview), cut at the last space that fits, no word looked at alone;
    None for any other paragraph, or when a word is wider than a line."""
    if paragraph.startswith(" ") or paragraph.endswith(" ") or "  " in paragraph:
        return None
    if not paragraph.isascii() and not _narrow(paragraph):
        return None
    lines = []
    start, end = 0, len(paragraph)
    while end - start > width:
        space = paragraph.rfind(" ", start, start + width + 1)
        if space < 0:  # a word wider than the line: cut in pieces by the loop
            return None
        lines.append(paragraph[start:space])
        start = space + 1
    lines.append(paragraph[start:])
    return lines


def _narrow(text: str) -> bool:
    """Tell whether every character of `text` takes one cell (each distinct character looked up once)."""
    chars = set(text)
    widths = set(map(_WIDTHS.get, chars))
    if None in widths:  # a character not seen yet: measure it, once
        widths = set(_sizes("".join(chars)))
    return widths == {1}


def _chunks(word: str, width: int) -> list[str]:
    """`word` in pieces of at most `width` cells (one piece when it fits)."""
    pieces, piece, used = [], "", 0
    for char, size in zip(word, _sizes(word), strict=True):
        if piece and used + size > width:
            pieces.append(piece)
            piece, used = "", 0
        piece += char
        used += size
    return [*pieces, piece]


def unique_prefixes(ids: Sequence[str], least: int = 8) -> dict[str, str]:
    """Each id's shortest prefix (at least `least` characters) that no other id starts with.

    Like git's short hashes: the prefix is what `smig show`, `smig plan` or `history show` take, so
    a table can show it in place of a 36-character id without leaving the user an ambiguous one.
    """
    ordered = sorted(set(ids))
    shared = [_common(a, b, least) for a, b in zip(ordered, ordered[1:], strict=False)]  # neighbours' prefix
    prefixes = {}
    for n, current in enumerate(ordered):
        before = shared[n - 1] if n else 0
        after = shared[n] if n < len(shared) else 0
        prefixes[current] = current[: max(least, before + 1, after + 1)]
    return prefixes


def _common(a: str, b: str, least: int = 0) -> int:
    """The length of the prefix `a` and `b` share, or any figure below `least` when it is shorter than that
    (most ids part within their first characters: one comparison); a binary search over slices."""
    if a[:least] != b[:least]:
        return 0
    low, high = least, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
