"""`smig plan --pin` takes what the tables show (issue 29): the `#` row number, an id, a unique id prefix;
a pin that names nothing or several messages is one sentence and exit 3, never a quietly unpinned plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import smig

from smig_tui.core.errors import AmbiguousIdError, MessageNotFoundError
from smig_tui.core.models import Kind, Message, Role
from smig_tui.core.pins import resolve_pins

CLAUDE = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"


def _plan(*pins: str) -> dict[str, dict[str, object]]:
    code, stdout, stderr = smig("plan", CLAUDE, "-t", "gpt-4", "--json", *(f"--pin={pin}" for pin in pins))
    assert code == 0, stderr
    return {item["id"]: item for item in json.loads(stdout)["items"]}


def test_a_row_number_an_id_and_a_unique_prefix_pin_the_same_message(fake_home: dict[str, Path]) -> None:
    unpinned = _plan()
    target = next(item for item in unpinned.values() if item["reason"] == "over budget" and item["kind"] == "text")
    assert not target["kept"]
    message_id = str(target["id"])
    prefix = next(
        message_id[:n] for n in range(1, len(message_id)) if sum(i.startswith(message_id[:n]) for i in unpinned) == 1
    )
    for pin in (str(target["index"]), f"#{target['index']}", message_id, prefix, f"#{message_id}"):
        pinned = _plan(pin)[message_id]
        assert pinned["kept"] and pinned["reason"] == "pinned", pin
    text = smig("plan", CLAUDE, "-t", "gpt-4", "--pin", str(target["index"]))[1]
    assert any(line.split()[:1] == [str(target["index"])] and "keep pinned" in line for line in text.splitlines())


@pytest.mark.parametrize(
    ("pin", "said"),
    [
        ("nosuchmsg", "Pin 'nosuchmsg' names no message of session " + CLAUDE),
        ("999", "Pin '999' names no message"),
        ("", "Pin '' names no message"),
    ],
)
def test_a_pin_that_names_nothing_is_an_error(fake_home: dict[str, Path], pin: str, said: str) -> None:
    code, stdout, stderr = smig("plan", CLAUDE, "-t", "gpt-4", f"--pin={pin}")
    assert code == 3 and stdout == "" and said in stderr and stderr.count("\n") == 1
    assert "# column" in stderr  # says what a pin may be


def test_an_ambiguous_prefix_is_an_error_naming_the_candidates(fake_home: dict[str, Path]) -> None:
    ids = list(_plan())
    shared = next(ids[0][:n] for n in range(len(ids[0]), 0, -1) if sum(i.startswith(ids[0][:n]) for i in ids) > 1)
    code, stdout, stderr = smig("plan", CLAUDE, "-t", "gpt-4", "--pin", shared)
    assert (
        code == 3 and stdout == "" and f"Pin {shared!r} starts the ids of" in stderr and "give more of the id" in stderr
    )


def _message(index: int, message_id: str) -> Message:
    return Message(id=message_id, index=index, role=Role.USER, kind=Kind.TEXT, body="hello")


def test_the_resolver_prefers_an_exact_id_then_the_row_then_a_prefix() -> None:
    messages = [_message(0, "7"), _message(1, "abc"), _message(7, "abd"), _message(8, "xyz#2")]
    assert resolve_pins(messages, ["7"]) == ["7"]  # an id written like a number is that id
    assert resolve_pins(messages, ["#7"]) == ["abd"] and resolve_pins(messages, ["1"]) == ["abc"]
    assert resolve_pins(messages, ["xy", "xyz#2", " #8 "]) == ["xyz#2"]  # the same message once
    with pytest.raises(AmbiguousIdError, match="#1 abc, #7 abd"):
        resolve_pins(messages, ["ab"], "S")
    with pytest.raises(MessageNotFoundError, match="rows #0 to #8"):
        resolve_pins(messages, ["q"], "S")
