"""Runs the real GitHub Copilot CLI against the fake model server, in an isolated home, with no GitHub sign-in.

Copilot's BYOK mode: `COPILOT_PROVIDER_BASE_URL` (the fake; the Anthropic type appends `/v1/messages`,
the OpenAI type `/chat/completions`), `COPILOT_PROVIDER_TYPE`, `COPILOT_MODEL` (a catalog id such as
`claude-sonnet-4.5` sets the window, 168,000 prompt tokens) and `COPILOT_OFFLINE=true` (no sign-in,
telemetry, update check or GitHub MCP server). The npm package is a native binary that unpacks its
JavaScript (about 235 MB) on first run; `COPILOT_PKG_CACHE_HOME` keeps one unpacked copy beside the
install instead of one per temp home. `-p` runs one prompt and exits; `--allow-all-tools` is required
there for any tool to run.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from client_runs import clean_env, new_client, run_client
from fake_model_server import FakeModelServer

MODEL = "claude-sonnet-4.5"


def copilot_binary() -> str:
    """The installed `copilot`, or skip."""
    return new_client("copilot")


def copilot_env(home: Path, server: FakeModelServer, provider: str = "anthropic", model: str = MODEL) -> dict[str, str]:
    """Only the temp home and the BYOK settings: nothing from a real profile or a parent agent."""
    binary = Path(copilot_binary())
    base = server.url if provider == "anthropic" else f"{server.url}/v1"
    return clean_env(
        home,
        COPILOT_PKG_CACHE_HOME=str(binary.resolve().parents[3] / "copilot-pkg"),
        COPILOT_OFFLINE="true",
        COPILOT_AUTO_UPDATE="false",
        COPILOT_PROVIDER_BASE_URL=base,
        COPILOT_PROVIDER_TYPE=provider,
        COPILOT_PROVIDER_API_KEY="smig-test",
        COPILOT_MODEL=model,
        NO_COLOR="1",
        CI="1",
    )


def run_copilot(
    home: Path, cwd: Path, server: FakeModelServer, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`copilot ARGS` in `cwd` with only the temp home in its environment; fails on a non-zero exit."""
    return run_client([copilot_binary(), *args], cwd, copilot_env(home, server) | (env or {}))
