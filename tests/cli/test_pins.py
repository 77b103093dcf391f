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


def _kept_by_plan(*options: str) -> list[str]:
    code, stdout, stderr = smig("plan", CLAUDE, "-t", "gpt-4", "--json", *options)
    assert code == 0, stderr
    return [item["id"] for item in json.loads(stdout)["items"] if item["kept"]]


def _kept_by_migrate(*options: str) -> tuple[list[str], int]:
    code, stdout, stderr = smig("migrate", CLAUDE, "-t", "gpt-4", "--json", *options)
    assert code == 0, stderr
    record = json.loads(stdout)["record"]
    return list(record["kept_ids"]), int(record["tokens_after"])


@pytest.mark.parametrize("strategy", ["truncate", "tools-first"])
def test_migrate_takes_the_plan_options_and_writes_what_the_plan_showed(
    fake_home: dict[str, Path], strategy: str
) -> None:
    unpinned = _plan()
    dropped = [item for item in unpinned.values() if item["reason"] == "over budget" and item["kind"] == "text"]
    pin = str(dropped[-1]["index"])  # by its row number, as the table shows it
    options = ("-s", strategy, "--pin", pin, "--pin-first", "--reserve", "2k", "--no-harness")
    shown = _kept_by_plan(*options)
    assert str(dropped[-1]["id"]) in shown and shown != _kept_by_plan("-s", strategy)
    written, _ = _kept_by_migrate(*options)
    assert written == shown
    assert _kept_by_migrate("-s", strategy)[0] != shown  # without the options the migration differs


def test_export_takes_the_plan_options_with_a_target_only(fake_home: dict[str, Path]) -> None:
    unpinned = _plan()
    dropped = next(item for item in unpinned.values() if item["reason"] == "over budget" and item["kind"] == "text")
    code, stdout, _ = smig("export", CLAUDE, "-t", "gpt-4", "--format", "json", "--pin", str(dropped["index"]))
    assert code == 0 and dropped["id"] in {message["id"] for message in json.loads(stdout)["messages"]}
    code, plain, _ = smig("export", CLAUDE, "-t", "gpt-4", "--format", "json")
    assert dropped["id"] not in {message["id"] for message in json.loads(plain)["messages"]}
    code, stdout, stderr = smig("export", CLAUDE, "--pin", "3", "--reserve", "1k")
    assert code == 2 and stdout == ""
    assert stderr.strip() == "smig: error: --reserve and --pin shape the export for a model: add --target MODEL."


@pytest.mark.parametrize("command", ["migrate", "export"])
def test_a_pin_that_names_nothing_stops_migrate_and_export_before_anything_is_written(
    fake_home: dict[str, Path], isolated_homes: dict[str, Path], command: str
) -> None:
    code, stdout, stderr = smig(command, CLAUDE, "-t", "gpt-4", "--pin", "nosuchmsg")
    assert code == 3 and stdout == "" and "Pin 'nosuchmsg' names no message" in stderr
    assert not list(isolated_homes["smig"].rglob("migrations/*/*.json"))
