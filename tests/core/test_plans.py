from __future__ import annotations

import random

import pytest
from plan_helpers import Builder, capacity, measure, words

from smig_tui.core.decide import decide
from smig_tui.core.models import Kind, Role, Session, Strategy
from smig_tui.core.plans import (
    PLACEHOLDER_ID,
    SUMMARY_ID,
    left_out,
    make_plan,
    migratable_tokens,
    plan_summary,
    plan_summary_tail,
    plan_tools_first,
    plan_truncation,
    result_messages,
)
from smig_tui.core.tokens import MESSAGE_OVERHEAD


def counts_of(session: Session) -> list[int]:
    return [0 if m.opaque else len(m.text.split()) + MESSAGE_OVERHEAD for m in session.messages]


def conversation(turns: int = 6, size: int = 20) -> Session:
    b = Builder()
    b.user("please fix the flaky login test in the auth module", id="first")
    for t in range(turns):
        b.assistant(words(size, f"a{t}"))
        b.tool(f"c{t}", words(3, "ls"), words(size, f"out{t}"))
        b.user(words(5, f"u{t}"))
    return b.session()


def _decision(session: Session, budget: int):
    return decide(migratable_tokens(session, counts_of(session)), capacity(budget, max_output=0))


def _pairs_intact(plan) -> bool:
    kept = {(it.message.kind, it.message.call_id) for it in plan.kept}
    for kind, call in kept:
        partner = Kind.TOOL_RESULT if kind is Kind.TOOL_CALL else Kind.TOOL_CALL
        if kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT) and (partner, call) not in kept:
            return False
    return True


def test_truncation_keeps_newest_within_exact_budget_with_placeholder() -> None:
    session = conversation()
    decision = _decision(session, 150)
    plan = plan_truncation(session, counts_of(session), decision, measure)
    assert plan.tokens_after <= 150
    kept = [it.message.index for it in plan.kept]
    assert kept == list(range(kept[0], len(session.messages)))  # a contiguous newest tail
    dropped = len(session.messages) - len(kept)
    assert plan.placeholder.startswith(f"[smig: {dropped} earlier messages omitted (")
    assert "«please fix the flaky login test in the auth module»" in plan.placeholder
    assert plan.tokens_after == measure(plan.placeholder) + sum(it.tokens for it in plan.kept)
    assert _pairs_intact(plan)


def test_one_more_token_of_budget_never_keeps_less() -> None:
    session = conversation()
    counts = counts_of(session)
    previous = -1
    for budget in range(40, 260, 7):
        plan = plan_truncation(session, counts, _decision(session, budget), measure)
        assert plan.tokens_after <= budget
        assert len(plan.kept) >= previous
        previous = len(plan.kept)


def test_truncation_never_splits_a_tool_pair() -> None:
    b = Builder()
    b.user("go")
    b.add(Role.ASSISTANT, Kind.TOOL_CALL, "x", call_id="c1", tool_name="t")
    b.add(Role.ASSISTANT, Kind.TOOL_CALL, "y", call_id="c2", tool_name="t")
    b.add(Role.TOOL, Kind.TOOL_RESULT, words(30), call_id="c1")
    b.add(Role.TOOL, Kind.TOOL_RESULT, words(3), call_id="c2")
    b.assistant("done")
    session = b.session()
    for budget in range(5, 80):
        plan = plan_truncation(session, counts_of(session), _decision(session, budget), measure)
        assert _pairs_intact(plan), budget


def test_pins_and_first_user_are_kept_and_charged_first() -> None:
    session = conversation()
    plan = plan_truncation(
        session, counts_of(session), _decision(session, 120), measure, pins=frozenset({"m2"}), pin_first_user=True
    )
    reasons = {it.message.id: it.reason for it in plan.kept}
    assert reasons["first"] == "first user message"
    assert reasons["m2"] == "pinned" and reasons["m3"] == "pinned"  # the call's result comes along
    assert plan.tokens_after <= 120


def test_pins_over_budget_are_reported_not_fatal() -> None:
    session = conversation()
    plan = plan_truncation(session, counts_of(session), _decision(session, 10), measure, pin_first_user=True)
    assert any(it.message.id == "first" for it in plan.kept)
    assert plan.tokens_after > 10
    assert any("over the 10-token budget" in note for note in plan.notes)


def test_injected_opaque_and_dangling_calls_are_not_migrated() -> None:
    b = Builder()
    b.user("<environment_context>cwd</environment_context>", injected=True)
    b.user("real question")
    b.add(Role.ASSISTANT, Kind.REASONING, "gAAAA", opaque=True)
    b.assistant("answer")
    b.add(Role.TOOL, Kind.TOOL_RESULT, "orphan", call_id="lost")
    b.add(Role.ASSISTANT, Kind.TOOL_CALL, "{}", call_id="dangling", tool_name="t")
    session = b.session()
    counts = counts_of(session)
    plan = make_plan(session, counts, _decision(session, 1000), Strategy.TRUNCATE, measure)
    assert plan.strategy is Strategy.AS_IS
    assert [it.message.text for it in plan.kept] == ["real question", "answer"]
    reasons = [it.reason for it in plan.dropped]
    assert reasons == ["injected harness context", "opaque reasoning", "orphaned tool pair", "orphaned tool pair"]
    assert migratable_tokens(session, counts) == plan.tokens_after


def test_result_messages_placeholder_first_and_shortened_text() -> None:
    session = conversation()
    plan = plan_truncation(session, counts_of(session), _decision(session, 100), measure)
    result = result_messages(plan)
    assert result[0].id == PLACEHOLDER_ID and result[0].role is Role.USER and result[0].kind is Kind.SUMMARY
    assert [m.index for m in result] == list(range(len(result)))
    assert [m.id for m in result[1:]] == [it.message.id for it in plan.kept]


def test_tools_first_shortens_old_outputs_before_dropping_anything() -> None:
    b = Builder()
    b.user("start")
    for t in range(12):
        b.tool(f"c{t}", "cat log", "\n".join(words(10, f"l{t}x{i}") for i in range(60)))
        b.assistant(f"step {t} done")
    session = b.session()
    counts = counts_of(session)
    total = migratable_tokens(session, counts)
    plan = plan_tools_first(session, counts, _decision(session, total - 500), measure, keep_recent=8)
    shortened = [it for it in plan.items if it.text is not None]
    assert shortened and all(it.kept for it in shortened)
    assert not plan.dropped  # shortening alone was enough
    assert "lines /" in shortened[0].text and "elided by smig" in shortened[0].text
    assert shortened[0].original_tokens > shortened[0].tokens
    assert plan.tokens_after <= total - 500
    newest = [it for it in plan.items if it.message.kind is Kind.TOOL_RESULT][-8:]
    assert all(it.text is None for it in newest)
    assert result_messages(plan)[2].text == shortened[0].text


def test_tools_first_then_drops_old_pairs_then_truncates() -> None:
    b = Builder()
    b.user("start")
    for t in range(12):
        b.tool(f"c{t}", "cat log", "\n".join(words(10, f"l{t}x{i}") for i in range(60)))
        b.assistant(f"step {t} done")
    session = b.session()
    counts = counts_of(session)
    plan = plan_tools_first(session, counts, _decision(session, 2500), measure, keep_recent=2)
    reasons = {it.reason for it in plan.dropped}
    assert "old tool pair dropped" in reasons
    assert plan.tokens_after <= 2500 and _pairs_intact(plan)
    assert plan.placeholder is not None
    tiny = plan_tools_first(session, counts, _decision(session, 300), measure, keep_recent=2)
    assert tiny.tokens_after <= 300 and "over budget" in {it.reason for it in tiny.dropped}


def test_summary_tail_reserves_room_and_is_pending_without_summary() -> None:
    session = conversation(turns=10)
    counts = counts_of(session)
    decision = _decision(session, 200)
    pending = plan_summary_tail(session, counts, decision, measure, summary=None, summary_budget=60)
    assert pending.summary is None and pending.summary_budget == 60
    assert sum(it.tokens for it in pending.kept) + 60 <= 200
    assert any("not written yet" in n for n in pending.notes)
    done = plan_summary_tail(session, counts, decision, measure, summary="We fixed the login test.", summary_budget=60)
    assert [it.message.id for it in done.kept] == [it.message.id for it in pending.kept]
    first = result_messages(done)[0]
    assert first.id == SUMMARY_ID and "We fixed the login test." in first.text
    assert done.tokens_after <= 200
    assert {it.reason for it in done.dropped} == {"summarised"}


def test_summary_replaces_everything() -> None:
    session = conversation()
    plan = plan_summary(session, counts_of(session), _decision(session, 500), measure, summary="All of it.")
    assert not plan.kept and len(result_messages(plan)) == 1
    assert plan.tokens_after == measure(plan.placeholder)


def random_session(rng: random.Random) -> Session:
    b = Builder()
    calls = 0
    for _ in range(rng.randint(1, 60)):
        roll = rng.random()
        if roll < 0.25:
            b.user(words(rng.randint(1, 40), "u"), injected=rng.random() < 0.1)
        elif roll < 0.5:
            b.assistant(words(rng.randint(1, 40), "a"))
        elif roll < 0.6:
            b.add(Role.ASSISTANT, Kind.REASONING, "enc", opaque=rng.random() < 0.5)
        else:
            calls += 1
            b.tool(
                f"c{calls}",
                words(rng.randint(1, 5), "arg"),
                "\n".join(words(5, "o") for _ in range(rng.randint(1, 120))),
            )
    return b.session()


@pytest.mark.parametrize("seed", range(40))
def test_random_invariants(seed: int) -> None:
    rng = random.Random(seed)
    session = random_session(rng)
    counts = counts_of(session)
    budget = rng.randint(20, 3000)
    decision = _decision(session, budget)
    pins = frozenset(m.id for m in session.messages if rng.random() < 0.03)
    for strategy in (Strategy.TRUNCATE, Strategy.TOOLS_FIRST, Strategy.SUMMARY_TAIL):
        plan = make_plan(session, counts, decision, strategy, measure, pins=pins, pin_first_user=True)
        pinned_cost = sum(it.tokens for it in plan.kept if it.reason in ("pinned", "first user message"))
        if pinned_cost + 80 <= budget:
            assert plan.tokens_after <= budget, (strategy, seed)
        assert _pairs_intact(plan)
        assert all(it.kept for it in plan.items if it.message.id in pins and it.reason == "pinned")
        assert not any(it.kept for it in plan.items if it.message.injected or it.message.opaque)
        assert len(result_messages(plan)) == len(plan.kept) + (plan.placeholder is not None)


def test_replanning_5000_messages_for_a_new_target_counts_no_messages_again() -> None:
    """Re-planning is pure arithmetic over the per-message counts (its speed is in the benchmark)."""
    rng = random.Random(1)
    b = Builder()
    for t in range(1250):
        b.user(words(rng.randint(5, 30)))
        b.tool(f"c{t}", "x", words(rng.randint(5, 400)))
        b.assistant(words(rng.randint(5, 60)))
    session = b.session()
    counts = counts_of(session)
    measured: list[str] = []

    def spy_measure(text: str) -> int:
        measured.append(text)
        return measure(text)

    make_plan(session, counts, _decision(session, 50_000), Strategy.TRUNCATE, spy_measure)
    measured.clear()
    plan = make_plan(session, counts, _decision(session, 120_000), Strategy.TRUNCATE, spy_measure)
    assert len(session.messages) == 5000 and plan.tokens_after <= 120_000
    # Only the placeholder note, whose omitted count changed, is measured again.
    assert all(text.startswith("[smig:") for text in measured) and len(measured) <= 2


def test_a_tiny_budget_keeps_the_newest_prompt_shortened_around_a_counted_marker() -> None:
    b = Builder()
    b.user("set up the project", id="first")
    b.assistant(words(50, "a"))
    b.user("START " + words(400, "p") + " END", id="newest")
    b.assistant(words(300, "r"))
    session = b.session()
    plan = plan_truncation(session, counts_of(session), _decision(session, 120), measure)
    [kept] = plan.kept
    assert kept.message.id == "newest" and kept.text is not None and kept.original_tokens
    assert kept.text.startswith("START p") and kept.text.endswith("p END")
    assert "tokens elided by smig" in kept.text and len(kept.text) < len(session.messages[2].text)
    assert plan.tokens_after == measure(plan.placeholder) + kept.tokens <= 120
    assert left_out(plan) == (3, sum(counts_of(session)) - kept.original_tokens)
    assert plan.placeholder.startswith("[smig: 3 earlier messages omitted (")
    assert [m.id for m in result_messages(plan)] == [PLACEHOLDER_ID, "newest"]


def test_the_newest_prompt_is_kept_when_the_reply_after_it_is_too_big() -> None:
    b = Builder()
    b.user("first question")
    b.assistant(words(20, "a"))
    b.user("the question that matters now", id="newest")
    b.assistant(words(500, "r"))
    session = b.session()
    plan = plan_truncation(session, counts_of(session), _decision(session, 80), measure)
    assert [it.message.id for it in plan.kept] == ["newest"]
    assert plan.kept[0].text is None and plan.kept[0].reason == "newest prompt"
    assert plan.tokens_after <= 80 and not any("does not fit" in note for note in plan.notes)


def test_left_out_counts_conversation_messages_only_and_matches_the_placeholder() -> None:
    b = Builder()
    b.user("# AGENTS.md instructions", injected=True)
    b.user("please fix the login test")
    b.assistant(words(40, "a"))
    b.tool("c1", words(3, "ls"), words(40, "out"))
    b.user(words(5, "u"))
    b.assistant(words(5, "done"))
    session = b.session()
    counts = counts_of(session)
    as_is = make_plan(session, counts, _decision(session, 10_000), Strategy.AS_IS, measure)
    assert left_out(as_is) == (0, 0)  # the AGENTS.md block is never migrated, so not "left out"
    plan = plan_truncation(session, counts, _decision(session, 40), measure)
    omitted, tokens = left_out(plan)
    assert plan.placeholder.startswith(f"[smig: {omitted} earlier messages omitted ({tokens:,} tokens)")
    assert omitted == 4 and tokens == sum(counts[1:5])


def long_talk_with_tools(rng: random.Random) -> Session:
    """Prose that alone outgrows small budgets, between tool exchanges with long outputs."""
    b = Builder()
    for t in range(rng.randint(10, 40)):
        b.user(words(rng.randint(5, 60), f"u{t}"))
        b.tool(f"c{t}", "cat log", "\n".join(words(8, f"l{t}x{i}") for i in range(rng.randint(5, 90))))
        b.assistant(words(rng.randint(5, 80), f"a{t}"))
    return b.session()


@pytest.mark.parametrize("seed", range(30))
def test_tools_first_skips_shortening_only_where_the_drop_step_removes_every_old_exchange(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan is the same as when every old output is shortened first; nothing is measured for them."""
    import smig_tui.core.plans as plans

    rng = random.Random(seed)
    session = long_talk_with_tools(rng)
    counts = counts_of(session)
    total = migratable_tokens(session, counts)
    budget = rng.choice([rng.randint(30, 400), rng.randint(total // 3, total)])
    decision = _decision(session, budget)
    pins = frozenset(m.id for m in session.messages if rng.random() < 0.02)
    measured: list[str] = []

    def counting(text: str) -> int:
        measured.append(text)
        return measure(text)

    lazy = plan_tools_first(session, counts, decision, counting, pins=pins, pin_first_user=True, keep_recent=2)
    skipped = not any("elided by smig" in text for text in measured)
    monkeypatch.setattr(plans, "_all_dropped_anyway", lambda *_: None)
    eager = plan_tools_first(session, counts, decision, measure, pins=pins, pin_first_user=True, keep_recent=2)
    assert tuple(lazy.items) == tuple(eager.items)
    assert (lazy.placeholder, lazy.tokens_before, lazy.tokens_after, lazy.notes) == (
        eager.placeholder,
        eager.tokens_before,
        eager.tokens_after,
        eager.notes,
    )
    rest = total - sum(
        counts[i] for it in eager.items if it.reason == "old tool pair dropped" for i in [it.message.index]
    )
    if skipped:  # only when the rest alone is over the budget, so every old exchange went
        assert rest > budget and not any(it.text is not None for it in eager.items)
