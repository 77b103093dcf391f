"""Provides the JSON shape of a decision, a plan and a session's listing entry: one shape each, for the
CLI's `--json` and the MCP tools alike (docs/cli.md, "JSON shapes", documents the keys).

A front end adds what is its own around them (the CLI its token counter and every message at once, the
MCP tools their pages of messages), never another spelling of the same figure.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from smig_tui.core.models import Decision, Plan, PlanItem, SessionInfo


def decision_shape(decision: Decision) -> dict[str, Any]:
    """Whether the session fits the target as it is, with every figure the budget is made of."""
    return {
        "target": decision.target,
        "fits": decision.fits,
        "session_tokens": decision.session_tokens,
        "budget": decision.budget,
        "window": decision.window,
        "reserve": decision.reserve,
        "prompt_limit": decision.prompt_limit,
        "harness": decision.harness,
        "harness_agent": decision.harness_agent,
        "overhead": decision.overhead,
        "over_by": decision.over_by,
        "exact": decision.exact,
        "partial": decision.partial,
    }


def plan_shape(plan: Plan) -> dict[str, Any]:
    """A plan's decision and totals; its messages are `plan_item_shape` each.

    `dropped_count` and `dropped_tokens` are the messages the omission note counts, so the two agree;
    messages no plan migrates are counted apart in `not_migrated_count`.
    """
    from smig_tui.core.plan_structure import NOT_MIGRATED  # planning code: not on `smig list --json`'s path
    from smig_tui.core.plans import left_out

    omitted = [item for item in plan.dropped if item.reason not in NOT_MIGRATED]
    return {
        "target": plan.decision.target,
        "decision": decision_shape(plan.decision),
        "strategy": plan.strategy.value,
        "tokens_before": plan.tokens_before,
        "tokens_after": plan.tokens_after,
        "kept_count": len(plan.kept),
        "dropped_count": len(omitted),
        "dropped_tokens": sum(item.tokens for item in omitted),
        "not_migrated_count": len(plan.dropped) - len(omitted),
        "shortened_count": sum(1 for item in plan.kept if item.text is not None),
        "left_out": dict(zip(("messages", "tokens"), left_out(plan), strict=True)),
        "placeholder": plan.placeholder,
        "summary": plan.summary,
        "summary_budget": plan.summary_budget,
        "notes": list(plan.notes),
    }


def plan_item_shape(item: PlanItem) -> dict[str, Any]:
    """One source message's fate in a plan."""
    message = item.message
    return {
        "index": message.index,
        "id": message.id,
        "role": message.role.value,
        "kind": message.kind.value,
        "tokens": item.tokens,
        "kept": item.kept,
        "reason": item.reason,
        "shortened": item.text is not None,
        "original_tokens": item.original_tokens,
    }


SESSION_INFO_KEYS = tuple(spec.name for spec in fields(SessionInfo))
"""A listing entry's keys: every field of `SessionInfo`, by its name."""


def session_info_shape(info: SessionInfo) -> dict[str, Any]:
    """One session as `smig list --json` and MCP's `list_sessions` give it: every listing fact, by its field name."""
    shape = {key: getattr(info, key) for key in SESSION_INFO_KEYS}
    shape["agent"] = info.agent.value
    return shape
