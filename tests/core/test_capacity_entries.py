"""Walks every entry of the shipped capacity table: sound figures, each with a source and a date."""

from __future__ import annotations

import re

import pytest

from smig_tui.adapters.capacity_table import load_builtin
from smig_tui.core.capacity import FIGURES, STATUSES, normalise, retired_warning

DATE = re.compile(r"\b20\d\d-\d\d(?:-\d\d)?\b")


@pytest.fixture(scope="module")
def table():
    return load_builtin()


def test_every_entry_is_sound(table) -> None:
    assert len(table.models) > 120
    for model in table.models:
        name = model.name
        assert model.context_window > 0 and model.max_output > 0, name
        assert model.max_output < model.context_window, name
        assert model.max_input is None or 0 < model.max_input <= model.context_window, name
        assert model.status in STATUSES, name
        assert model.tokenizer in table.tokenizers, name
        for figure in FIGURES:
            if figure != "max_input" or model.max_input:
                assert DATE.search(model.source_of(figure)), f"{name}.{figure} has no dated source"
        for agent in model.agents:
            assert 0 < agent.usable < agent.window <= model.context_window, name
            assert agent.max_window is None or agent.window <= agent.max_window <= model.context_window, name
            assert DATE.search(agent.source), f"{name} in {agent.agent} has no dated source"
        if model.agents:
            assert model.harness_window == model.agents[0].usable, name


def test_no_alias_points_at_two_models(table) -> None:
    owners: dict[str, str] = {}
    for model in table.models:
        for name in (model.name, *model.aliases):
            key = normalise(name)
            assert owners.setdefault(key, model.name) == model.name, f"{name} names {owners[key]} and {model.name}"


def test_retired_models_stay_readable_and_name_a_current_replacement(table) -> None:
    retired = [m for m in table.models if m.status == "retired"]
    assert {"claude-sonnet-4", "claude-opus-4", "claude-sonnet-4-5", "claude-3-7-sonnet", "deepseek-chat"} <= {
        m.name for m in retired
    }
    for model in retired:
        assert model.retired and DATE.fullmatch(model.retired), model.name
        assert table.lookup(model.replacement).status == "current", model.name
        warning = retired_warning(model)
        assert warning and model.replacement in warning and warning.count(".") >= 1
    assert table.lookup("claude-sonnet-4-5-20250929").name == "claude-sonnet-4-5"  # old sessions still resolve
    assert retired_warning(table.lookup("claude-sonnet-5-5")) is None


def test_corrected_figures(table) -> None:
    deepseek = table.lookup("deepseek-chat")
    assert (deepseek.context_window, deepseek.max_output, deepseek.replacement) == (
        1_048_576,
        393_216,
        "deepseek-flash",
    )
    assert table.lookup("deepseek-v3.1").context_window == 128_000  # the V3 line is its own legacy entry now
    assert table.lookup("deepseek-v4-flash").name == "deepseek-flash"
    assert table.lookup("mistral-large-latest").name == "mistral-large-3"
    assert table.lookup("devstral-latest").context_window == 262_144
    for name in ("gpt-5.6-sol", "gpt-6-astra", "gpt-6.2-sol", "gpt-5.5"):
        assert table.lookup(name).max_input == 922_000, name


def test_codex_windows_follow_its_catalog(table) -> None:
    """Codex 0.171.0's bundled catalog: gpt-5.6-* and gpt-6-* at 272,000, gpt-6.1/6.2-sol at 500,000."""
    sol = table.lookup("gpt-5.6-sol")
    (codex,) = sol.agents
    assert (codex.agent, codex.window, codex.usable, codex.max_window) == ("codex", 272_000, 258_400, 872_000)
    assert table.lookup("gpt-6.2-sol").harness_window == 475_000
    assert table.lookup("claude-opus-5-5").agents[0].usable == 967_000


def test_calibration_by_tokenizer_family(table) -> None:
    old, new = table.lookup("claude-opus-4-6"), table.lookup("claude-opus-5-5")
    assert (old.tokenizer, new.tokenizer) == ("claude-4.6", "claude-4.7")
    assert new.calibration == pytest.approx(old.calibration * 1.3, rel=0.02)  # "about 30% more tokens"
    assert "transcripts" in old.source_of("calibration")
    assert table.lookup("gpt-5.6-sol").calibration == 1.0
    assert table.lookup("gemini-4-argon").tokenizer == "gemini"


def test_claude_code_windows_follow_its_catalog(table) -> None:
    """Claude Code 2.1.332's bundled catalog: Opus/Sonnet 4.6 run at 200K unless named with `[1m]`."""
    assert table.lookup("claude-opus-4-6").harness_window == 167_000
    assert table.lookup("claude-opus-4-6[1m]").harness_window == 967_000
    assert table.lookup("claude-sonnet-4-6").agents[0].max_window == 1_000_000
    assert table.lookup("fable").name == "claude-fable-5-2"  # Claude Code's alias target
