"""Checks the recorded Copilot CLI, Pi, Qwen Code (and Kilo, Aider overhead) fixtures hold what their docs say.

No client runs here: the sessions and requests in `tests/fixtures/real/<agent>/` are read as they
were recorded, so the facts the agent packages will be built on stay true of the files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from client_runs import assert_carries_the_written_turns
from recording import conversation, load_requests, overhead

REAL = Path(__file__).parents[1] / "fixtures" / "real"
AGENTS = ("copilot", "pi", "qwen")


def _scenarios(agent: str) -> dict[str, dict]:
    return json.loads((REAL / agent / "scenarios.json").read_text(encoding="utf-8"))


def _session_file(agent: str, session: str) -> Path:
    home = REAL / agent / "home"
    if agent == "copilot":
        return home / ".copilot" / "session-state" / session / "events.jsonl"
    pattern = f"*/*_{session}.jsonl" if agent == "pi" else f"*/chats/{session}.jsonl"
    root = home / (".pi/agent/sessions" if agent == "pi" else ".qwen/projects")
    [path] = root.glob(pattern)
    return path


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("agent", AGENTS)
def test_every_recorded_session_is_there_with_its_requests(agent: str) -> None:
    requests = load_requests(REAL / agent / "requests.jsonl.xz")
    for scenario, facts in _scenarios(agent).items():
        if "session" in facts:
            assert _lines(_session_file(agent, facts["session"])), scenario
        assert [entry for entry in requests if entry["scenario"] == scenario], scenario
    assert len(list((REAL / agent / "as-written").iterdir())) == 1  # the e2e test installs that one


@pytest.mark.parametrize("agent", AGENTS)
def test_the_client_sent_the_hand_written_turns_when_it_continued_them(agent: str) -> None:
    """The recorded proof that a session written as smig would is one the client resumes."""
    turns = [e for e in load_requests(REAL / agent / "requests.jsonl.xz", "imported") if e["body"].get("tools")]
    assert_carries_the_written_turns(conversation(turns[-1]["body"]), "IMPORTED-3: go on")
    continued = _lines(_session_file(agent, _scenarios(agent)["imported"]["session"]))
    written = _lines(next((REAL / agent / "as-written").rglob("*.jsonl")))
    assert continued[: len(written)] == written  # the client appended; it rewrote nothing it read


@pytest.mark.parametrize("agent", AGENTS)
def test_the_tool_session_pairs_every_call_with_its_result(agent: str) -> None:
    turns = [e for e in load_requests(REAL / agent / "requests.jsonl.xz", "tools") if e["body"].get("tools")]
    items = conversation(turns[-1]["body"])
    calls = [text.split(" ", 1)[0] for kind, text in items if kind.startswith("call:")]
    results = [text.split(" ", 1)[0] for kind, text in items if kind == "result"]
    assert len(calls) == 3 and calls == results
    assert any("OSPREY" in text for kind, text in items if kind == "result")


@pytest.mark.parametrize("agent", AGENTS)
def test_the_overhead_recorded_is_what_the_first_request_carries(agent: str, exact_tokens: None) -> None:
    """scenarios.json's figures recount from the stored request (Pi's install path is scrubbed: a few tokens)."""
    measured = _scenarios(agent)["overhead"]
    first = "-p" if agent != "qwen" else "positional prompt"
    body = load_requests(REAL / agent / "requests.jsonl.xz", "overhead")[0]["body"]
    assert abs(overhead(body, "hello there")["total"] - measured[first]["total"]) <= 30


@pytest.mark.parametrize(("agent", "prompt"), [("kilo", '"hello there"'), ("aider", "hello there")])
def test_the_chat_completions_overhead_recorded_is_what_the_request_carries(
    agent: str, prompt: str, exact_tokens: None
) -> None:
    """Kilo's and Aider's overhead.json recount from the stored request (Kilo sends the prompt in quotes)."""
    recorded = json.loads((REAL / agent / "overhead.json").read_text(encoding="utf-8"))
    [body] = [e["body"] for e in load_requests(REAL / agent / "requests.jsonl.xz", "overhead") if e["method"] == "POST"]
    measured = overhead(body, prompt)
    assert {key: recorded[key] for key in measured} == measured
    assert measured["system prompt"] > 1_000 and measured["injected context"] > 0
    if agent == "kilo":
        assert recorded["tool_names"] == sorted(tool["function"]["name"] for tool in body["tools"])
