"""The pure search rules: query parsing, which index answers a term, tiers, --since, snippets."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from smig_tui.core.models import Kind, Role
from smig_tui.core.search import (
    CONTEXT,
    CONVERSATION,
    TOOLING,
    SearchQueryError,
    char_tokens,
    make_snippet,
    parse_query,
    parse_since,
    tier,
    word_tokens,
)


def test_words_phrases_and_prefixes_become_one_fts5_expression() -> None:
    query = parse_query('build "unit test" migr*')
    assert [(t.text, t.phrase, t.prefix) for t in query.terms] == [
        ("build", False, False),
        ("unit test", True, False),
        ("migr", False, True),
    ]
    assert query.word_match == '"build" AND "unit test" AND "migr"*'
    assert query.gram_match is None and query.scans == () and not query.needs_confirming


def test_lower_case_operators_and_quotes_inside_terms_are_searched_for_not_obeyed() -> None:
    query = parse_query("not foo-bar or")
    assert query.word_match == '"not" AND "foo bar" AND "or"'


def test_cjk_goes_to_trigrams_short_cjk_and_emoji_to_character_tokens_punctuation_to_a_scan() -> None:
    query = parse_query("数据库 迁移 🚀 ->")
    assert [term.answered_by for term in query.terms] == ["grams", "chars", "chars", "scan"]
    assert query.gram_match == '"数据库"'
    assert query.word_match == '"smigch79fb" AND "smigch8fc1" AND "smigch1f680"'
    assert query.scans == ("->",) and query.needs_confirming
    assert query.confirms("数据库迁移 🚀") and not query.confirms("移迁 🚀")


def test_each_emoji_and_cjk_character_gets_its_own_token() -> None:
    assert set(char_tokens("我们 🚀👍🏽 ok").split()) == {
        "smigch4eec",
        "smigch6211",
        "smigch1f680",
        "smigch1f44d",
        "smigch1f3fd",
    }
    assert char_tokens("plain words -> only") == ""


def test_accents_and_case_fold_as_the_word_tokenizer_does() -> None:
    assert word_tokens("Café-Crème_2") == ["cafe", "creme", "2"]


@pytest.mark.parametrize("bad", ["", "   ", '"unclosed phrase', "*", '""'])
def test_malformed_queries_are_one_clear_error(bad: str) -> None:
    with pytest.raises(SearchQueryError) as raised:
        parse_query(bad)
    assert "\n" not in str(raised.value) and str(raised.value).endswith(".")


def test_tool_traffic_ranks_below_conversation_and_injected_context_last() -> None:
    assert tier(Role.USER, Kind.TEXT, False) == CONVERSATION
    assert tier(Role.ASSISTANT, Kind.SUMMARY, False) == CONVERSATION
    assert tier(Role.TOOL, Kind.TOOL_RESULT, False) == TOOLING
    assert tier(Role.ASSISTANT, Kind.TOOL_CALL, False) == TOOLING
    assert tier(Role.USER, Kind.TEXT, True) == CONTEXT


def test_since_takes_ages_and_dates() -> None:
    now = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
    assert parse_since("7d", now) == "2026-11-26T12:00:00"
    assert parse_since("90m", now) == "2026-12-03T10:30:00"
    assert parse_since("2026-11-30", now) == "2026-11-30T00:00:00"
    assert parse_since("2026-11-30T10:00:00+02:00", now) == "2026-11-30T08:00:00"
    with pytest.raises(SearchQueryError, match="neither an age"):
        parse_since("last tuesday", now)


def test_snippet_windows_the_first_match_and_marks_every_one_in_view() -> None:
    text = "x " * 200 + "the Café menu lists café au lait\nand more " + "y " * 200
    snippet = make_snippet(text, ("cafe",), width=80)
    assert snippet.text.startswith("…") and snippet.text.endswith("…")
    assert [snippet.text[a:b] for a, b in snippet.spans] == ["Café", "café"]
    assert snippet.marked("<", ">").count("<") == 2


def test_snippet_of_cjk_and_emoji() -> None:
    snippet = make_snippet("我们讨论了数据库迁移 🚀 launch", ("数据库", "🚀"))
    assert [snippet.text[a:b] for a, b in snippet.spans] == ["数据库", "🚀"]
