"""The split-digit count for tokenizers that split every digit (Gemma for Gemini, Qwen): o200k_base's
tokens with each all-digit token counted once per digit, cached and labelled apart from plain o200k.
Runs on a fresh clone; the exact counts skip when tiktoken cannot load o200k_base offline."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest
import tiktoken

from smig_devtools.calibrate_tokenizer import best_base
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.adapters.paths import resolve_paths
from smig_tui.adapters.tokenizers.approx_counter import ApproxCounter
from smig_tui.adapters.tokenizers.tiktoken_counter import (
    BATCH_MIN,
    SPLIT_DIGITS,
    SplitDigitCounter,
    TiktokenCounter,
    make_counter,
)
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.capacity import counted_exactly
from smig_tui.core.tokens import MESSAGE_OVERHEAD, render_for_count
from smig_tui.services import Services
from smig_tui.tui.backend import counter_label

CODEX_MAIN = "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"

TEXTS = [
    "port 8080 on 127.0.0.1, pid 4242",
    "1234567",
    "total 48\n-rw-r--r-- 1 user staff 10485760 Dec  3 19:58 big.bin\n",
    '{"line": 120, "column": 7, "sha": "9f86d081884c7d659a2feaeb0b2b6a3c"}',
    "v1.2.3 released 2026-12-03T19:58:06Z after 0.000123s",
    "no digits here at all",
    "",
    "café №7: ½12 and 12½3 cost 3² = 9 (x²), in ٣٤٥ and １２３ too: 2026 → 2027",
    "価格は12345円です 🙂 99",
]
"""Numbers in every shape sessions hold, ASCII and not (`½` and `²` join o200k's digit groups)."""


@pytest.fixture
def encoding(exact_tokens: None) -> tiktoken.Encoding:
    return tiktoken.get_encoding("o200k_base")


def _by_the_definition(encoding: tiktoken.Encoding, text: str) -> int:
    """o200k's tokens, each made only of ASCII digits counted once per digit: the count's definition."""
    total = 0
    for token in encoding.encode_ordinary(text):
        piece = encoding.decode_single_token_bytes(token)
        total += len(piece) if piece.isdigit() else 1
    return total


def _fixture_texts(services: Services) -> list[str]:
    texts = []
    for info in services.list_sessions():
        texts += [render_for_count(m) for m in services.load_session(info).messages]
    return texts


def _services() -> Services:
    paths = resolve_paths()
    return Services(paths=paths, config={}, sources=[CodexSource(codex_home()), ClaudeSource(claude_home())])


def test_every_group_o200k_cuts_a_digit_run_into_is_one_token(encoding: tiktoken.Encoding) -> None:
    # Why ASCII text may be counted from its digit groups alone: all 1,110 groups of 1-3 digits are single tokens.
    groups = [str(n).zfill(width) for width in (1, 2, 3) for n in range(10**width)]
    assert len(groups) == 1110
    assert all(len(encoding.encode_ordinary(group)) == 1 for group in groups)
    assert encoding.encode_ordinary("1234567") == encoding.encode_ordinary("123") + encoding.encode_ordinary(
        "456"
    ) + encoding.encode_ordinary("7")


def test_the_split_digit_count_is_o200k_with_one_token_per_digit(
    encoding: tiktoken.Encoding, fake_home: dict[str, Path]
) -> None:
    counter = make_counter(SPLIT_DIGITS)
    plain = make_counter("o200k_base")
    assert isinstance(counter, SplitDigitCounter) and counter.name == SPLIT_DIGITS
    assert counter.count("1234567") == 7 and plain.count("1234567") == 3
    assert counter.count("no digits here at all") == plain.count("no digits here at all")
    texts = TEXTS + _fixture_texts(_services())
    assert len(texts) > BATCH_MIN  # count_many takes the threaded path too
    expected = [_by_the_definition(encoding, text) for text in texts]
    assert [counter.count(text) for text in texts] == expected
    assert counter.count_many(texts) == expected
    assert sum(expected) > sum(plain.count_many(texts))


def test_non_ascii_numerals_joining_a_digit_group_are_counted_from_the_tokens(encoding: tiktoken.Encoding) -> None:
    counter = make_counter(SPLIT_DIGITS)
    # `½12` is one of o200k's digit groups (`\p{N}{1,3}`) but two tokens, `½` and `12`: only `12` splits.
    assert counter.count("x ½12") == len(encoding.encode_ordinary("x ½12")) + 1
    # Full-width and Arabic-Indic digits are no ASCII digits: counted as o200k counts them.
    for text in ("１２３４", "٣٤٥٦"):
        assert counter.count(text) == len(encoding.encode_ordinary(text))


def test_offline_the_split_digit_counter_is_the_labelled_estimate() -> None:
    def unavailable(name: str) -> tiktoken.Encoding:
        raise OSError(f"no BPE file for {name}")

    counter = make_counter(SPLIT_DIGITS, loader=unavailable)
    assert isinstance(counter, ApproxCounter) and not counter.exact
    assert "o200k_split_digits" in counter.reason


def test_the_split_digit_counts_are_cached_on_disk_under_their_own_key(
    exact_tokens: None, fake_home: dict[str, Path]
) -> None:
    services = _services()
    session = services.load_session(services.find_session(CODEX_MAIN))
    gemini = services.capacities.lookup("gemini-2.5-pro")
    gpt = services.capacities.lookup("gpt-5.5")
    split = services.count_session(session, replace(gemini, calibration=1.0))
    plain = services.count_session(session, gpt)
    assert split != plain
    later = _services()  # a new process: only the disk cache knows the counts
    for capacity, counts in ((gemini, split), (gpt, plain)):
        counter = later.counter_for(capacity)
        known = later.token_cache.known(session, counter)
        assert (known.status, known.counts) == ("hit", counts), counter.name
    assert later.counter_for(gemini) is later.counter_for(replace(gemini, name="gemini-3.1-pro-preview"))
    assert type(later.counter_for(gpt)) is TiktokenCounter  # OpenAI targets never pay for the digit pass


def test_a_split_digit_count_is_never_labelled_exact_even_at_factor_1(
    exact_tokens: None, fake_home: dict[str, Path]
) -> None:
    paths = resolve_paths()
    own = {"models": {"gemini-2.5-pro": {"calibration": 1.0}}}
    services = Services(paths=paths, config=own, sources=[CodexSource(codex_home()), ClaudeSource(claude_home())])
    model = services.capacities.lookup("gemini-2.5-pro")
    assert (model.encoding, model.calibration) == (SPLIT_DIGITS, 1.0)
    assert not counted_exactly(model) and counted_exactly(services.capacities.lookup("gpt-5.5"))
    assert counter_label(services, model) == (False, "o200k_split_digits × 1, ± not measured")
    session = services.load_session(services.find_session(CODEX_MAIN))
    assert not services.plan(session, "gemini-2.5-pro").decision.exact
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    ctx = Context(out=out)
    ctx.__dict__["services"] = services
    assert main(["models", "gemini-2.5-pro"], ctx) == 0
    assert (
        "counted with o200k_split_digits x 1 (estimate ± not measured, gemini tokenizer family)"
        in out.stdout.getvalue()
    )  # type: ignore[attr-defined]


def test_the_devtool_keeps_the_base_with_the_lower_held_out_error() -> None:
    def bases(plain: float | None, split: float | None) -> dict[str, dict[str, float | None]]:
        return {"o200k_base": {"held_out_error": plain}, "o200k_split_digits": {"held_out_error": split}}

    assert best_base(bases(0.16, 0.08)) == "o200k_split_digits"  # Gemini, Qwen
    assert best_base(bases(0.02, 0.14)) == "o200k_base"  # Llama, DeepSeek
    assert best_base(bases(0.05, 0.05)) == "o200k_base"  # a tie keeps the plain one
    assert best_base(bases(None, None)) == "o200k_base"  # nothing judged: no reason to change


def test_a_model_of_the_users_own_may_count_with_split_digits(exact_tokens: None) -> None:
    paths = resolve_paths()
    own = {"models": {"my-local-qwen": {"context_window": 32768, "encoding": "o200k_split_digits"}}}
    services = Services(paths=paths, config=own, sources=[])
    model = services.capacities.lookup("my-local-qwen")
    assert model.encoding == SPLIT_DIGITS and not counted_exactly(model)
    assert isinstance(services.counter_for(model), SplitDigitCounter)
    assert services.measure_for(model)("pid 4242") == services.counter_for(model).count("pid 4242") + MESSAGE_OVERHEAD


@pytest.mark.parametrize(
    "unit",
    ["word  and\n  more 12345 ", "é語😀 x", "QUJD+/=12ab", "abc" * 7, "9" * 5, " \n" * 3, "a1!"],
)
def test_a_long_text_is_estimated_in_slices_as_it_is_whole(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    """A long text's estimate is summed over slices, each cut where a piece starts: the same count as
    the whole's, whatever shape falls on a cut (a 100 MB text's pieces in one list held 1.5 GB)."""
    from smig_tui.adapters.tokenizers import approx_counter

    text = (unit * (3000 // len(unit) + 1))[:2999] + "tail"
    whole = approx_counter._estimate(text)
    for size in (1, 7, 64, 1000):
        monkeypatch.setattr(approx_counter, "SLICE_CHARS", size)
        assert ApproxCounter().count(text) == whole, size
