"""The session shape every plan shares (`plan_structure.analyse`): what is never migrated, which
messages go together, where a plan may cut, and the length guesses of uncounted messages."""

from __future__ import annotations

from dataclasses import dataclass

from smig_tui.core.models import Kind, Role
from smig_tui.core.plan_structure import R_INJECTED, R_OPAQUE, R_ORPHAN, analyse, never_migrated
from smig_tui.core.tokens import estimate, estimates
from tests.plan_helpers import Builder


def test_tool_halves_without_their_other_half_are_never_migrated() -> None:
    b = Builder()
    b.user("do it")
    b.add(Role.ASSISTANT, Kind.TOOL_CALL, "ls", tool_name="shell", call_id="answered")
    b.add(Role.TOOL, Kind.TOOL_RESULT, "a b", call_id="answered")
    b.add(Role.ASSISTANT, Kind.TOOL_CALL, "ls", tool_name="shell", call_id="unanswered")
    b.add(Role.TOOL, Kind.TOOL_RESULT, "c", call_id="never-called")
    b.add(Role.TOOL, Kind.TOOL_RESULT, "d")  # no call id at all
    b.add(Role.USER, Kind.TEXT, "<env/>", injected=True)
    b.add(Role.ASSISTANT, Kind.TOOL_CALL, "", tool_name="shell", call_id="hidden", opaque=True)
    b.add(Role.TOOL, Kind.TOOL_RESULT, "e", call_id="hidden")

    skip = never_migrated(b.messages)

    assert skip == {3: R_ORPHAN, 4: R_ORPHAN, 5: R_ORPHAN, 6: R_INJECTED, 7: R_OPAQUE}
    assert analyse(b.session()).skip == skip  # the same answer from the pass that also finds the units


def test_units_join_a_call_with_its_result_a_records_blocks_and_reasoning_with_what_follows() -> None:
    b = Builder()
    b.user("go")  # 0
    b.add(Role.ASSISTANT, Kind.REASONING, "think")  # 1, joined to 2
    b.add(Role.ASSISTANT, Kind.TEXT, "first", id="rec#1")  # 2, joined to 3 (one record)
    b.add(Role.ASSISTANT, Kind.TOOL_CALL, "ls", tool_name="shell", call_id="c1", id="rec#2")  # 3
    b.user("meanwhile")  # 4, on its own
    b.add(Role.TOOL, Kind.TOOL_RESULT, "out", call_id="c1")  # 5, joined to 3
    b.add(Role.ASSISTANT, Kind.REASONING, "", opaque=True)  # 6: never migrated, so not joined to 7
    b.assistant("after opaque reasoning")  # 7

    structure = analyse(b.session())
    unit = structure.unit

    assert unit[1] == unit[2] == unit[3] == unit[5]
    assert len({unit[0], unit[1], unit[4], unit[6], unit[7]}) == 5
    # A cut may fall before 1 (nothing of unit 1 older) and after 5, never inside the unit 1..5.
    assert structure.valid == [True, True, False, False, False, False, True, True, True]
    assert structure.first_user == 0


def test_units_and_cuts_of_random_sessions_match_their_definitions() -> None:
    """On random mixes of records of several blocks, calls answered late, early or twice, results before
    their calls, reasoning (opaque or not) and injected context: every message of a unit is named by the
    unit's first message, and a cut is valid exactly when no unit has messages on both sides of it."""
    import random

    kinds = ["text", "call", "result", "reasoning", "block"]
    for seed in range(300):
        rng = random.Random(seed)
        b = Builder()
        calls: list[str] = []
        for n in range(rng.randrange(0, 40)):
            kind = rng.choice(kinds)
            flags: dict[str, object] = {"injected": rng.random() < 0.05, "opaque": rng.random() < 0.05}
            if rng.random() < 0.5:  # one record's blocks: a user record answering several calls, say
                flags["id"] = f"rec{n // 3}#{n % 3}"
            if kind == "call":
                calls.append(f"c{n}")
                b.add(Role.ASSISTANT, Kind.TOOL_CALL, "x", tool_name="t", call_id=calls[-1], **flags)
            elif kind == "result":
                call = rng.choice(calls) if calls and rng.random() < 0.8 else f"c{n + rng.randrange(1, 5)}"
                b.add(Role.TOOL, Kind.TOOL_RESULT, "y", call_id=call, **flags)
            elif kind == "reasoning":
                b.add(Role.ASSISTANT, Kind.REASONING, "r", **flags)
            elif kind == "block":
                b.add(Role.ASSISTANT, Kind.TEXT, "z", **{"id": f"rec{n // 3}#{n % 3}", **flags})
            else:
                b.add(rng.choice([Role.USER, Role.ASSISTANT]), Kind.TEXT, "t", **flags)
        structure = analyse(b.session())
        unit, size = structure.unit, len(b.messages)
        groups: dict[int, list[int]] = {}
        for i, u in enumerate(unit):
            groups.setdefault(u, []).append(i)
        assert all(u == members[0] for u, members in groups.items()), seed
        assert structure.valid == [
            not any(members[0] < k <= members[-1] for members in groups.values()) for k in range(size + 1)
        ], seed


def test_a_session_without_messages_has_one_valid_cut() -> None:
    structure = analyse(Builder().session())

    assert (structure.skip, structure.unit, structure.valid, structure.first_user) == ({}, [], [True], None)


@dataclass
class _Stored:
    """A text a reader left on disk: only its length is known without reading it."""

    length: int

    def read(self) -> str:
        raise AssertionError("a guess never reads a stored text back")


def test_estimates_are_each_messages_estimate() -> None:
    b = Builder()
    b.user("a few words here")
    b.user("")
    b.add(Role.ASSISTANT, Kind.TOOL_CALL, '{"cmd": "ls"}', tool_name="shell", call_id="c")
    b.add(Role.ASSISTANT, Kind.TOOL_CALL, "", call_id="d")  # no name: counted as "tool"
    b.add(Role.ASSISTANT, Kind.REASONING, "", opaque=True)
    b.add(Role.TOOL, Kind.TOOL_RESULT, _Stored(10_000), call_id="c")  # type: ignore[arg-type]

    guesses = estimates(b.messages)

    assert guesses == [estimate(message) for message in b.messages]
    assert guesses[4] == 0 and guesses[5] > 3_000
    # chars / 3, rounded up, plus 4 of framing; a call adds its name and a space, an unnamed one "tool"
    assert guesses == [6 + 4, 0 + 4, 7 + 4, 2 + 4, 0, 3_334 + 4]
