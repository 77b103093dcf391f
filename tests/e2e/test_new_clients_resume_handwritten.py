"""Proves on the real clients what a writer for Copilot CLI, Pi and Qwen Code can rely on (issue 31).

Each client first runs once in a project (a lived-in home), then finds the two-turn session with a
shell call that `tests/fixtures/real/<agent>/make.py` wrote by hand (`as-written/`, its paths moved
to this test's project, as a migration would write it): its "continue the latest" resumes it, and
so does its resume-by-id, and the request it sends carries the hand-written turns in order with the
call and its result paired. Its own picker, in its terminal UI, lists it above the client's own
session, and opening it there sends the same turns. What each client adds of its own (Copilot's
`<current_datetime>`, Qwen Code's startup reminders) is allowed around them.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from client_runs import assert_carries_the_written_turns
from copilot_client import copilot_binary, copilot_env, run_copilot
from fake_model_server import FakeModelServer
from pi_client import MODEL as PI_MODEL
from pi_client import pi_binary, pi_env, run_pi
from qwen_client import qwen_binary, qwen_env, run_qwen
from recording import conversation
from terminal import Terminal

pytestmark = pytest.mark.e2e

REAL = Path(__file__).parents[1] / "fixtures" / "real"


ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def _moved(text: str, agent: str, project: Path) -> str:
    """The written session as a migration would write it now: in `project`, its times starting now.

    Pi's picker orders sessions by their last message's time, so a migration stamps its own.
    """
    text = text.replace(f"/tmp/smig-real-{agent}/work/imported", str(project))
    first = datetime.fromisoformat(ISO.findall(text)[0].replace("Z", "+00:00"))
    shift = datetime.now(UTC) - first

    def iso(match: re.Match[str]) -> str:
        moved = datetime.fromisoformat(match.group(0).replace("Z", "+00:00")) + shift
        return moved.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def millis(match: re.Match[str]) -> str:
        return f'"timestamp": {int(match.group(1)) + int(shift.total_seconds() * 1000)}'

    return re.sub(r'"timestamp": (\d{13})', millis, ISO.sub(iso, text))


def _install(agent: str, home: Path, project: Path) -> tuple[str, Path]:
    """The hand-written session in `home`, pointed at `project`; its id and the file the client reads."""
    [source] = (REAL / agent / "as-written").iterdir()
    if agent == "copilot":
        folder = home / ".copilot" / "session-state" / source.name
        folder.mkdir(parents=True)
        for name in ("events.jsonl", "workspace.yaml"):
            (folder / name).write_text(_moved((source / name).read_text(encoding="utf-8"), agent, project))
        return source.name, folder / "events.jsonl"
    if agent == "pi":
        folder = home / ".pi" / "agent" / "sessions" / ("--" + str(project).lstrip("/").replace("/", "-") + "--")
        session = source.stem.split("_", 1)[1]
    else:
        folder = home / ".qwen" / "projects" / re.sub(r"[^a-zA-Z0-9]", "-", str(project)) / "chats"
        session = source.stem
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name
    target.write_text(_moved(source.read_text(encoding="utf-8"), agent, project), encoding="utf-8")
    return session, target


def _continue_and_resume(agent: str) -> tuple[list[str], Callable[[str], list[str]]]:
    """The arguments of one prompt: a new session, "continue the latest", resume by id."""
    if agent == "copilot":
        allow = ["--allow-all-tools"]
        return ["-p", "REAL-FIRST: hello", *allow], lambda sid: [f"--resume={sid}", *allow]
    if agent == "pi":
        return ["-p", "REAL-FIRST: hello"], lambda sid: ["--session", sid]
    return ["REAL-FIRST: hello"], lambda sid: ["--resume", sid]


def _prompt(agent: str, text: str) -> list[str]:
    return [text] if agent == "qwen" else ["-p", text]


RUNNERS = {"copilot": run_copilot, "pi": run_pi, "qwen": run_qwen}
CONTINUE = {"copilot": ["--continue"], "pi": ["-c"], "qwen": ["-c"]}


def _last_turn(server: FakeModelServer) -> list[tuple[str, str]]:
    bodies = [body for _, _, body in server.requests if body.get("tools")]
    assert bodies, "the client sent the model no request"
    return conversation(bodies[-1])


@pytest.mark.parametrize("agent", ["copilot", "pi", "qwen"])
def test_the_client_continues_and_resumes_a_hand_written_session(agent: str, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir(exist_ok=True)
    project.mkdir()
    run = RUNNERS[agent]
    first, by_id = _continue_and_resume(agent)
    with FakeModelServer() as server:
        run(home, project, server, *first)
    session, path = _install(agent, home, project)
    later = time.time() + 60  # newer than the session the client just wrote, as a fresh migration is
    os.utime(path, (later, later))

    with FakeModelServer() as server:
        run(home, project, server, *CONTINUE[agent], *_prompt(agent, "AFTER-IMPORT: go on"))
        continued = _last_turn(server)
    assert_carries_the_written_turns(continued, "AFTER-IMPORT: go on")

    with FakeModelServer() as server:
        run(home, project, server, *by_id(session), *_prompt(agent, "BY-ID: once more"))
        resumed = _last_turn(server)
    assert_carries_the_written_turns(resumed, "BY-ID: once more")
    assert any(text.endswith("AFTER-IMPORT: go on") for kind, text in resumed if kind == "user")


OPEN = {"copilot": "\x1b[B\r", "pi": "\r", "qwen": "\r"}
"""Keys that open the written session: the first entry, but Copilot lists the new session it started first."""
PICKERS: dict[str, tuple[Callable[[], list[str]], Callable[[Path, FakeModelServer], dict[str, str]], str, str]] = {
    # the picker's command, its environment, how the written session is listed, the prompt's sign
    "copilot": (lambda: [copilot_binary(), "--resume"], copilot_env, "IMPORTED imported", "/ commands"),
    "pi": (lambda: [pi_binary(), "-r"], pi_env, "IMPORTED-ASK", PI_MODEL),
    "qwen": (lambda: [qwen_binary(), "--resume"], qwen_env, "IMPORTED-ASK", "Type your message"),
}


@pytest.mark.parametrize("agent", ["copilot", "pi", "qwen"])
def test_the_clients_picker_lists_the_hand_written_session_first_and_opens_it(agent: str, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".copilot").mkdir(parents=True)
    project.mkdir()
    # Copilot asks once whether to trust a folder; config.json keeps the answer (as answering would)
    (home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": [str(project)]}), encoding="utf-8")
    first, _ = _continue_and_resume(agent)
    with FakeModelServer() as server:
        RUNNERS[agent](home, project, server, *first)
    _, path = _install(agent, home, project)
    later = time.time() + 60
    os.utime(path, (later, later))
    command, environment, listed, ready = PICKERS[agent]
    with FakeModelServer() as server:
        env: dict[str, Any] = environment(home, server)
        env.pop("CI", None)
        terminal = Terminal(command(), project, env)
        try:
            terminal.wait_for(lambda: listed in terminal.text() and "REAL-FIRST" in terminal.text(), "the picker")
            screen = terminal.text()
            assert screen.index(listed) < screen.index("REAL-FIRST"), screen
            terminal.type(OPEN[agent])
            terminal.wait_for(terminal.shows(ready), "the client's prompt")
            terminal.type_until("PICKED: go on", terminal.shows("PICKED: go on"), "the prompt to be typed")
            terminal.type_until("\r", server.answered.is_set, "the client's request", attempt=10.0)
        finally:
            terminal.close()
        assert_carries_the_written_turns(_last_turn(server), "PICKED: go on")
