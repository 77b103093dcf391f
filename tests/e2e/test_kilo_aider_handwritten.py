"""Proves that Kilo Code CLI 7.7.7 and Aider 0.86.2 resume a session written by hand, as smig would write one.

The decisive fact for writing to each (issue 31): in a home and project where the client already
ran, the hand-written session is what its "continue the latest" picks (Kilo's `run -c`) or what a
resume command names (Aider's `--chat-history-file F --restore-chat-history`), and the request the
client then sends carries the written history, a tool call paired with its result where the
client has tools.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from aider_client import every_request, handwritten_history, restored, run_aider
from fake_model_server import FakeModelServer
from kilo_client import import_document, run_kilo

pytestmark = pytest.mark.e2e


def _texts(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str) or content is None:
        return content or ""
    return "".join(part.get("text", "") for part in content).split("\n\n<environment_details>")[0]


def test_kilo_continue_latest_picks_an_imported_session_in_a_lived_in_project(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with FakeModelServer([{"text": "EARLIER-REPLY"}]) as server:
        run_kilo(home, project, server, "run", "EARLIER: the user's own session")
    session = import_document(home, project, tmp_path / "import.json", tag="MIGRATED")
    with FakeModelServer() as server:
        run_kilo(home, project, server, "run", "-c", "NEXT: continue")
        [latest] = server.bodies("/chat/completions")
    with FakeModelServer() as server:
        run_kilo(home, project, server, "run", "-s", session, "AGAIN: by id")
        [by_id] = server.bodies("/chat/completions")
    sent = [
        (m["role"], _texts(m), [c["function"]["name"] for c in m.get("tool_calls") or []]) for m in latest["messages"]
    ]
    assert sent[1:] == [
        ("user", "MIGRATED-1: what does plan.txt say?", []),
        ("assistant", "MIGRATED-REPLY: it says friday.", ["bash"]),
        ("tool", "MIGRATED-OUTPUT: migrate by friday\n", []),
        ("user", "MIGRATED-2: and then?", []),
        ("assistant", "MIGRATED-REPLY-2: ship it then.", []),
        ("user", '"NEXT: continue"', []),  # `kilo run` quotes a prompt with spaces, as OpenCode does
    ]
    [call] = latest["messages"][2]["tool_calls"]
    assert json.loads(call["function"]["arguments"])["command"] == "cat plan.txt"
    assert latest["messages"][3]["tool_call_id"] == call["id"]
    assert "EARLIER" not in json.dumps(latest)
    assert [_texts(m) for m in by_id["messages"][-3:]] == ['"NEXT: continue"', "smig-e2e-ok", '"AGAIN: by id"']


def test_aider_restores_a_hand_written_history_named_on_its_command_line(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with FakeModelServer([{"text": "OWN-REPLY"}], takes_step=every_request) as server:
        run_aider(home, project, server, "--no-git", "--message", "OWN: the user's own chat")
    own_history = (project / ".aider.chat.history.md").read_bytes()
    written = project / ".aider.smig-0001.chat.history.md"
    written.write_text(handwritten_history("MIGRATED"), encoding="utf-8")
    args = ("--no-git", "--chat-history-file", written.name, "--restore-chat-history", "--message", "NEXT: continue")
    with FakeModelServer(takes_step=every_request) as server:
        run_aider(home, project, server, *args)
        [request] = server.bodies("/chat/completions")
    with FakeModelServer(takes_step=every_request) as server:
        run_aider(home, project, server, "--no-git", "--restore-chat-history", "--message", "DEFAULT")
        [default] = server.bodies("/chat/completions")
    conversation = [m for m in request["messages"] if m["role"] != "system"]
    start = conversation.index(restored("MIGRATED")[0])
    assert conversation[start : start + 4] == restored("MIGRATED")
    assert conversation[-1] == {"role": "user", "content": "NEXT: continue"}
    assert "OWN" not in json.dumps(request)
    assert (project / ".aider.chat.history.md").read_bytes().startswith(own_history)  # the user's file only grew
    assert "OWN: the user's own chat" in json.dumps(default) and "MIGRATED" not in json.dumps(default)
