"""One driver per agent: what the real-client matrix needs to use that agent as a source and as a receiver.

Each module here (`drivers/<agent>.py`, named by the agent's registry id) defines:

- `AGENT: str`: the agent's registry id (`codex`, `claude`, ... as `smig migrate --to` takes it).
- `TARGET: str`: a model smig knows that the receiving client runs in these tests (plans are made for it).
- `PROVIDER: str`: that model's provider (`openai`, `anthropic`, `google`, ...), for a made-up model of the
  same provider whose window holds about half of a session (the truncated cases).
- `smig_env(homes) -> dict[str, str]`: extra environment smig needs to write for this agent (for example the
  client binary a writer runs, such as `SMIG_OPENCODE_BIN`); `{}` when none. The test sets it with monkeypatch.
- `install_source(homes, project, tmp_path) -> str`: one session this agent's real client wrote (a recorded
  fixture under tests/fixtures, public ones in tests/fixtures/public) put into the temp homes, its project
  folder pointed at `project`; returns the session id smig lists it under.
- `prepare_receiver(homes, servers) -> dict[str, str] | None`: the receiving client's own config in the temp
  homes, pointed at the fake servers, written before smig migrates (a writer may read it, as Codex's reads its
  provider); the environment smig must migrate with, when it must write elsewhere than the temp homes (the
  database of a client server in `servers.clients`), else None.
- `resume(session_id, homes, project, servers) -> dict[str, Any]`: run the real client (pinned, skip when not
  installed) in `project` to resume `session_id` with the prompt `PROMPT`, and return the body of the model
  request of that turn (the client's main turn, not a title or summary request).

Optional, for what a client cannot do or for the memory test (a driver without them is still whole):

- `gap(source, receiver, truncated) -> str | None`: why this case of the matrix cannot run (this agent being
  the source or the receiver), else None; the case then skips with that sentence, never silently. The
  matrix asks both drivers of a pair.
- `CARRIES: tuple[str, ...]`: texts of this agent's source session (a tool call's command, its output)
  that every receiving client's request must carry when the session migrates as it is.
- `LEFT_BEHIND: tuple[str, ...]`: texts of this agent's source session that no other agent's client may
  send when it migrates as it is (what smig does not migrate: a line the agent adds to each prompt itself).
- `SERVED: bool`: the driver resumes through a long-lived client server in `servers.clients` (Kilo,
  OpenCode); the matrix runs the cases this agent receives on one worker, so one server serves them.
- `seed_memory(homes, note) -> None`: put `note` in this agent's own memory or instructions, where the
  agent itself keeps it (its global file, as the client writes it).
- `memory_turn(homes, project, servers) -> dict[str, Any]`: run the real client once in `project` with a new
  prompt (not a resume) and return the body of that turn's model request.
- `memory_carries(homes, notes) -> list[str]`: what that request must carry after `smig memory sync`, given
  every agent's note by id: the other agents' notes when the client inlines smig's bundle, else the line
  naming the bundle (and this agent's own note in either case).
  tests/e2e/test_memory_sync_real_clients.py runs the agents whose driver has all three.

`homes` is the `isolated_homes` fixture (tests/conftest.py); `servers` is a `Servers`. A driver module must
import cleanly when its client is not installed (it skips inside `resume`, not at import).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer
from served_clients import ServedClients

PROMPT = "continue"
"""What every receiving client is asked when it resumes a migrated session."""


@dataclass(frozen=True)
class Servers:
    """The fake model servers of one test module: `model` speaks Responses, Messages and Chat Completions;
    `gemini` speaks Gemini's generateContent (None where no Gemini CLI runs, e.g. only preparing a receiver);
    `clients`, where the module keeps them, the clients' own servers it started (`served_clients.py`)."""

    model: FakeModelServer
    gemini: FakeGeminiServer | None = None
    clients: ServedClients | None = None

    def clear(self) -> None:
        """Forget the requests seen so far (before a resume, so the last request is this turn's)."""
        self.model.requests.clear()
        if self.gemini is not None:
            self.gemini.requests.clear()


def last_turn(bodies: list[dict[str, Any]], client: str) -> dict[str, Any]:
    """The last of a client's turn requests (fails the test, naming the client, when it sent none)."""
    assert bodies, f"{client} sent the model no request"
    return bodies[-1]


def write_note(path: Path, text: str) -> None:
    """A memory or rules file in a temp home, its folders made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def driver(agent: str) -> ModuleType:
    """The driver module of `agent`, or skip when this folder has none."""
    found = all_drivers().get(agent)
    if found is None:
        pytest.skip(f"tests/e2e/drivers has no driver for {agent}")
    return found


def gap(source: str, receiver: str, truncated: bool) -> str | None:
    """Why the matrix case cannot run, as the source's or the receiver's driver says (`gap`), else None."""
    drivers = all_drivers()
    for agent in (source, receiver):
        says = getattr(drivers[agent], "gap", None)
        reason = says(source, receiver, truncated) if says else None
        if reason:
            return str(reason)
    return None


def all_drivers() -> dict[str, ModuleType]:
    """Every driver module in this folder, by agent id, in name order."""
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda module: module.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found[module.AGENT] = module
    return found
