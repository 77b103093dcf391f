from __future__ import annotations

import pytest
from plan_helpers import capacity

from smig_tui.core.decide import decide, default_reserve, parse_agent_overheads, parse_plan_settings, prompt_limit
from smig_tui.core.errors import ConfigError


def test_exactly_fits_and_one_over() -> None:
    cap = capacity(1000, max_output=100)
    assert decide(900, cap).fits
    over = decide(901, cap)
    assert not over.fits and over.over_by == 1 and over.budget == 900


def test_reserve_default_is_capped_max_output() -> None:
    assert default_reserve(capacity(1_000_000, max_output=128_000)) == 16_000
    assert default_reserve(capacity(8192, max_output=4096)) == 4096
    assert decide(0, capacity(1000, max_output=100), reserve=0).budget == 1000


def test_harness_share_applies_by_default_and_can_be_turned_off() -> None:
    cap = capacity(200_000, max_output=64_000, harness_window=167_000)
    assert decide(170_000, cap).budget == 167_000
    assert not decide(170_000, cap).fits
    off = decide(170_000, cap, harness=False)
    assert off.budget == 184_000 and off.fits and not off.harness


def test_input_cap_limits_budget() -> None:
    cap = capacity(400_000, max_output=128_000, max_input=272_000)
    assert prompt_limit(cap, harness=False) == 272_000
    assert decide(272_000, cap, harness=False).fits
    assert not decide(272_001, cap, harness=False).fits


def test_decision_is_about_session_size_not_windows() -> None:
    small_target = capacity(8_000, max_output=1_000)
    assert decide(500, small_target).fits  # a tiny session fits a tiny window


def test_negative_reserve_refused() -> None:
    with pytest.raises(ConfigError):
        decide(1, capacity(10), reserve=-1)


def test_plan_settings_validation_names_key() -> None:
    assert parse_plan_settings({"plan": {"reserve": 5000}}, "c.toml").reserve == 5000
    with pytest.raises(ConfigError, match=r"c\.toml: plan\.reserve"):
        parse_plan_settings({"plan": {"reserve": "lots"}}, "c.toml")
    with pytest.raises(ConfigError, match="plan.colour"):
        parse_plan_settings({"plan": {"colour": 1}}, "c.toml")


def test_the_receiving_agents_overhead_comes_off_the_budget_with_the_harness_share() -> None:
    cap = capacity(200_000, max_output=64_000, harness_window=167_000)
    with_agent = decide(160_000, cap, overhead=11_296)
    assert with_agent.budget == 167_000 - 11_296 and with_agent.overhead == 11_296
    assert not with_agent.fits and decide(160_000, cap).fits  # "fits" until the agent adds its own
    raw = decide(160_000, cap, harness=False, overhead=11_296)  # an export or raw API: no agent adds anything
    assert raw.overhead == 0 and raw.budget == 184_000


def test_agent_overheads_from_config_are_validated() -> None:
    assert parse_agent_overheads({"agents": {"claude": {"overhead": 25_000}}}, "c.toml") == {"claude": 25_000}
    assert parse_agent_overheads({}, "c.toml") == {}
    with pytest.raises(ConfigError, match="c.toml: agents.codex.overhead must be a whole number"):
        parse_agent_overheads({"agents": {"codex": {"overhead": -1}}}, "c.toml")
    with pytest.raises(ConfigError, match=r"\[agents.cursor\] is not an agent"):
        parse_agent_overheads({"agents": {"cursor": {"overhead": 1}}}, "c.toml")
    with pytest.raises(ConfigError, match="agents.claude.window is not a setting"):
        parse_agent_overheads({"agents": {"claude": {"window": 1}}}, "c.toml")
