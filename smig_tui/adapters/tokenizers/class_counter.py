"""Provides `ClassCounter`: an encoding's count scaled per class of text, for a family measured per class.

The family's average factor is still applied to every count afterwards (`core.tokens.calibrate`),
so this counter scales each text by its class's factor over that average: a Japanese message for
Gemini counts 0.72/1.06 of its o200k count here, times 1.06 later, which is its class's 0.72.
Counts are kept on disk under this counter's own name, apart from the plain encoding's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from smig_tui.core.ports import TokenCounter
from smig_tui.core.text_classes import text_class


class ClassCounter:
    """Counts with `base`, each text scaled by `scales[its class]` (rounded)."""

    def __init__(self, base: TokenCounter, family: str, scales: Mapping[str, float]) -> None:
        self.base = base
        self.family = family
        self.scales = dict(scales)

    @property
    def name(self) -> str:
        """The base encoding's name with the family whose class factors apply (a cache key of its own)."""
        return f"{self.base.name}, {self.family} per class"

    @property
    def exact(self) -> bool:
        """As exact as the base encoding (an estimate offline)."""
        return self.base.exact

    @property
    def reason(self) -> str:
        """Why the base counter is an estimate, when it is."""
        return str(getattr(self.base, "reason", ""))

    def count(self, text: str) -> int:
        """The base count of `text`, scaled by its class's factor over the family's average."""
        return round(self.base.count(text) * self.scales.get(text_class(text), 1.0))

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """`count` of each text, the base counting them all at once."""
        scales = self.scales
        return [
            round(n * scales.get(text_class(text), 1.0))
            for n, text in zip(self.base.count_many(texts), texts, strict=True)
        ]
