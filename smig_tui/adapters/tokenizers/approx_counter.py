"""Provides a dependency-free token estimate, used when tiktoken cannot load its vocabulary."""

from __future__ import annotations

import re
from collections.abc import Sequence

_PIECE = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]|\s+")
"""Words, digit runs, single symbols and whitespace runs: the shapes BPE vocabularies split on."""
_PIECE_START = re.compile(r"[^\sA-Za-z\d]|(?<=\s)\S|(?<=[A-Za-z])[^A-Za-z]|(?<=\d)\D")
"""Where a piece starts: a symbol, or the first character after a run of another shape."""
SLICE_CHARS = 1 << 20
"""A long text is estimated a slice at a time: its pieces in one list held 1.5 GB for a 100 MB text."""

ESTIMATE_NAME = "estimate"


class ApproxCounter:
    """Estimates tokens from word and symbol shapes (`exact` is False, so the UI labels it).

    Short words are one token, longer ones about one per 4 letters (BPE merges common
    English words whole), digit runs one per 3 digits, each symbol one, whitespace runs free
    (BPE folds one leading space into the next word) except newlines and indentation.
    Non-ASCII text falls in the symbol branch, one token a character, which over-counts
    slightly: an estimate should err towards "does not fit".
    """

    def __init__(self, reason: str = "") -> None:
        self.reason = reason
        """Why the exact counter is not used (shown to the user), empty when chosen on purpose."""

    @property
    def name(self) -> str:
        """The label shown for counts made by this counter."""
        return ESTIMATE_NAME

    @property
    def exact(self) -> bool:
        """Always False: these are estimates."""
        return False

    def count(self, text: str) -> int:
        """Return the estimated number of tokens in `text`, a slice of about `SLICE_CHARS` at a time,
        each cut where a piece starts, so the sum is the whole's estimate (one run of one shape, which
        has no such place, is one piece)."""
        if len(text) <= SLICE_CHARS:
            return _estimate(text)
        total, start = 0, 0
        while start < len(text):
            cut = _PIECE_START.search(text, start + SLICE_CHARS)
            end = cut.start() if cut else len(text)
            total += _estimate(text[start:end])
            start = end
        return total

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Return the estimate for each text, in order."""
        return [self.count(text) for text in texts]


def _estimate(text: str) -> int:
    """The estimate of one text, its pieces found all at once."""
    total = 0
    for piece in _PIECE.findall(text):
        first = piece[0]
        if first.isalpha() and first.isascii():
            total += 1 if len(piece) <= 6 else (len(piece) + 3) // 4
        elif first.isdigit() and first.isascii():
            total += (len(piece) + 2) // 3
        elif first.isspace():
            total += piece.count("\n") + (len(piece) > 1 and piece[-1] != "\n")
        else:
            total += 1
    return total
