"""The detector's needle gate: the grouped search must let through exactly the patterns a plain
per-needle `in` test would, so no secret is skipped by the faster prefilter."""

from __future__ import annotations

import random

from smig_tui.core import redact as detector
from smig_tui.core.redact import redact


def plain_gate(text: str) -> list[int]:
    """The patterns whose needles occur, tested one needle at a time (the rule the gate speeds up)."""
    lowered = text.lower()
    return [
        index
        for index, (_, needles, _, _) in enumerate(detector._PATTERNS)
        if any(needle in (text if needle != needle.lower() else lowered) for needle in needles)
    ]


NEEDLES = sorted({needle for _, needles, _, _ in detector._PATTERNS for needle in needles})
PADDING = "lorem ipsum dolor " * 60
"""Makes a text long enough for the grouped search (short texts are tested needle by needle)."""


def gate_agrees(text: str) -> bool:
    """The gate lets through what the plain rule does, for the text short and padded long."""
    padded = PADDING + text + PADDING
    assert len(padded) >= detector._SHORT_TEXT
    return all(detector._patterns_for(each, each.lower()) == plain_gate(each) for each in (text, padded))


def test_every_needle_alone_and_in_text_opens_its_patterns() -> None:
    for needle in NEEDLES:
        for text in (needle, f"x{needle}y", f"some words {needle}", f"{needle}\n{needle.upper()}"):
            assert gate_agrees(text), text


def test_needles_glued_and_overlapping_each_other_are_all_seen() -> None:
    """A needle that starts inside another (`ghf_`: `gh` then `hf_`) must not hide behind it."""
    for first in NEEDLES:
        for second in NEEDLES:
            for overlap in range(0, min(len(first), len(second))):
                if overlap and first[-overlap:].lower() != second[:overlap].lower():
                    continue
                text = first + second[overlap:]
                assert gate_agrees(text), text


def test_random_mixtures_of_needles_and_filler() -> None:
    rng = random.Random(20)
    filler = ["the ", "parser ", "_", "-", ".", ":", "/", "a", "k", "s", "\n", "{", '"']
    for _ in range(3000):
        parts = [rng.choice(NEEDLES if rng.random() < 0.3 else filler) for _ in range(rng.randint(1, 12))]
        text = "".join(parts)
        if rng.random() < 0.3:
            text = text.upper()
        assert gate_agrees(text), text


def test_swapping_the_table_rebuilds_the_gate(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The secrets suite switches the detector off by emptying the table; the gate must follow."""
    secret = "key sk-proj-" + "a1B2" * 8
    assert "[REDACTED:openai-key]" in redact(secret).text
    monkeypatch.setattr(detector, "_PATTERNS", ())
    assert redact(secret).text == secret
