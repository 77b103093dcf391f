import dataclasses
from dataclasses import fields

import pytest

from smig_tui.core.models import Agent, Kind, Message, Role, SessionInfo, Usage, new_message, new_usage


def _every_field_set() -> tuple[object, ...]:
    """A value for each field of Message, none of them its default."""
    return (
        7,
        "L12.2",
        Role.TOOL,
        Kind.TOOL_RESULT,
        "output",
        "shell",
        "call_1",
        "2026-01-02T03:04:05.000Z",
        12,
        3400,
        Usage(input_tokens=5, context_tokens=9),
        True,
        True,
        True,
        "/tmp/full.txt",
    )


def test_new_message_builds_what_the_constructor_builds():
    values = _every_field_set()
    assert len(values) == len(fields(Message))  # a new field must be added to `new_message` too
    made = new_message(*values)
    assert made == Message(*values)
    assert hash(made) == hash(Message(*values))
    assert [getattr(made, f.name) for f in fields(Message)] == list(values)


def test_new_usage_builds_what_the_constructor_builds():
    values = (1, 2, 3, 4, 5, 6)
    assert len(values) == len(fields(Usage))  # a new field must be added to `new_usage` too
    made = new_usage(*values)
    assert made == Usage(*values) and hash(made) == hash(Usage(*values))
    assert [getattr(made, f.name) for f in fields(Usage)] == list(values)
    assert new_usage(output_tokens=7) == Usage(output_tokens=7)  # the same defaults
    with pytest.raises(AttributeError):
        made.output_tokens = 3  # type: ignore[misc]


def test_new_message_defaults_match_the_dataclass():
    made = new_message(0, "L1", Role.USER, Kind.TEXT, "hi")
    assert made == Message(0, "L1", Role.USER, Kind.TEXT, "hi")


def test_new_message_stays_frozen():
    made = new_message(0, "L1", Role.USER, Kind.TEXT, "hi")
    with pytest.raises(AttributeError):
        made.index = 3  # type: ignore[misc]


def test_placed_and_with_body_copy_every_other_field():
    message = Message(*_every_field_set())
    moved = message.placed(3, None)
    assert moved == Message(3, *_every_field_set()[1:10], None, *_every_field_set()[11:])
    assert message.with_body("other") == Message(*_every_field_set()[:4], "other", *_every_field_set()[5:])
    assert message.placed(message.index, message.usage) is message


def test_a_plan_item_built_from_columns_is_what_the_constructor_builds():
    from smig_tui.core.models import PlanItem, _new_plan_item

    message = Message(*_every_field_set())
    for values in ((message, 12, True, "shortened", "short", 90), (message, 0, False, "over budget", None, None)):
        made = _new_plan_item(*values)
        assert made == PlanItem(*values)
        assert hash(made) == hash(PlanItem(*values))
        assert [getattr(made, f.name) for f in fields(PlanItem)] == list(values)
    with pytest.raises(AttributeError):
        made.kept = True  # type: ignore[misc]


def test_a_session_info_as_a_dict_is_what_asdict_gives():
    """Every field, each value the same and of the same type: the listing cache and the archive store it."""
    info = SessionInfo(**{field.name: _a_value_for(field.type, field.name) for field in fields(SessionInfo)})
    flat = info.as_dict()
    assert flat == dataclasses.asdict(info)
    assert [type(value) for value in flat.values()] == [type(value) for value in dataclasses.asdict(info).values()]
    assert list(flat) == [field.name for field in fields(SessionInfo)]


def test_a_usage_as_a_dict_is_what_asdict_gives():
    """Every field in order, each its own value: `smig show --json` and the JSON export write one per call."""
    from smig_tui.core.models import Usage

    usage = Usage(*range(11, 11 + len(fields(Usage))))
    assert usage.as_dict() == dataclasses.asdict(usage)
    assert list(usage.as_dict()) == [field.name for field in fields(Usage)]


def _a_value_for(annotation: object, name: str) -> object:
    """A value of the field's type that no default has, so a field left out shows."""
    kind = str(annotation)
    if name == "agent":
        return Agent("codex")
    if kind.startswith("bool"):
        return True
    if kind.startswith("int"):
        return 7
    if kind.startswith("float"):
        return 1.5
    return f"the {name}"
