"""A session's own logged usage against smig's count, on real Claude Code transcripts."""

from __future__ import annotations

from pathlib import Path

import pytest

from smig_devtools.calibrate import measure_files
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.core.calibration import MIN_COUNTED, measure_growth
from smig_tui.core.models import Agent, SessionInfo
from smig_tui.services import build_services

OPUS_46 = "marot__spotter__subagent.jsonl"  # claude-opus-4-6, logged usage on every call


def _load(shared: Path, name: str):
    services = build_services()
    path = shared / "claude" / name
    info = SessionInfo(
        id=path.stem,
        agent=Agent("claude"),
        path=str(path),
        size=path.stat().st_size,
        mtime=path.stat().st_mtime,
        model="claude-opus-4-6",
    )
    return services, ClaudeSource(claude_home()).load(info, lambda _w: None)


@pytest.mark.usefixtures("exact_tokens")
def test_growth_compares_logged_prompts_with_smigs_count(shared_fixtures) -> None:
    services, session = _load(shared_fixtures, OPUS_46)
    raw = services.count_session(session, services.capacities.lookup("gpt-5.5"))
    growth = measure_growth(session, raw)
    assert growth.counted >= MIN_COUNTED and growth.stretches >= 3
    assert growth.ratio is not None and 1.2 < growth.ratio < 1.7  # Claude counts more than o200k
    assert measure_growth(session, raw, guessed=range(len(raw))).ratio is None  # nothing trusted when guessed


@pytest.mark.usefixtures("exact_tokens")
def test_plan_uses_the_logged_size_for_the_same_tokenizer_only(shared_fixtures) -> None:
    services, session = _load(shared_fixtures, OPUS_46)
    ratio = measure_growth(session, services.count_session(session, services.capacities.lookup("gpt-5.5"))).ratio
    assert ratio is not None
    openai = services.plan(session, "gpt-5.5")  # o200k, exact: smig's own count of what migrates
    assert any("not used for gpt-5.5" in n for n in openai.notes)
    raw = openai.decision.session_tokens

    same = services.plan(session, "claude-sonnet-4-6")  # claude-4.6 family, like the session's Opus 4.6
    note = next(n for n in same.notes if "prompt growth" in n)
    assert f"ratio {ratio:.2f}" in note and "the plan counts with it" in note and "not the family's 1.45" in note
    assert same.decision.session_tokens == pytest.approx(raw * ratio, rel=0.02)

    newer = services.plan(session, "claude-opus-5-5")  # claude-4.7: another tokenizer, family factor stays
    assert any("not used for claude-opus-5-5" in n for n in newer.notes)
    assert newer.decision.session_tokens == pytest.approx(raw * 1.9, rel=0.02)


def test_calibration_tool_reports_the_shipped_family_factor(shared_fixtures) -> None:
    rows = measure_files(sorted((shared_fixtures / "claude").glob("*.jsonl")))
    trusted = [row["ratio"] for row in rows if row["trusted"] and row["family"] == "claude-4.6"]
    assert len(trusted) >= 3
    shipped = build_services().capacities.tokenizers["claude-4.6"].calibration
    assert min(trusted) <= shipped <= max(trusted)
