"""One driver per agent: what the real-client matrix needs to use that agent as a source and as a receiver.

Each module here (`drivers/<agent>.py`, named by the agent's registry id) defines:

- `AGENT: str`: the agent's registry id (`codex`, `claude`, ... as `smig migrate --to` takes it).
- `TARGET: str`: a model smig knows that the receiving client runs in these tests (plans are made for it).
- `PROVIDER: str`: that model's provider (`openai`, `anthropic`, `google`, ...), for a made-up model of the
  same provider whose window holds about half of a session (the truncated cases).
- `smig_env(homes) -> dict[str, str]`: extra environment smig needs to write for this agent (for example the
  client binary a writer runs, such as `SMIG_OPENCODE_BIN`); `{}` when none. The test sets it with monkeypatch.
- `install_source(homes, project, tmp_path) -> str`: one session this agent's real client wrote (a recorded
  fixture under tests/fixtures, or ../shared/fixtures; skip when absent) put into the temp homes, its project
  folder pointed at `project`; returns the session id smig lists it under.
- `prepare_receiver(homes, servers) -> None`: the receiving client's own config in the temp homes, pointed at
  the fake servers, written before smig migrates (a writer may read it, as Codex's reads its provider).
- `resume(session_id, homes, project, servers) -> dict[str, Any]`: run the real client (pinned, skip when not
  installed) in `project` to resume `session_id` with the prompt `PROMPT`, and return the body of the model
  request of that turn (the client's main turn, not a title or summary request).

`homes` is the `isolated_homes` fixture (tests/conftest.py); `servers` is a `Servers`. A driver module must
import cleanly when its client is not installed (it skips inside `resume`, not at import).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from types import ModuleType

from fake_gemini_server import FakeGeminiServer
from fake_model_server import FakeModelServer

PROMPT = "continue"
"""What every receiving client is asked when it resumes a migrated session."""


@dataclass(frozen=True)
class Servers:
    """The fake model servers of one test module: `model` speaks Responses, Messages and Chat Completions;
    `gemini` speaks Gemini's generateContent."""

    model: FakeModelServer
    gemini: FakeGeminiServer

    def clear(self) -> None:
        """Forget the requests seen so far (before a resume, so the last request is this turn's)."""
        self.model.requests.clear()
        self.gemini.requests.clear()


def all_drivers() -> dict[str, ModuleType]:
    """Every driver module in this folder, by agent id, in name order."""
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda module: module.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found[module.AGENT] = module
    return found
