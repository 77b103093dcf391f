"""The search query language end to end: OR, NOT and -word run (never a silent empty answer),
letters FTS5 does not fold are found as people type them, every snippet shows its match, and a
query may start with -word without `--`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from search_helpers import message_line, tool_lines, write_rollout

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.search import SearchQueryError, make_snippet, parse_query, snippet_region


def smig(*argv: str) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(argv), Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()


def _found(*query: str) -> list[str]:
    code, stdout, stderr = smig("search", "--json", *query)
    assert code == 0, stderr
    return sorted(Marked(hit).text for hit in json.loads(stdout))


class Marked:
    """A hit's snippet, checked to show at least one match."""

    def __init__(self, hit: dict[str, object]) -> None:
        snippet, spans = str(hit["snippet"]), hit["spans"]
        assert isinstance(spans, list) and spans, f"no match shown in {snippet!r}"
        self.text = snippet


@pytest.fixture
def corpus(isolated_homes: dict[str, Path]) -> Path:
    turns = [
        ("user", "the parser crashed on empty input"),
        ("assistant", "the lexer handles whitespace now"),
        ("user", "tokenizer speed is fine"),
        ("assistant", "parser and lexer both pass"),
        ("user", "We cross the Øresund bridge to Malmö"),
        ("assistant", "Łódź is in Poland; the Straße is closed"),
        ("user", "the Ærø ferry leaves at noon"),
        ("assistant", "call parse_query on the input"),
    ]
    path = write_rollout(isolated_homes["codex"], turns)
    noise = "\n".join(f"line {n}: catalog entry ok" for n in range(4000))
    with path.open("a", encoding="utf-8") as handle:
        handle.write(tool_lines("cat build.log", f"{noise}\nFINAL: linker error in module zeta\n", "call-1"))
        handle.write(message_line("user", "done"))
    return path


def test_or_matches_either_side(corpus: Path) -> None:
    assert _found("lexer", "OR", "tokenizer") == [
        "parser and lexer both pass",
        "the lexer handles whitespace now",
        "tokenizer speed is fine",
    ]
    assert _found("parser", "lexer", "OR", "crashed") == [  # parser AND (lexer OR crashed)
        "parser and lexer both pass",
        "the parser crashed on empty input",
    ]


def test_not_and_dash_leave_messages_out(corpus: Path) -> None:
    assert _found("parser", "NOT", "lexer") == ["the parser crashed on empty input"]
    assert _found("parser", "-lexer") == ["the parser crashed on empty input"]
    assert _found("parser", '-"empty input"') == ["parser and lexer both pass"]
    assert _found("-lexer", "parser") == ["the parser crashed on empty input"]  # no `--` needed
    assert _found("--", "-crashed", "parser") == ["parser and lexer both pass"]  # and `--` still works
    code, stdout, _ = smig("search", "-lexer", "parser", "--json", "--limit", "5")
    assert code == 0 and len(json.loads(stdout)) == 1  # options after a -word still read as options


def test_unsupported_constructs_are_a_sentence_never_silence(corpus: Path) -> None:
    for query, said in [
        (["-lexer"], "only leaves messages out: give something to find"),
        (["parser", "OR"], "OR in search query 'parser OR' needs a term after it"),
        (["OR", "parser"], "needs a term after it and, for OR, before it"),
        (["parser", "OR", "🚀"], "OR joins words, or Chinese, Japanese or Korean terms"),
    ]:
        code, stdout, stderr = smig("search", *query)
        assert code == 2 and stdout == "" and said in stderr, (query, stderr)
        assert stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("oresund", "We cross the Øresund bridge to Malmö"),
        ("Øresund", "We cross the Øresund bridge to Malmö"),
        ("lodz", "Łódź is in Poland; the Straße is closed"),
        ("strasse", "Łódź is in Poland; the Straße is closed"),
        ("aero", "the Ærø ferry leaves at noon"),
        ('"oresund bridge"', "We cross the Øresund bridge to Malmö"),
    ],
)
def test_letters_without_a_decomposition_fold_as_typed(corpus: Path, query: str, expected: str) -> None:
    code, stdout, _ = smig("search", query, "--json")
    [hit] = json.loads(stdout)
    assert code == 0 and hit["snippet"] == expected
    [(start, end)] = hit["spans"][:1]
    shown = hit["snippet"][start:end].lower()
    assert shown in ("øresund", "łódź", "straße", "ærø", "øresund bridge"), shown


def test_an_identifier_matched_through_its_words_is_marked(corpus: Path) -> None:
    code, stdout, _ = smig("search", "parse", "query", "--json")
    [hit] = json.loads(stdout)
    assert [hit["snippet"][a:b] for a, b in hit["spans"]] == ["parse", "query"]
    code, stdout, _ = smig("search", "parse-query", "--json")
    [hit] = json.loads(stdout)
    assert [hit["snippet"][a:b] for a, b in hit["spans"]] == ["parse_query"]


def test_a_long_tool_output_is_cut_around_its_match_not_an_earlier_needle(corpus: Path) -> None:
    code, stdout, _ = smig("search", "linker", "error", "--json")
    [hit] = json.loads(stdout)
    marked = [hit["snippet"][a:b] for a, b in hit["spans"]]
    assert code == 0 and marked == ["linker", "error"]
    code, stdout, _ = smig("search", '"log"', "--json")  # `catalog` holds "log" 4,000 times; the word is in the command
    assert all(Marked(hit) for hit in json.loads(stdout))


def test_snippet_rules_directly() -> None:
    query = parse_query("linker")
    text = "catalog linkers " * 300 + "the linker failed"
    region = snippet_region(text, query.needles, 200, query.anchors)
    snippet = make_snippet(region, query.needles, anchors=query.anchors)
    assert snippet.text.endswith("the linker failed")
    assert [snippet.text[a:b] for a, b in snippet.spans][-1] == "linker"
    with pytest.raises(SearchQueryError, match="only leaves messages out"):
        parse_query("NOT x")
    assert parse_query("a OR b c").word_match == '("a" OR "b") AND "c"'
    assert parse_query("a -b NOT c").word_match == '(("a") NOT "b") NOT "c"'
