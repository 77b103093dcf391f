"""`redact_many` looks for needles in whole runs of texts at once: it must redact every text exactly
as `redact` does on its own (same text, same counts), wherever the text falls in a run."""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from functools import partial
from pathlib import Path

import pytest

from smig_tui.core import redact as detector
from smig_tui.core.redact import redact, redact_many

sys.path.insert(0, str(Path(__file__).parents[1] / "secrets"))
from secret_corpus import ordinary_code, secrets


def corpus() -> list[str]:
    """Every planted secret as written, JSON-escaped, upper-cased and inside prose; ordinary code; edge texts."""
    texts: list[str] = []
    for planted in secrets():
        text = planted.text
        texts += [text, json.dumps(text), f"see {text} here", text.upper(), text.lower()]
    texts += list(ordinary_code())
    texts += ["", "\x00", "token\x00=\x00secret", "ΣΑΣ token=abcdefgh1234", "İstanbul sk-" + "a" * 30]
    texts += ["x" * 5000 + "ghp_" + "A" * 36, "gh", "SK" + "0" * 32, "AC", "key", "[REDACTED:x] token=hunter22"]
    return texts


def same(texts: list[str]) -> None:
    alone = [redact(text) for text in texts]
    together = redact_many(texts)
    assert [(r.text, r.counts) for r in together] == [(r.text, r.counts) for r in alone]


def test_a_run_redacts_each_text_as_redact_alone() -> None:
    texts = corpus()
    assert sum(1 for text in texts if redact(text).counts) > 300  # the corpus does hold secrets
    same(texts)


def test_order_and_neighbours_do_not_matter() -> None:
    texts = corpus()
    random.Random(7).shuffle(texts)
    same(texts)
    same(texts[::-1])


def test_runs_split_by_size_give_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(detector, "_BATCH_CHARS", 200)  # many short runs, some of one text
    same(corpus())


def test_real_session_lines(shared_fixture_lines: list[str]) -> None:
    assert len(shared_fixture_lines) > 500
    same(shared_fixture_lines)


def test_secret_words_found_from_their_cores_as_the_regex_finds_them() -> None:
    """`_SecretWords` must return what `_SECRET_WORD_LOWER.search` returns, from every place asked."""
    rng = random.Random(3)
    parts = ["key", "api_key", "api-key", "apikey", "auth_key", "account_key", "access-key", "private_key"]
    parts += ["password", "passwd", "passw", "pwd", "secret", "token", "credential", "x", "_", "-", "a", "ke", " "]
    texts = [text.lower() for text in corpus()]
    texts += ["".join(rng.choice(parts) for _ in range(rng.randint(1, 30))) for _ in range(2000)]
    asked = 0
    for text in texts:
        words, at = detector._SecretWords(text), 0
        while True:
            expected, found = detector._SECRET_WORD_LOWER.search(text, at), words.next(at)
            asked += 1
            assert (expected and expected.span()) == (found and found.span()), (text, at)
            if expected is None:
                break
            at = expected.end() if rng.random() < 0.5 else expected.start() + 1
    assert asked > 5000


def test_core_places_found_for_a_run_are_each_texts_own() -> None:
    """The run-level pass must give every text the places its own scan finds, where lowering changes
    lengths (`İ`) and where a core sits at a text's edge."""
    texts = [text.lower() for text in corpus()]
    texts += ["key", "keykey", "İİ token İ", "secret\x00key", "", "passwd pwd credentials", "x" * 3000 + "token"]
    run = detector._Joined.of(texts)
    assert detector._scan_run(run, run)[1] == [detector._core_places(text) for text in texts]
    assert sum(1 for places in detector._scan_run(run, run)[1] if places) > 100


def _pick(rng: random.Random, alphabet: str, low: int, high: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


TOKEN_MAKERS = {
    "discord-bot-token": lambda rng: (
        rng.choice("MNOx")
        + _pick(rng, "abcXYZ019_-", 22, 28)
        + "."
        + _pick(rng, "abcXYZ019_-", 5, 8)
        + "."
        + _pick(rng, "abcXYZ019_-", 26, 41)
    ),
    "azure-ad-client-secret": lambda rng: (
        _pick(rng, "aZ9_~.", 2, 4) + rng.choice("1Qx") + "Q~" + _pick(rng, "aZ9_~.-", 30, 35)
    ),
    "azure-key": lambda rng: (
        _pick(rng, "aZ9", 50, 53)
        + "JQQJ9"
        + rng.choice("9DHx")
        + _pick(rng, "aZ9", 17, 19)
        + rng.choice(["", "AZDO" + _pick(rng, "aZ9", 3, 5)])
    ),
    "maxmind-key": lambda rng: (
        _pick(rng, "aZ9", *rng.choice([(6, 6), (6, 6), (5, 7)]))
        + "_"
        + _pick(rng, "aZ9", *rng.choice([(29, 29), (29, 29), (28, 30)]))
        + "_mmk"
    ),
}


@pytest.mark.parametrize("kind", sorted(detector._SHAPES))
def test_a_shaped_pattern_tried_only_near_its_shape_replaces_what_sub_replaces(kind: str) -> None:
    """`_sub_near_shapes` must find every match `sub` finds: tokens glued, overlapping, back to back,
    at either end of the text, behind a JSON escape, and shapes with no token around them."""
    [(_, _, pattern, bounded)] = [entry for entry in detector._PATTERNS if entry[0] == kind]
    shape = detector._SHAPES[kind]
    token = TOKEN_MAKERS[kind]
    rng = random.Random(11)
    literal = shape.finder.pattern.replace("\\d", "7").replace("\\", "")
    parts = [".", "..", " ", "\\n", "x", "M", literal, "a" * 30, "\n", ".abcdef.", "0" * 40]
    checked = matched = 0
    for _ in range(3000):
        text = "".join(token(rng) if rng.random() < 0.4 else rng.choice(parts) for _ in range(rng.randint(1, 8)))
        expected: Counter[str] = Counter()
        found: Counter[str] = Counter()
        want = pattern.sub(partial(detector._replace, kind=kind, bounded=bounded, counts=expected), text)
        got = detector._sub_near_shapes(
            pattern, shape, partial(detector._replace, kind=kind, bounded=bounded, counts=found), text
        )
        assert (got, found) == (want, expected), text
        checked += 1
        matched += bool(expected)
    assert checked == 3000 and matched > 300


def test_every_shape_has_a_token_maker() -> None:
    assert set(TOKEN_MAKERS) == set(detector._SHAPES)
