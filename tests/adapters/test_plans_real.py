"""Plans over the real public session files, read by the real readers, counted by tiktoken."""

from __future__ import annotations

from pathlib import Path

import pytest

from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.core.models import Agent, Kind, Role, SessionInfo, Strategy
from smig_tui.core.plans import result_messages
from smig_tui.services import build_services

TARGETS = ("gpt-4", "gpt-4o", "claude-3-5-haiku", "deepseek-chat")


def _sessions(shared: Path):
    services = build_services()
    readers = {Agent("codex"): CodexSource(codex_home()), Agent("claude"): ClaudeSource(claude_home())}
    for agent, folder in ((Agent("codex"), "codex"), (Agent("claude"), "claude")):
        for path in sorted((shared / folder).glob("*.jsonl")):
            stat = path.stat()
            info = SessionInfo(id=path.stem, agent=agent, path=str(path), size=stat.st_size, mtime=stat.st_mtime)
            session = readers[agent].load(info, lambda _w: None)
            if session.messages:
                yield services, session


@pytest.mark.parametrize("strategy", [Strategy.TRUNCATE, Strategy.TOOLS_FIRST, Strategy.SUMMARY_TAIL])
def test_real_sessions_plan_within_budget_and_keep_pairs(shared_fixtures, strategy: Strategy) -> None:
    planned = 0
    for services, session in _sessions(shared_fixtures):
        for target in TARGETS:
            for reserve in (None, services.capacities.lookup(target).context_window - 3_000):
                plan = services.plan(session, target, strategy, reserve=reserve, pin_first_user=True)
                planned += 1
                pinned = sum(it.tokens for it in plan.kept if it.reason == "first user message")
                if pinned + 200 <= plan.decision.budget:
                    assert plan.tokens_after <= plan.decision.budget, (session.id, target, reserve)
                calls = {it.message.call_id for it in plan.kept if it.message.kind is Kind.TOOL_CALL}
                results = {it.message.call_id for it in plan.kept if it.message.kind is Kind.TOOL_RESULT}
                assert calls == results, (session.id, target)
                assert len(result_messages(plan)) == len(plan.kept) + (plan.placeholder is not None)
    assert planned > 40


def test_three_thousand_token_target_forces_compression(shared_fixtures) -> None:
    compressed = 0
    for services, session in _sessions(shared_fixtures):
        plan = services.plan(session, "gpt-4", Strategy.TRUNCATE, reserve=8_192 - 3_000, harness=False)
        if not plan.decision.fits:
            compressed += 1
            assert plan.placeholder and plan.placeholder.startswith("[smig: ")
            prompts = [
                it
                for it in plan.items
                if it.message.role is Role.USER
                and it.message.kind is Kind.TEXT
                and not it.message.injected
                and it.reason != "orphaned tool pair"
                and it.message.text.strip()
            ]
            if prompts:  # the newest typed prompt always survives, shortened when it must be
                assert prompts[-1].kept, session.id
                assert plan.tokens_after <= plan.decision.budget, session.id
            if [it.reason for it in plan.kept] in (["newest prompt"], ["tool output shortened"]):
                continue  # only the prompt fitted: nothing newer could
            if not plan.kept:
                assert any("does not fit: try the tools-first strategy" in note for note in plan.notes)
                better = services.plan(session, "gpt-4", Strategy.TOOLS_FIRST, reserve=8_192 - 3_000, harness=False)
                assert better.tokens_after <= 3_000
                continue
            assert plan.kept[-1].message.index == max(
                it.message.index
                for it in plan.items
                if it.reason not in ("injected harness context", "opaque reasoning", "orphaned tool pair")
            )
    assert compressed >= 5
