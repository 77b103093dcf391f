"""Runs the real Gemini CLI against the fake Gemini API server, in an isolated home.

`GOOGLE_GEMINI_BASE_URL` points the client at the fake, any `GEMINI_API_KEY` passes, the settings
file selects API-key auth (else `-p` stops with "Invalid auth method selected"), and
`GEMINI_CLI_TRUST_WORKSPACE` stands in for trusting the folder interactively. `-m` names the
model, so the client skips its model router's side request. `NO_RELAUNCH` runs the CLI in the one node process: by default it
starts itself again in a child node with a larger heap, so every run loaded the bundle twice.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from fake_gemini_server import FakeGeminiServer

CLIENT_TIMEOUT = 240
MODEL = "gemini-2.5-pro"
_DEFAULT_BIN = Path(os.path.expanduser("~")) / ".cache" / "smig-e2e" / "node_modules" / ".bin"
NO_RELAUNCH = {"GEMINI_CLI_NO_RELAUNCH": "true"}
"""What the CLI sets for the child it relaunches itself as (0.61.0): with it, the first process is that
child, the same code with node's default heap (ample here). About 2.0 -> 1.4 s of CPU a run."""


def gemini_binary() -> str:
    """The installed `gemini`, or skip."""
    for folder in (os.environ.get("SMIG_E2E_BIN"), str(_DEFAULT_BIN)):
        if folder and (Path(folder) / "gemini").is_file():
            return str(Path(folder) / "gemini")
    found = shutil.which("gemini")
    if not found:
        pytest.skip("gemini is not installed (set SMIG_E2E_BIN or run .ci/run)")
    return found


def prepare_home(home: Path) -> None:
    """Select API-key auth in the home's Gemini settings (the only file the client needs up front)."""
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    if not settings.exists():
        settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}), encoding="utf-8")


def run_gemini(home: Path, cwd: Path, server: FakeGeminiServer, *args: str) -> subprocess.CompletedProcess[str]:
    """`gemini ARGS -m MODEL` in `cwd` with only the temp home in its environment; fails the test on a non-zero exit."""
    prepare_home(home)
    env = {key: os.environ[key] for key in ("PATH", "LANG", "TMPDIR") if key in os.environ}
    env |= {
        "HOME": str(home),
        "GEMINI_API_KEY": "smig-test",
        "GOOGLE_GEMINI_BASE_URL": server.url,
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "NO_COLOR": "1",
        "CI": "1",
    } | NO_RELAUNCH
    run = subprocess.run(
        [gemini_binary(), *args, "-m", MODEL],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=CLIENT_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run
