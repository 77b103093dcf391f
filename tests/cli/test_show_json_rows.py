"""`smig show --json` writes its messages a batch at a time with orjson (`FlatRows`): the same text as the
generic encoder gives for `message_to_dict`, on every message of real sessions and odd ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smig_tui.cli.sessions import MESSAGE_BATCH, message_to_dict, session_to_json
from smig_tui.core.json_text import FlatRows, indented_json
from smig_tui.core.models import Kind, Message, Role, Usage
from smig_tui.services import build_services


def _standard(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _rows(messages: list[Message], batch: int = MESSAGE_BATCH) -> str:
    """The messages as `smig show --json` writes them, under a key of the top object."""
    return "".join(indented_json({"messages": FlatRows(map(message_to_dict, messages), batch)}))


def _fixture_messages(fake_home: dict[str, Path]) -> list[Message]:
    services = build_services()
    messages: list[Message] = []
    for info in services.list_sessions(include_subagents=True):
        messages += services.load_session(info).messages
    return messages


def test_every_message_of_the_fixture_sessions_reads_as_the_generic_encoder_writes_it(
    fake_home: dict[str, Path],
) -> None:
    messages = _fixture_messages(fake_home)
    assert len(messages) > 50 and any(message.usage for message in messages)
    expected = _standard({"messages": [message_to_dict(message) for message in messages]})
    for batch in (1, 7, MESSAGE_BATCH, len(messages)):
        assert _rows(messages, batch) == expected


ODD = [
    Message(0, "a", Role.USER, Kind.TEXT, 'quotes " \\ and \n newlines, é 😀, a lone \ud800'),
    Message(1, "b", Role.ASSISTANT, Kind.TOOL_CALL, "{}", "shell", "c1", "2026", 4, 99, Usage(1, 2, 3, 4, 5, 6), True),
    Message(2, "c", Role.TOOL, Kind.TOOL_RESULT, "", line=None, offset=None, injected=True, full_output_path="/x"),
    Message(3, "d", Role.USER, Kind.TEXT, "big int", line=10**30, usage=Usage(input_tokens=True)),  # type: ignore[arg-type]
    Message(4, "e", Role.USER, Kind.TEXT, "a float", offset=1.5),  # type: ignore[arg-type]
    Message(5, Role.SYSTEM, Role.USER, Kind.TEXT, "an enum for an id"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("message", ODD, ids=range(len(ODD)))
def test_odd_fields_read_as_the_generic_encoder_writes_them(message: Message) -> None:
    """A lone surrogate, an int beyond 64 bits, an enum where a string belongs: the batch goes the standard way."""
    for around in ([], ODD[:1], ODD[1:3]):
        assert _rows([*around, message, *around]) == _standard(
            {"messages": [message_to_dict(m) for m in [*around, message, *around]]}
        )


def test_the_document_is_the_standard_encoding_of_the_same_dicts(fake_home: dict[str, Path]) -> None:
    services = build_services()
    info = services.list_sessions()[0]
    session = services.load_session(info)
    streamed = "".join(indented_json(session_to_json(session, iter(session.messages))))
    assert streamed == _standard(session_to_json(session))
