"""A hit's snippet is cut from a few kilobytes around its first match, and is the one the whole
text gives: a megabyte of tool output is not redacted whole for 160 characters of it."""

from __future__ import annotations

import pytest

from smig_tui.core.redact import redact
from smig_tui.core.search import SNIPPET_MARGIN, make_snippet, parse_query, snippet_region

FILLER = "lorem ipsum dolor sit amet, consectetur adipiscing elit\n" * 2000  # about 110 KB


@pytest.mark.parametrize("at", [0, 37, len(FILLER) // 2, len(FILLER) - 5])
def test_the_region_gives_the_snippet_the_whole_text_gives(at: int) -> None:
    query = parse_query('"Token  Budget" overrun')
    text = FILLER[:at] + " the token\nbudget overrun " + FILLER[at:]
    region = snippet_region(text, query.needles)
    assert len(region) <= 2 * SNIPPET_MARGIN + 30 < len(text)
    assert make_snippet(region, query.needles) == make_snippet(text, query.needles)


def test_a_secret_near_the_match_is_redacted_in_the_region() -> None:
    secret = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3d"
    query = parse_query("deploy")
    text = FILLER + f"deploy with token {secret} now " + FILLER
    snippet = make_snippet(redact(snippet_region(text, query.needles)).text, query.needles)
    assert secret not in snippet.text and "[REDACTED" in snippet.text and "deploy" in snippet.marked()


def test_short_non_ascii_or_unmatched_texts_are_kept_whole() -> None:
    needles = parse_query("cafe").needles
    assert snippet_region("a short cafe", needles) == "a short cafe"
    accented = FILLER + "Café " + FILLER + "cafe"
    assert snippet_region(accented, needles) == accented  # the snippet folds é, `lower` does not
    assert snippet_region(FILLER, needles) == FILLER
