"""The detector's needle gate: the grouped search must let through exactly the patterns a plain
per-needle `in` test would, so no secret is skipped by the faster prefilter."""

from __future__ import annotations

import dataclasses
import random
import re

from smig_tui.core import redact as detector
from smig_tui.core.redact import redact


def plain_gate(text: str) -> list[int]:
    """The patterns whose needles occur, tested one needle at a time (the rule the gate speeds up)."""
    lowered = text.lower()
    found = {needle for needle in NEEDLES if needle in (text if needle != needle.lower() else lowered)}
    return sorted({index for needle in found for index in PATTERNS_OF[needle]})


NEEDLES = sorted({needle for _, needles, _, _ in detector._PATTERNS for needle in needles})
PATTERNS_OF = {
    needle: [index for index, (_, needles, _, _) in enumerate(detector._PATTERNS) if needle in needles]
    for needle in NEEDLES
}
PADDING = "lorem ipsum dolor " * 60
"""Makes a text long enough for the grouped search (short texts are tested needle by needle)."""


def gate_agrees(text: str) -> bool:
    """The gate lets through what the plain rule does, for the text short and padded long."""
    padded = PADDING + text + PADDING
    assert len(padded) >= detector._SHORT_TEXT
    return all(detector._scan_text(each, each.lower())[0] == plain_gate(each) for each in (text, padded))


def test_every_needle_alone_and_in_text_opens_its_patterns() -> None:
    for needle in NEEDLES:
        for text in (needle, f"x{needle}y", f"some words {needle}", f"{needle}\n{needle.upper()}"):
            assert gate_agrees(text), text


def run_gate_agrees(texts: list[str]) -> None:
    """The gate of a run of texts (`redact_many`'s) lets through for each text what the plain rule does."""
    for start in range(0, len(texts), 400):
        run = texts[start : start + 400]
        found = detector._scan_run(detector._Joined.of(run), detector._Joined.of([text.lower() for text in run]))[0]
        for text, needles in zip(run, found, strict=True):
            assert detector._patterns_of(needles) == plain_gate(text), text


def test_needles_glued_and_overlapping_each_other_are_all_seen() -> None:
    """A needle that starts inside another (`ghf_`: `gh` then `hf_`) must not hide behind it."""
    texts = []
    for first in NEEDLES:
        for second in NEEDLES:
            for overlap in range(0, min(len(first), len(second))):
                if overlap and first[-overlap:].lower() != second[:overlap].lower():
                    continue
                texts.append(first + second[overlap:])
    assert len(texts) > len(NEEDLES) ** 2
    run_gate_agrees(texts)
    # The single text's grouped search (long texts) on a sample, padded past the per-needle test.
    for text in random.Random(4).sample(texts, 1500):
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


def test_needles_after_wide_characters_are_given_to_their_own_text() -> None:
    """The automaton's places count characters, not UTF-8 bytes: after texts of accents, emoji and a
    capital whose lowering is longer (`İ`), each needle still names the text it is in, and no other."""
    wide = ["é" * 50, "日本語のテキスト", "😀" * 30, "İstanbul İzmir" * 5, "plain"]
    texts = [wide[number % len(wide)] + (NEEDLES[number] if number % 2 else "") for number in range(len(NEEDLES))]
    run_gate_agrees(texts)
    run_gate_agrees([text for number, each in enumerate(texts) for text in (each, wide[number % len(wide)])])


def test_a_text_longer_than_a_window_is_searched_whole_a_window_at_a_time(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Needles across, just before and just after each window's end are all found, and the automaton is
    never handed more than a window and its reach (it takes 8 bytes a character of what it is given)."""
    gates = detector._current_gates()
    handed: list[int] = []

    class Recording:
        def find_matches_as_indexes(self, haystack: str, overlapping: bool = False) -> list[tuple[int, int, int]]:
            handed.append(len(haystack))
            return gates.lowered_finder.find_matches_as_indexes(haystack, overlapping)

    monkeypatch.setattr(detector, "_WINDOW", 4096)
    monkeypatch.setattr(detector, "_gates", dataclasses.replace(gates, lowered_finder=Recording()))
    for needle in [n for n in NEEDLES if len(n) > 1 and n == n.lower()]:
        for shift in {-len(needle), -len(needle) + 1, -1, 0}:  # ends at the window's end, across it, starts there
            text = " " * (4096 + shift) + needle + " " * 4096
            assert detector._scan_text(text, text.lower())[0] == plain_gate(text), (needle, shift)
            run = [text, needle, " "]
            found = detector._scan_run(detector._Joined.of(run), detector._Joined.of(run))[0]
            assert [detector._patterns_of(each) for each in found] == [plain_gate(each) for each in run]
    for core in detector._WORD_CORES:  # the name cores come from the same pass: each place once
        for shift in {-len(core), -len(core) + 1, -1, 0}:
            text = " " * (4096 + shift) + core + " " * 4096 + core + "s"
            expected = sorted(
                (hit.start(), len(core))
                for hit in re.finditer(re.escape(core) + detector._NOT_AFTER.get(core, ""), text)
            )
            assert detector._core_places(text) == expected, (core, shift)
            assert detector._scan_run(detector._Joined.of([text]), detector._Joined.of([text]))[1] == [expected]
    assert handed and max(handed) <= 4096 + gates.lowered_reach


def test_needles_beside_lone_surrogates_are_found() -> None:
    """A JSON `\\ud800` reads as a lone surrogate, which UTF-8 cannot hold: the automaton is handed the text
    with each one replaced one for one, so every needle is still found, in its own text."""
    texts = [f"\ud800{needle}\udfff x \ud83d" for needle in NEEDLES]
    run_gate_agrees(texts)
    run_gate_agrees([text for each in texts for text in (each, "\udc80 plain")])
    for text in texts[::7]:
        assert gate_agrees(text), text
    assert redact("\ud800 key sk-proj-" + "a1B2" * 8).text == "\ud800 key [REDACTED:openai-key]"
