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


TOKEN_PREFIXES = {
    "github-token": [f"gh{kind}_" + "A1b2" * 9 for kind in "pousr"],
    "gitlab-token": [
        f"gl{kind}-" + "x1Y2" * 5
        for kind in ("pat", "rt", "dt", "ptt", "ft", "imt", "agent", "oas", "cbt", "soat", "ffct")
    ],
    "flyio-token": [f"fm{kind}_" + "Ab3+" * 25 for kind in ("1", "2", "1a", "1r", "2a", "2r")] + ["fo1_" + "Ab3_" * 10],
    "slack-token": [f"xox{kind}-" + "1234567890ab" for kind in "abprse"] + ["xapp-1234567890ab"],
    "shopify-token": [f"shp{kind}_" + "0a1b" * 8 for kind in ("at", "ss", "ca", "pa")],
    "doppler-token": [f"dp.{kind}." + "Ab12" * 10 for kind in ("pt", "st", "ct", "sa", "scim", "audit")],
    "square-token": [f"sq0{kind}-" + "Ab1_" * 6 for kind in ("atp", "csp")],
    "langsmith-key": [f"lsv2_{kind}_" + "0a1b" * 8 + "_" + "0123456789" for kind in ("pt", "sk")],
    "settlemint-token": [f"sm_{kind}_" + "Ab12" * 4 for kind in ("aat", "pat", "sat")],
    "salesforce-session": ["00D" + "Ab1" * 5 + "!AQ" + "Ab1." * 20],
    "jwt": ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
}
"""A token after every prefix its pattern takes: each needle must let its pattern see it."""


def test_a_token_after_every_prefix_its_pattern_takes_is_redacted() -> None:
    texts = [f"value: {token} end" for tokens in TOKEN_PREFIXES.values() for token in tokens]
    kinds = [kind for kind, tokens in TOKEN_PREFIXES.items() for _ in tokens]
    for name, found in (("redact_many", redact_many(texts)), ("redact", [redact(text) for text in texts])):
        for text, kind, got in zip(texts, kinds, found, strict=True):
            assert got.counts == Counter({kind: 1}), (name, text)
    check(texts)


def test_patterns_opening_with_a_few_words_are_tried_where_the_words_start() -> None:
    """Each needle's place in the opening words names the starts to try: `unzip` holds `zip` at 2."""
    leads = {detector._PATTERNS[index][2].pattern[:20]: lead for index, lead in detector._current_gates().leads.items()}
    assert leads["(?:zip|unzip|zipcloa"] == (("zip", (0, 2)),)
    assert leads["(?:sqlcmd|bcp|osql|i"] == (("sqlcmd", (0,)), ("bcp", (0,)), ("osql", (0,)), ("isql", (0,)))
    # A match may open otherwise when the group is optional or another alternative follows at the top level.
    lead = detector._lead_of
    assert lead(re.compile(r"(?:zip|unzip)\b[^\n|;&]{0,9}[ \t]-P(?P<s>[^|]+|x)"), ("zip",)) == (("zip", (0, 2)),)
    for source in (r"(?:zip|unzip)?-P", r"(?:zip|unzip)*-P", r"(?:zip|unzip){2}", r"(?:zip|unzip)-P|7z -p"):
        assert lead(re.compile(source), ("zip", "7z")) is None, source
    for source in (r"(?:zip|unzip)[]|]x", r"(?:zip|unzip)[^]|]x", r"(?:zip|unzip)[\]|]x"):  # a `|` in a set
        assert lead(re.compile(source), ("zip",)) is not None, source
    assert lead(re.compile(r"(?:zip|gzip)-P"), ("unzip",)) is None  # a word holding no needle
    rng = random.Random(35)
    parts = ["unzip", "zip", "zipcloak", "ZIP", "bcp", "sqlcmd", "osql", "isql", "7za", "curl", "wget", "flyctl"]
    parts += [" -P ", " -p", " -u ", " -t ", "'pw word'", "hunter2xyz", ":s3cretpw", "x", " ", "\n", "|", "İ", "ß"]
    texts = ["".join(rng.choice(parts) for _ in range(rng.randint(1, 30))) for _ in range(3000)]
    assert sum(1 for text in texts if redact(text).counts["cli-password"]) > 300
    # Two earlier replacements, one longer and one shorter than the secret, leave the length as it was
    # and every place between them moved: the lowered text no longer tells where the words start.
    moved = "curl -u bob:abcdefghij\nunzip -P zippassword1 a.zip\ncurl -u eve:" + "x" * 36 + "\n"
    assert len("abcdefghij") + 36 == 2 * len("[REDACTED:cli-password]")
    assert redact(moved).counts["cli-password"] == 3
    check([*texts, moved])
