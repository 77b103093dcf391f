"""The Copilot CLI reader on sessions the real client 1.0.102 wrote (tests/fixtures/real/copilot), and on damage.

`smig show` must be what the client sent its model when it last continued each session: item by item,
tool calls paired with their results, a compaction's summary message standing for what it replaced.
The `<current_datetime>` line the client puts before every prompt it sends is its own context (the
receiving agent adds its own), so it is taken off the request's prompts for the comparison; the reply
the client wrote after its last request is the one item more.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from cli_runner import smig

from smig_tui.adapters.agents.copilot.source import CopilotSource
from smig_tui.core.models import Agent, Kind, Message, ReadWarning, Role

sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
from recording import conversation, load_requests

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "copilot"
SCENARIOS = json.loads((REAL / "scenarios.json").read_text(encoding="utf-8"))
SESSIONS = ("chat", "tools", "compact", "imported")
DATETIME = re.compile(r"^<current_datetime>[^<]*</current_datetime>\n\n")


@pytest.fixture
def copilot_home(isolated_homes: dict[str, Path]) -> Path:
    """The recorded Copilot CLI home copied into the temp HOME."""
    home = isolated_homes["home"] / ".copilot"
    shutil.copytree(REAL / "home" / ".copilot", home)
    return home


def _sessions(state: Path) -> tuple[dict[str, list[Message]], list[ReadWarning]]:
    warnings: list[ReadWarning] = []
    source = CopilotSource(state)
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
    """The conversation of the last request the client sent with its tools, its date lines left out."""
    turns = [e for e in load_requests(REAL / "requests.jsonl.xz", scenario) if e["body"].get("tools")]
    items: list[tuple[str, object]] = []
    for kind, text in conversation(turns[-1]["body"]):
        if kind.startswith("call:"):
            call_id, arguments = text.split(" ", 1)
            items.append((kind, (call_id.removeprefix("#"), json.loads(arguments))))
        else:
            items.append((kind, DATETIME.sub("", text) if kind == "user" else text))
    return items


@pytest.mark.parametrize("scenario", SESSIONS)
def test_show_is_what_the_client_last_sent_its_model(scenario: str, copilot_home: Path) -> None:
    sessions, warnings = _sessions(copilot_home / "session-state")
    assert warnings == []
    messages = sessions[SCENARIOS[scenario]["session"]]
    *sent, reply = _items(messages)
    assert sent == _request_items(scenario)
    assert reply[0] == "assistant"  # the client's answer to that request, written after it


def test_calls_are_paired_with_their_results_and_a_failed_command_is_kept(copilot_home: Path) -> None:
    sessions, _ = _sessions(copilot_home / "session-state")
    messages = sessions[SCENARIOS["tools"]["session"]]
    calls = [(m.call_id, m.tool_name) for m in messages if m.kind is Kind.TOOL_CALL]
    results = [(m.call_id, m.tool_name) for m in messages if m.kind is Kind.TOOL_RESULT]
    assert calls == results and [name for _, name in calls] == ["bash", "view", "bash"]
    assert "exit code 1" in [m.text for m in messages if m.kind is Kind.TOOL_RESULT][-1]


def test_a_compaction_summary_stands_for_what_it_replaced(copilot_home: Path) -> None:
    sessions, _ = _sessions(copilot_home / "session-state")
    messages = sessions[SCENARIOS["compact"]["session"]]
    assert messages[0].kind is Kind.SUMMARY and messages[0].role is Role.USER
    assert "<summary>\nSUMMARY: the user asked to remember teal" in messages[0].text
    assert "<user_message>\nCOMPACT-2: read notes.txt\n</user_message>" in messages[0].text
    assert not any(m.kind is Kind.TOOL_CALL for m in messages)  # the call before the compaction: gone
    assert [m.text for m in messages[1:]] == ["COMPACT-3: what colour?", "Teal."]


def test_listing_gives_each_sessions_facts(copilot_home: Path) -> None:
    source = CopilotSource(copilot_home / "session-state")
    warnings: list[ReadWarning] = []
    infos = {info.id: info for info in source.discover(warnings.append)}
    assert warnings == [] and set(infos) == {SCENARIOS[name]["session"] for name in SESSIONS}
    tools = infos[SCENARIOS["tools"]["session"]]
    assert tools.agent == Agent("copilot") and tools.cwd == "/tmp/smig-real-copilot/work/tools"
    assert tools.title == "TOOLS: read notes.txt"  # the picker's: workspace.yaml's name
    assert tools.model == "claude-sonnet-4.5" and tools.source_version == "1.0.102"
    assert tools.context_tokens == 11  # input + output of the last call, as the fake server reported them
    assert tools.message_count is None  # a listing reads what it shows: the count comes with a full read
    assert len(source.load(tools, warnings.append).messages) == 10
    assert infos[SCENARIOS["imported"]["session"]].title == "IMPORTED imported"


def test_smig_list_and_show_find_the_sessions_in_the_default_home(copilot_home: Path) -> None:
    code, out, err = smig("list", "--agent", "copilot", "--json")
    assert code == 0, err
    assert {row["id"] for row in json.loads(out)} == {SCENARIOS[name]["session"] for name in SESSIONS}
    code, out, err = smig("show", "--json", SCENARIOS["tools"]["session"][:8])
    assert code == 0, err
    shown = json.loads(out)["messages"]
    assert [m["kind"] for m in shown].count("tool_call") == 3


def test_a_home_moved_by_copilot_home_is_read(
    isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    moved = tmp_path / "elsewhere"
    shutil.copytree(REAL / "home" / ".copilot", moved)
    monkeypatch.setenv("COPILOT_HOME", str(moved))
    code, out, err = smig("list", "--agent", "copilot", "--json")
    assert code == 0, err
    assert len(json.loads(out)) == len(SESSIONS)


def test_a_warm_listing_reads_no_session(copilot_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from smig_tui.adapters.agents.copilot import source as module

    cache = copilot_home.parent / "listing-copilot.json"
    first = list(CopilotSource(copilot_home / "session-state", cache).discover(lambda _w: None))

    def refuse(path: Path) -> None:
        raise AssertionError(f"read {path} again")

    monkeypatch.setattr(module, "read_session", refuse)
    again = list(CopilotSource(copilot_home / "session-state", cache).discover(lambda _w: None))
    assert again == first and len(again) == len(SESSIONS)


def test_a_damaged_line_is_one_warning_and_the_rest_is_read(isolated_homes: dict[str, Path]) -> None:
    state = isolated_homes["home"] / ".copilot" / "session-state"
    session = SCENARIOS["chat"]["session"]
    shutil.copytree(REAL / "home" / ".copilot" / "session-state" / session, state / session)
    events = state / session / "events.jsonl"
    events.write_text(events.read_text(encoding="utf-8") + '{"type":"user.message","data":{"content":"half', "utf-8")
    sessions, warnings = _sessions(state)
    assert [m.text for m in sessions[session] if m.role is Role.USER][-1] == "CHAT-3: what did I ask you to remember?"
    assert len(warnings) == 2 and "damaged line" in warnings[0].message  # listing and load each say it once


def test_a_folder_that_is_not_a_session_is_skipped_without_a_traceback(isolated_homes: dict[str, Path]) -> None:
    state = isolated_homes["home"] / ".copilot" / "session-state"
    (state / ".session-operation-locks").mkdir(parents=True)
    (state / "empty").mkdir()
    (state / "not-json").mkdir()
    (state / "not-json" / "events.jsonl").write_bytes(b"\x00\xff garbage\n[1, 2]\n")
    code, out, err = smig("list", "--agent", "copilot", "--json")
    assert code == 0, err
    assert json.loads(out) == []
