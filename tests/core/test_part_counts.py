"""A huge message that alone carries the counted tail past what a plan needs is counted only until it
does (issue 35: a 100 MB tool output on one line took 5 s of counting to say it cannot be kept)."""

from __future__ import annotations

from pathlib import Path

from plan_helpers import Builder, WordCounter, exact_count, services_with

from smig_tui.core.models import Agent, Session, SessionInfo, Strategy
from smig_tui.core.tokens import PART_COUNTED_FROM

PIECE = 100_000


class PartWordCounter(WordCounter):
    """The word counter, which can also count a text's beginning (100,000 characters at a time, cut
    after a space) and remembers how many characters it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.chars = 0

    def count_many(self, texts):
        self.chars += sum(map(len, texts))
        return super().count_many(texts)

    def count(self, text: str) -> int:
        self.chars += len(text)
        return super().count(text)

    def count_at_least(self, text: str, limit: float) -> tuple[int, int]:
        total = done = 0
        while done < len(text):
            end = text.find(" ", done + PIECE)
            end = len(text) if end < 0 else end + 1
            total += len(text[done:end].split())
            self.chars += end - done
            done = end
            if total > limit:
                break
        return total, done


def session_with_huge_output(path: Path) -> Session:
    """A prompt, a tool call whose output is ~6 MB of words, a reply and a newest prompt."""
    builder = Builder()
    builder.user("please dump the log " + "older words " * 50)
    builder.tool("call_1", '{"command": "cat log"}', "lorem ipsum dolor " * (PART_COUNTED_FROM // 15))
    builder.assistant("the log is long")
    builder.user("now summarise it")
    path.write_text("{}\n", encoding="utf-8")
    info = SessionInfo(id="huge-line", agent=Agent("claude"), path=str(path))
    return Session(info=info, messages=tuple(builder.messages))


def test_the_huge_output_is_counted_only_until_the_plan_knows_it_is_dropped(tmp_path: Path) -> None:
    session = session_with_huge_output(tmp_path / "s.jsonl")
    part, whole = PartWordCounter(), WordCounter()
    plans = []
    for counter in (part, whole):
        services = services_with(tmp_path, counter, {"small-test": 20_000})
        plans.append(services.plan(session, "small-test", Strategy.TRUNCATE, reserve=0))
    partly, exactly = plans
    huge = next(m for m in session.messages if m.text_length >= PART_COUNTED_FROM)
    assert part.chars < 3 * PIECE  # of 6 MB: the tokens the budget needs and a piece more
    assert [item.message.id for item in partly.kept] == [item.message.id for item in exactly.kept]
    assert (partly.decision.fits, exactly.decision.fits) == (False, False)
    assert partly.decision.partial and huge.id in {item.message.id for item in partly.dropped}
    guessed = next(item.tokens for item in partly.items if item.message.id == huge.id)
    assert guessed == exact_count(huge.text)  # the part's density, scaled to the whole: uniform text
    assert all(item.tokens == exact_count(item.message.text) for item in partly.kept)


def test_a_target_the_huge_output_may_fit_counts_it_whole(tmp_path: Path) -> None:
    session = session_with_huge_output(tmp_path / "s.jsonl")
    plans = [
        services_with(tmp_path, counter, {"roomy-test": 10_000_000}).plan(
            session, "roomy-test", Strategy.TRUNCATE, reserve=0
        )
        for counter in (PartWordCounter(), WordCounter())
    ]
    assert plans[0].decision.fits and not plans[0].decision.partial
    assert plans[0].decision == plans[1].decision


def test_planning_again_reuses_the_part_counted(tmp_path: Path) -> None:
    session = session_with_huge_output(tmp_path / "s.jsonl")
    counter = PartWordCounter()
    services = services_with(tmp_path, counter, {"small-test": 20_000})
    first = services.plan(session, "small-test", Strategy.TRUNCATE, reserve=0)
    counted = counter.chars
    again = services.plan(session, "small-test", Strategy.TOOLS_FIRST, reserve=0)
    assert counter.chars - counted < PIECE  # the huge output is not counted again
    assert again.decision == first.decision
