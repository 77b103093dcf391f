"""Redaction's prefilters (the needle gate, the shapes, the cores of secret words) only decide what
is worth looking at: with every one of them taken away, each pattern run on each text and the secret
words found by their regex alone, the result must be the same text and counts. Planted secrets of
every kind are tested in odd places (JSON-escaped twice, glued to words, after unicode, at the ends
of long lines), beside ordinary code and the real session files."""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from functools import partial
from pathlib import Path

from smig_tui.core import redact as detector
from smig_tui.core.redact import Redaction, redact, redact_many

sys.path.insert(0, str(Path(__file__).parents[1] / "secrets"))
from secret_corpus import ordinary_code, secrets


def ungated(text: str) -> Redaction:
    """Every pattern of the table run on the text in order, then the secret words found by
    `_SECRET_WORD` itself: what `redact` does with no prefilter at all."""
    counts: Counter[str] = Counter()
    for kind, _, pattern, bounded in detector._PATTERNS:
        text = pattern.sub(partial(detector._replace, kind=kind, bounded=bounded, counts=counts), text)
    if counts["aws-access-key"]:
        text = detector._redact_after(
            text, detector._AWS_KEY_ID, detector._AWS_SECRET, "aws-secret-key", counts, detector._mixed_case
        )
    if counts["twilio-key"]:
        text = detector._redact_after(
            text, detector._TWILIO_SID, detector._TWILIO_SECRET, "twilio-auth-token", counts, detector._random_looking
        )
    # A lowered text of another length sends the scan to `_SECRET_WORD.search` on the text as written.
    text = detector._redact_assignments(text, "" if text else "x", counts)
    return Redaction(text, counts)


FILLER = detector.LINE_MARGIN + 4_000
"""A run longer than any window redaction reads around a place (`LINE_MARGIN`, 8,192, and a cut's 2,048):
a secret past it is at the end of a long line in every sense the redactor has. 40,000 cost 3.5 s more
of the ungated patterns for nothing more tested."""


def odd_places(text: str) -> list[str]:
    """The text where a prefilter could lose it."""
    return [
        text,
        json.dumps(text),
        json.dumps(json.dumps(text)),
        text.upper(),
        text.lower(),
        f"see {text} here",
        f"x{text}y",
        f"({text})",
        f"`{text}`",
        "ünïcødé ΣΑΣ " + text + " İstanbul",
        "x" * 3000 + text,
        text + "\n" * 2 + text,
        "a" * FILLER + " " + text + " " + "b" * FILLER,
        text.replace(" ", "\\n"),
        text.replace("=", " = "),
    ]


def corpus() -> list[str]:
    texts = [odd for planted in secrets() for odd in odd_places(planted.text)]
    texts += [odd for line in ordinary_code()[:200] for odd in odd_places(line)[:4]]
    return texts


def check(texts: list[str]) -> None:
    expected = [ungated(text) for text in texts]
    for name, found in (("redact_many", redact_many(texts)), ("redact", [redact(text) for text in texts])):
        for text, want, got in zip(texts, expected, found, strict=True):
            assert (got.text, got.counts) == (want.text, want.counts), (name, text[:200])


def test_planted_secrets_in_odd_places_are_redacted_as_with_no_prefilter() -> None:
    texts = corpus()
    assert sum(1 for text in texts if redact(text).counts) > 1000  # the corpus does hold secrets
    check(texts)


def test_real_session_lines_are_redacted_as_with_no_prefilter(shared_fixture_lines: list[str]) -> None:
    assert len(shared_fixture_lines) > 500
    check(shared_fixture_lines)


def per_core(lowered: str) -> detector.CorePlaces:
    """Every place a core occurs, one search per core (the rule the automaton speeds up)."""
    return sorted(
        (hit.start(), len(core))
        for core in detector._WORD_CORES
        for hit in re.finditer(re.escape(core) + detector._NOT_AFTER.get(core, ""), lowered)
    )


def test_the_automaton_lists_every_place_a_search_per_core_would() -> None:
    """Cores sharing letters, glued, overlapping and back to back are all found, each once."""
    rng = random.Random(9)
    parts = [*detector._WORD_CORES, "ps", "se", "to", "ke", "cr", "ens", "ed", "or", "board", "s", "_", "-", " ", "a"]
    texts = ["pskey", "tokenkey", "secredential", "authkey", "passpwdpsk", "tokens", "keyboard", "mnemonicsecret"]
    texts += ["".join(rng.choice(parts) for _ in range(rng.randint(1, 25))) for _ in range(3000)]
    texts += [text.lower() for text in corpus()[:3000]]
    for text in texts:
        assert detector._core_places(text) == per_core(text), text
    run = detector._Joined.of(texts)
    assert detector._scan_run(run, run)[1] == [per_core(text) for text in texts]


def test_every_needle_is_looked_for_once() -> None:
    """The automaton holds the lowered needles but one-character ones; each of those and each needle with
    capitals is in one group holding its anchor."""
    gates = detector._current_gates()
    singles = [needle for _, group in gates.lowered for needle in group]
    assert all(len(needle) == 1 for needle in singles)
    assert sorted([*gates.longer_lowered, *singles]) == sorted(gates.every_lowered)
    grouped = [needle for _, group in gates.exact for needle in group]
    assert sorted(grouped) == sorted(gates.every_exact)
    assert all(anchor in needle for anchor, group in gates.exact for needle in group)
