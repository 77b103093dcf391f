"""Runs the real Pi coding agent against the fake model server, in an isolated home.

Pi takes custom providers from `~/.pi/agent/models.json` (`PI_CODING_AGENT_DIR` moves that folder):
here one provider `fake` at the server, speaking OpenAI Chat Completions (`openai-completions`, the
API Pi documents for local servers) or the Anthropic Messages API, with the model's context window
written there (Pi compacts against it). `--provider fake --model ID` picks it; `PI_OFFLINE` stops
the startup update check and telemetry. `-p` runs one prompt and exits.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from client_runs import clean_env, new_client, run_client
from fake_model_server import FakeModelServer

MODEL = "fake-coder"
PROVIDER = "fake"
WINDOW = 128_000


def pi_binary() -> str:
    """The installed `pi`, or skip."""
    return new_client("pi")


def prepare_home(home: Path, server: FakeModelServer, api: str = "openai-completions", window: int = WINDOW) -> Path:
    """`models.json` with the provider `fake` at the server (rewritten each run: the port changes); Pi's folder."""
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    base = f"{server.url}/v1" if api.startswith("openai") else server.url
    model = {"id": MODEL, "name": MODEL, "contextWindow": window, "maxTokens": 4096, "reasoning": False}
    provider = {"baseUrl": base, "api": api, "apiKey": "smig-test", "models": [model]}
    if api == "openai-completions":
        provider["compat"] = {"supportsDeveloperRole": False, "supportsReasoningEffort": False}
    (agent_dir / "models.json").write_text(json.dumps({"providers": {PROVIDER: provider}}, indent=2), encoding="utf-8")
    return agent_dir


def pi_env(
    home: Path, server: FakeModelServer, api: str = "openai-completions", window: int = WINDOW
) -> dict[str, str]:
    """Only the temp home (its `models.json` pointed at this server): nothing from a real profile or a parent agent."""
    prepare_home(home, server, api, window)
    return clean_env(home, PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1", PI_TELEMETRY="0", NO_COLOR="1")


def run_pi(
    home: Path,
    cwd: Path,
    server: FakeModelServer,
    *args: str,
    env: dict[str, str] | None = None,
    api: str = "openai-completions",
    window: int = WINDOW,
) -> subprocess.CompletedProcess[str]:
    """`pi --provider fake --model MODEL ARGS` in `cwd` with only the temp home; fails on a non-zero exit."""
    argv = [pi_binary(), "--provider", PROVIDER, "--model", MODEL, *args]
    return run_client(argv, cwd, pi_env(home, server, api, window) | (env or {}))
