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
