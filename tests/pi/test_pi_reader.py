"""The Pi reader on sessions the real client 0.73.1 wrote (tests/fixtures/real/pi), and on branches and damage.

`smig show` must be what the client sent its model when it last continued each session: item by item,
tool calls paired with their results, a compaction's summary standing for what it replaced. The reply
the client wrote after its last request is the one item more. Pi's tree of branches is read as the
client rebuilds it on resume: the path from the file's last entry back to the root.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from cli_runner import smig

from smig_tui.adapters.agents.pi.records import COMPACTION_PREFIX, NO_RESULT
from smig_tui.adapters.agents.pi.source import PiSource
from smig_tui.core.models import Agent, Kind, Message, ReadWarning, Role

sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
from recording import conversation, load_requests

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "pi"
SCENARIOS = json.loads((REAL / "scenarios.json").read_text(encoding="utf-8"))
SESSIONS = ("chat", "tools", "compact", "imported")


@pytest.fixture
def pi_home(isolated_homes: dict[str, Path]) -> Path:
    """The recorded Pi folder copied into the temp HOME (`~/.pi/agent`)."""
    home = isolated_homes["home"] / ".pi"
    shutil.copytree(REAL / "home" / ".pi", home)
    return home / "agent"


def _sessions(sessions: Path) -> tuple[dict[str, list[Message]], list[ReadWarning]]:
    warnings: list[ReadWarning] = []
    source = PiSource(sessions)
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
    """The conversation of the last request the client sent with its tools (not a summary request)."""
    turns = [e for e in load_requests(REAL / "requests.jsonl.xz", scenario) if e["body"].get("tools")]
    items: list[tuple[str, object]] = []
    for kind, text in conversation(turns[-1]["body"]):
        if kind.startswith("call:"):
            call_id, arguments = text.split(" ", 1)
            items.append((kind, (call_id.removeprefix("#"), json.loads(arguments))))
        else:
            items.append((kind, text))
    return items


def _copy(name: str, sessions: Path) -> Path:
    """One recorded session file in its project folder under `sessions`."""
    [recorded] = (REAL / "home" / ".pi" / "agent" / "sessions").glob(f"*/{SCENARIOS[name]['file']}")
    target = sessions / recorded.parent.name / recorded.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(recorded, target)
    return target


def _append(path: Path, *entries: dict[str, object]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        for entry in entries:
            handle.write(json.dumps(entry) + "\n")


@pytest.mark.parametrize("scenario", SESSIONS)
def test_show_is_what_the_client_last_sent_its_model(scenario: str, pi_home: Path) -> None:
    sessions, warnings = _sessions(pi_home / "sessions")
    assert warnings == []
    messages = sessions[SCENARIOS[scenario]["session"]]
    *sent, reply = _items(messages)
    assert sent == _request_items(scenario)
    assert reply[0] == "assistant"  # the client's answer to that request, written after it


def test_a_compaction_summary_stands_for_what_it_replaced(pi_home: Path) -> None:
    sessions, _ = _sessions(pi_home / "sessions")
    messages = sessions[SCENARIOS["compact"]["session"]]
    assert messages[0].kind is Kind.SUMMARY and messages[0].role is Role.USER
    assert messages[0].text.startswith(COMPACTION_PREFIX) and "SUMMARY: the user asked" in messages[0].text
    assert not any("COMPACT-1" in message.text or "COMPACT-2" in message.text for message in messages)
    assert [m.text for m in messages[1:3]] == ["Read it.", "COMPACT-3: what colour?"]  # kept from firstKeptEntryId


def test_listing_gives_each_sessions_facts(pi_home: Path) -> None:
    source = PiSource(pi_home / "sessions")
    warnings: list[ReadWarning] = []
    infos = {info.id: info for info in source.discover(warnings.append)}
    assert warnings == [] and set(infos) == {SCENARIOS[name]["session"] for name in SESSIONS}
    compact = infos[SCENARIOS["compact"]["session"]]
    assert compact.agent == Agent("pi") and compact.cwd == "/tmp/smig-real-pi/work/compact"
    assert compact.title == "COMPACT-1: remember the colour teal"  # the picker's: the file's first prompt
    assert compact.model == "fake-coder" and compact.source_version == "session v3"
    assert compact.context_tokens == 11  # totalTokens of the last reply, as the fake server reported it
    assert compact.updated == "2026-12-05T02:29:26.955Z"  # the last message's own time: the picker's order
    assert compact.message_count is None  # a listing reads what it shows: the count comes with a full read
    assert len(source.load(compact, warnings.append).messages) == 4


def test_the_active_branch_is_read_and_an_abandoned_one_left_out(isolated_homes: dict[str, Path]) -> None:
    """`/tree` back to the first reply and a new prompt: the leaf is the file's last entry, and the
    abandoned turns are off its path; a branch summary comes back as a user message."""
    sessions = isolated_homes["home"] / ".pi" / "agent" / "sessions"
    path = _copy("chat", sessions)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    first_reply = next(e for e in lines if e.get("message", {}).get("role") == "assistant")
    _append(
        path,
        {"type": "branch_summary", "id": "b0000001", "parentId": first_reply["id"], "timestamp": "2026-12-05T03:00:00.000Z",
         "fromId": lines[-1]["id"], "summary": "The user had said 93."},
        {"type": "message", "id": "b0000002", "parentId": "b0000001", "timestamp": "2026-12-05T03:00:01.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "BRANCH: start again"}], "timestamp": 1796440801000}},
        {"type": "session_info", "id": "b0000003", "parentId": "b0000002", "timestamp": "2026-12-05T03:00:02.000Z",
         "name": "Second try"},
    )  # fmt: skip
    loaded, warnings = _sessions(sessions)
    messages = loaded[SCENARIOS["chat"]["session"]]
    assert warnings == []
    assert [m.text for m in messages[:2]] == ["CHAT-1: remember the colour teal", "Teal, noted."]
    assert messages[2].kind is Kind.SUMMARY and "The user had said 93." in messages[2].text
    assert messages[3].text == "BRANCH: start again" and len(messages) == 4  # CHAT-2 and CHAT-3: another branch
    [info] = PiSource(sessions).discover(lambda _w: None)
    assert info.title == "Second try"  # the name `/name` gave it


def test_a_call_left_without_result_gets_the_one_pi_sends_and_a_failed_reply_is_dropped(
    isolated_homes: dict[str, Path],
) -> None:
    sessions = isolated_homes["home"] / ".pi" / "agent" / "sessions"
    path = _copy("chat", sessions)
    last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])["id"]
    call = {"type": "toolCall", "id": "call_cut", "name": "bash", "arguments": {"command": "make"}}
    _append(
        path,
        {"type": "message", "id": "c0000001", "parentId": last, "timestamp": "2026-12-05T03:00:00.000Z",
         "message": {"role": "assistant", "content": [call], "stopReason": "toolUse", "model": "fake-coder"}},
        {"type": "message", "id": "c0000002", "parentId": "c0000001", "timestamp": "2026-12-05T03:00:01.000Z",
         "message": {"role": "user", "content": "ANOTHER: go"}},
        {"type": "message", "id": "c0000003", "parentId": "c0000002", "timestamp": "2026-12-05T03:00:02.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "half"}], "stopReason": "aborted"}},
    )  # fmt: skip
    loaded, _ = _sessions(sessions)
    items = _items(loaded[SCENARIOS["chat"]["session"]])
    assert items[-3:] == [
        ("call:bash", ("call_cut", {"command": "make"})),
        ("result", f"#call_cut {NO_RESULT}"),
        ("user", "ANOTHER: go"),
    ]  # the aborted reply is not sent again


def test_a_users_command_and_an_extensions_message_are_sent_as_pi_words_them(isolated_homes: dict[str, Path]) -> None:
    sessions = isolated_homes["home"] / ".pi" / "agent" / "sessions"
    path = _copy("chat", sessions)
    last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])["id"]
    bash = {"role": "bashExecution", "command": "make test", "output": "2 failed", "exitCode": 2, "cancelled": False}
    _append(
        path,
        {"type": "message", "id": "d0000001", "parentId": last, "timestamp": "2026-12-05T03:00:00.000Z", "message": bash},
        {"type": "message", "id": "d0000002", "parentId": "d0000001", "timestamp": "2026-12-05T03:00:01.000Z",
         "message": bash | {"command": "ls", "excludeFromContext": True}},
        {"type": "custom_message", "id": "d0000003", "parentId": "d0000002", "timestamp": "2026-12-05T03:00:02.000Z",
         "customType": "todo", "content": "TODO: fix the tests", "display": True},
        {"type": "label", "id": "d0000004", "parentId": "d0000003", "timestamp": "2026-12-05T03:00:03.000Z",
         "targetId": "d0000001", "label": "tests"},
    )  # fmt: skip
    loaded, warnings = _sessions(sessions)
    messages = loaded[SCENARIOS["chat"]["session"]]
    assert warnings == []
    assert messages[-2].text == "Ran `make test`\n```\n2 failed\n```\n\nCommand exited with code 2"
    assert messages[-1].text == "TODO: fix the tests" and messages[-1].injected and messages[-1].role is Role.USER


def test_smig_list_and_show_find_the_sessions_in_the_default_home(pi_home: Path) -> None:
    code, out, err = smig("list", "--agent", "pi", "--json")
    assert code == 0, err
    assert {row["id"] for row in json.loads(out)} == {SCENARIOS[name]["session"] for name in SESSIONS}
    code, out, err = smig("show", "--json", SCENARIOS["tools"]["session"])
    assert code == 0, err
    shown = json.loads(out)["messages"]
    assert [m["kind"] for m in shown].count("tool_call") == 3


@pytest.mark.parametrize("variable", ["PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR"])
def test_a_home_moved_by_its_variable_is_read(
    variable: str, isolated_homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    moved = tmp_path / "elsewhere"
    if variable == "PI_CODING_AGENT_DIR":
        shutil.copytree(REAL / "home" / ".pi" / "agent", moved)
    else:  # one flat folder of session files
        moved.mkdir()
        for path in (REAL / "home" / ".pi" / "agent" / "sessions").glob("*/*.jsonl"):
            shutil.copyfile(path, moved / path.name)
    monkeypatch.setenv(variable, str(moved))
    code, out, err = smig("list", "--agent", "pi", "--json")
    assert code == 0, err
    assert len(json.loads(out)) == len(SESSIONS)


def test_a_damaged_line_is_one_warning_and_the_rest_is_read(isolated_homes: dict[str, Path]) -> None:
    sessions = isolated_homes["home"] / ".pi" / "agent" / "sessions"
    path = _copy("chat", sessions)
    path.write_text(path.read_text(encoding="utf-8") + '{"type":"message","id":"half-writ', encoding="utf-8")
    loaded, warnings = _sessions(sessions)
    texts = [m.text for m in loaded[SCENARIOS["chat"]["session"]] if m.role is Role.USER]
    assert texts[-1] == "CHAT-3: what did I ask you to remember?"
    assert len(warnings) == 2 and "damaged line" in warnings[0].message  # listing and load each say it once
    code, _, err = smig("list", "--agent", "pi")
    assert code == 0 and "Traceback" not in err


def test_a_file_without_a_header_is_skipped_with_a_sentence(isolated_homes: dict[str, Path]) -> None:
    sessions = isolated_homes["home"] / ".pi" / "agent" / "sessions"
    path = _copy("chat", sessions)
    path.write_text("\n".join(path.read_text(encoding="utf-8").splitlines()[1:]) + "\n", encoding="utf-8")
    loaded, warnings = _sessions(sessions)
    assert loaded == {} and [w.message for w in warnings] == ["skipped: no Pi session header in it"]


def test_a_warm_listing_reads_no_session_file(pi_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from smig_tui.adapters.agents.pi import PROFILE
    from smig_tui.adapters.paths import resolve_paths

    cache = PROFILE.listing_cache(resolve_paths())
    first = list(PiSource(pi_home / "sessions", listing_cache=cache).discover(lambda _w: None))
    assert cache.is_file()

    def refuse(_path: Path) -> None:
        raise AssertionError("a cached session was parsed again")

    monkeypatch.setattr("smig_tui.adapters.agents.pi.source.read_session", refuse)
    again = list(PiSource(pi_home / "sessions", listing_cache=cache).discover(lambda _w: None))
    assert [info.id for info in again] == [info.id for info in first]


def test_a_title_from_a_first_prompt_holding_a_secret_lists_redacted(pi_home: Path) -> None:
    """A title leaves smig redacted, as every other agent's does: the first prompt is the user's text."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    [chat] = (pi_home / "sessions").glob(f"*/{SCENARIOS['chat']['file']}")
    chat.write_text(
        chat.read_text(encoding="utf-8").replace("CHAT-1: remember the colour teal", f"CHAT-1: my token is {token}"),
        encoding="utf-8",
    )
    [info] = [info for info in PiSource(pi_home / "sessions").discover(lambda _: None) if info.path == str(chat)]
    assert info.title is not None and info.title.startswith("CHAT-1: my token is ")
    assert token not in info.title and token[:12] not in info.title
