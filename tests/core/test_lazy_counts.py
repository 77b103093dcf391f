"""Planning a huge session counts exactly only the newest messages the decision and plan need."""

from __future__ import annotations

import json
from pathlib import Path

from plan_helpers import Builder, WordCounter, exact_count, huge_session, services_with, words

from smig_tui.cli.plan import decision_line
from smig_tui.core.models import Strategy
from smig_tui.core.tokens import count_newest, estimate
from smig_tui.services import PARTIAL_NOTE


class SpyCounter(WordCounter):
    """The word counter, remembering every text it was asked to count."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def count_many(self, texts):
        self.texts.extend(texts)
        return super().count_many(texts)


def test_huge_session_counts_only_the_kept_tail_exactly(tmp_path: Path) -> None:
    counter = SpyCounter()
    session = huge_session(tmp_path / "s.jsonl", 20_000)
    services = services_with(tmp_path, counter, {"small-test": 5_000})
    plan = services.plan(session, "small-test", Strategy.TRUNCATE, reserve=0)
    assert plan.decision.partial and not plan.decision.fits
    assert plan.decision.budget == 5_000
    assert len(counter.texts) < 500  # of 20,000 messages
    kept = plan.kept
    assert kept and all(item.tokens == exact_count(item.message.text) for item in kept)
    assert plan.tokens_after <= plan.decision.budget
    assert PARTIAL_NOTE in plan.notes
    line = decision_line(plan.decision, services.capacities.lookup("small-test"))
    assert "must compress: session ≈" in line and "older messages estimated" in line


def test_a_session_near_the_budget_is_counted_fully_and_decided_exactly(tmp_path: Path) -> None:
    session = huge_session(tmp_path / "s.jsonl", 400)
    total = sum(exact_count(m.text) for m in session.messages)
    counter = SpyCounter()
    services = services_with(tmp_path, counter, {"edge-test": total, "under-test": total - 1})
    fits = services.plan(session, "edge-test", Strategy.TRUNCATE, reserve=0)
    short = services.plan(session, "under-test", Strategy.TRUNCATE, reserve=0)
    assert fits.decision.fits and not fits.decision.partial
    assert fits.decision.session_tokens == total
    assert not short.decision.fits and not short.decision.partial
    assert short.decision.session_tokens == total and short.decision.over_by == 1
    assert len(counter.texts) == 400  # every message counted once, none twice
    assert PARTIAL_NOTE not in short.notes


def test_replanning_for_a_bigger_target_counts_only_the_extra_messages(tmp_path: Path) -> None:
    counter = SpyCounter()
    session = huge_session(tmp_path / "s.jsonl", 20_000)
    services = services_with(tmp_path, counter, {"small-test": 5_000, "big-test": 50_000})
    small = services.plan(session, "small-test", Strategy.TRUNCATE, reserve=0)
    first = len(counter.texts)
    big = services.plan(session, "big-test", Strategy.TRUNCATE, reserve=0)
    assert len(counter.texts) > first
    assert len(set(counter.texts)) == len(counter.texts)  # no message counted twice
    assert len(big.kept) > len(small.kept)
    assert len(counter.texts) < 20_000 // 5  # the extra tail, not the session
    assert all(item.tokens == exact_count(item.message.text) for item in big.kept)
    again = len(counter.texts)
    services.plan(session, "small-test", Strategy.TOOLS_FIRST, reserve=0)
    assert len(counter.texts) == again


def test_estimates_never_reach_the_persistent_cache(tmp_path: Path) -> None:
    session = huge_session(tmp_path / "s.jsonl", 5_000)
    services = services_with(tmp_path, SpyCounter(), {"small-test": 2_000})
    services.plan(session, "small-test", Strategy.TRUNCATE, reserve=0)
    [entry_file] = [p for p in (services.paths.cache_dir / "tokens").glob("*.json") if p.name != "index.json"]
    stored = json.loads(entry_file.read_text())["counts"]
    exact = [exact_count(m.text) for m in session.messages]
    assert None in stored and stored[-1] == exact[-1]
    assert all(n is None or n == e for n, e in zip(stored, exact, strict=True))
    assert services.token_cache.cached_stats(session.info) is None  # no listing total from guesses
    fresh_counter = SpyCounter()
    fresh = services_with(tmp_path, fresh_counter, {"small-test": 2_000})
    assert fresh.count_session(session, fresh.capacities.lookup("small-test")) == exact
    assert len(fresh_counter.texts) == stored.count(None)  # what was cached is not counted again
    assert None not in json.loads(entry_file.read_text())["counts"]


def test_count_newest_stops_once_the_exact_tail_passes_the_need() -> None:
    builder = Builder()
    for i in range(1_000):
        builder.user(f"m{i} " + words(9))
    messages = builder.session().messages
    known: list[int | None] = [None] * len(messages)
    asked: list[int] = []

    def count(batch: list[int]) -> list[int]:
        asked.extend(batch)
        return [exact_count(messages[i].text) for i in batch]

    counted = count_newest(messages, known, 140, count)
    assert counted == len(asked) and len(set(asked)) == len(asked)
    tail = [n for n in known if n is not None]
    assert sum(tail) > 140 and known[-1] == 14 and known[0] is None
    assert known[: len(messages) - len(tail)] == [None] * (len(messages) - len(tail))


def test_estimate_is_the_rendered_length_rule() -> None:
    import math

    from smig_tui.core.tokens import CHARS_PER_TOKEN, framed, render_for_count

    builder = Builder()
    builder.user("hello there")
    builder.tool("c1", '{"cmd": "ls -la"}', "x" * 100)
    builder.add(builder.messages[0].role, builder.messages[0].kind, "secret", opaque=True)
    builder.add(builder.messages[1].role, builder.messages[1].kind, "", tool_name="shell", call_id="c2")
    for message in builder.messages:
        rendered = render_for_count(message)
        expected = framed(math.ceil(len(rendered) / CHARS_PER_TOKEN), message)
        assert estimate(message) == expected
