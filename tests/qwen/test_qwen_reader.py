"""The Qwen Code reader on sessions the real client 0.24.4 wrote (tests/fixtures/real/qwen), and on damage.

`smig show` must be what the client sent its model when it last continued each session: item by item,
tool calls paired with their results, a compression's summary standing for what it replaced. The
client's own reminders (`<system-reminder>`: startup context, the date) are not in the file and are
left out of the comparison; the reply the client wrote after its last request is the one item more.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from cli_runner import smig

from smig_tui.adapters.agents.qwen.source import QwenSource
from smig_tui.core.models import Agent, Kind, Message, ReadWarning, Role

sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
from recording import conversation, load_requests

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "qwen"
SCENARIOS = json.loads((REAL / "scenarios.json").read_text(encoding="utf-8"))
SESSIONS = ("chat", "tools", "compact", "imported")


@pytest.fixture
def qwen_home(isolated_homes: dict[str, Path]) -> Path:
    """The recorded Qwen Code home copied into the temp HOME."""
    home = isolated_homes["home"] / ".qwen"
    shutil.copytree(REAL / "home" / ".qwen", home)
    return home


def _sessions(projects: Path) -> tuple[dict[str, list[Message]], list[ReadWarning]]:
    warnings: list[ReadWarning] = []
    source = QwenSource(projects)
    loaded = {info.id: list(source.load(info, warnings.append).messages) for info in source.discover(warnings.append)}
    return loaded, warnings


def _items(messages: list[Message]) -> list[tuple[str, object]]:
    """Messages as the request's items: calls by name with their id and parsed arguments."""
    items: list[tuple[str, object]] = []
    for message in messages:
        if message.kind is Kind.TOOL_CALL:
            items.append((f"call:{message.tool_name}", (message.call_id, json.loads(message.text))))
        elif message.kind is Kind.TOOL_RESULT:
            items.append(("result", f"#{message.call_id} {message.text}"))
        else:
            items.append((str(message.role), message.text))
    return items


def _request_items(scenario: str) -> list[tuple[str, object]]:
    """The conversation of the last request the client sent with its tools, its own reminders left out."""
    turns = [e for e in load_requests(REAL / "requests.jsonl.xz", scenario) if e["body"].get("tools")]
    items: list[tuple[str, object]] = []
    for kind, text in conversation(turns[-1]["body"]):
        if kind.startswith("call:"):
            call_id, arguments = text.split(" ", 1)
            items.append((kind, (call_id.removeprefix("#"), json.loads(arguments))))
        elif not text.startswith("<system-reminder>"):
            items.append((kind, text))
    return items


@pytest.mark.parametrize("scenario", SESSIONS)
def test_show_is_what_the_client_last_sent_its_model(scenario: str, qwen_home: Path) -> None:
    sessions, warnings = _sessions(qwen_home / "projects")
    assert warnings == []
    messages = sessions[SCENARIOS[scenario]["session"]]
    *sent, reply = _items(messages)
    assert sent == _request_items(scenario)
    assert reply[0] == "assistant"  # the client's answer to that request, written after it


def test_a_compression_summary_stands_for_what_it_replaced(qwen_home: Path) -> None:
    sessions, _ = _sessions(qwen_home / "projects")
    messages = sessions[SCENARIOS["compact"]["session"]]
    assert messages[0].kind is Kind.SUMMARY and messages[0].role is Role.USER
    assert "<state_snapshot>" in messages[0].text
    assert not any("COMPACT-1" in message.text for message in messages)  # before the compression: gone
    calls = [m.call_id for m in messages if m.kind is Kind.TOOL_CALL]
    assert calls == [m.call_id for m in messages if m.kind is Kind.TOOL_RESULT]  # the pending call kept its result


def test_listing_gives_each_sessions_facts(qwen_home: Path) -> None:
    source = QwenSource(qwen_home / "projects")
    warnings: list[ReadWarning] = []
    infos = {info.id: info for info in source.discover(warnings.append)}
    assert warnings == [] and set(infos) == {SCENARIOS[name]["session"] for name in SESSIONS}
    compact = infos[SCENARIOS["compact"]["session"]]
    assert compact.agent == Agent("qwen") and compact.cwd == "/tmp/smig-real-qwen/work/compact"
    assert compact.title == "COMPACT-1: remember the colour teal"  # the picker's: the first prompt typed
    assert compact.model == "qwen3-coder-plus" and compact.source_version == "0.24.4"
    assert compact.context_tokens == 11  # totalTokenCount of the last reply, as the fake server reported it
    assert compact.message_count is None  # a listing reads the file's ends: the count comes with a full read
    assert len(source.load(compact, warnings.append).messages) == 7


def test_smig_list_and_show_find_the_sessions_in_the_default_home(qwen_home: Path) -> None:
    code, out, err = smig("list", "--agent", "qwen", "--json")
    assert code == 0, err
    assert {row["id"] for row in json.loads(out)} == {SCENARIOS[name]["session"] for name in SESSIONS}
    code, out, err = smig("show", "--json", SCENARIOS["tools"]["session"])
    assert code == 0, err
    shown = json.loads(out)["messages"]
    assert [m["kind"] for m in shown].count("tool_call") == 3


@pytest.mark.parametrize("variable", ["QWEN_HOME", "QWEN_RUNTIME_DIR"])
def test_a_home_moved_by_its_variable_is_read(
    variable: str, isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    moved = tmp_path / "elsewhere"
    shutil.copytree(REAL / "home" / ".qwen", moved)
    monkeypatch.setenv(variable, str(moved))
    code, out, err = smig("list", "--agent", "qwen", "--json")
    assert code == 0, err
    assert len(json.loads(out)) == len(SESSIONS)


def test_a_damaged_line_is_one_warning_and_the_rest_is_read(isolated_homes: dict[str, Path]) -> None:
    projects = isolated_homes["home"] / ".qwen" / "projects"
    session = SCENARIOS["chat"]["session"]
    [recorded] = (REAL / "home" / ".qwen" / "projects").glob(f"*/chats/{session}.jsonl")
    target = projects / recorded.parent.parent.name / "chats" / recorded.name
    target.parent.mkdir(parents=True)
    target.write_text(recorded.read_text(encoding="utf-8") + '{"uuid": "half-writ', encoding="utf-8")
    sessions, warnings = _sessions(projects)
    assert [m.text for m in sessions[session] if m.role is Role.USER][-1] == "CHAT-3: what did I ask you to remember?"
    assert len(warnings) == 2 and "damaged line" in warnings[0].message  # listing and load each say it once


def test_a_title_from_a_first_prompt_holding_a_secret_lists_redacted(qwen_home: Path) -> None:
    """A title leaves smig redacted, as every other agent's does: the first prompt is the user's text."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    [chat] = (qwen_home / "projects").glob("*-chat/chats/*.jsonl")
    lines = chat.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[0] = lines[0].replace("CHAT-1: remember the colour teal", f"CHAT-1: my token is {token}, keep it")
    chat.write_text("".join(lines), encoding="utf-8")
    [info] = [info for info in QwenSource(qwen_home / "projects").discover(lambda _: None) if info.path == str(chat)]
    assert info.title is not None and info.title.startswith("CHAT-1: my token is ")
    assert token not in info.title and token[:12] not in info.title
