"""Provides a dependency-free token estimate, used when tiktoken cannot load its vocabulary."""

from __future__ import annotations

import re
from collections.abc import Sequence

_PIECE = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]|\s+")
"""Words, digit runs, single symbols and whitespace runs: the shapes BPE vocabularies split on."""

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
        """Return the estimated number of tokens in `text`."""
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

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Return the estimate for each text, in order."""
        return [self.count(text) for text in texts]
