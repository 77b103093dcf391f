"""Proves smig's Codex window for a model is the one the real Codex CLI runs it at.

Codex logs the usable window of every turn (`model_context_window` in `task_started`, 95% of its
own figure). smig reads the same `config.toml` the client ran with, so its usable window must match
what the client logged, for catalog models, models outside the catalog, and raised/capped settings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_model_server import FakeModelServer

from smig_tui.services import build_services

pytestmark = pytest.mark.e2e
CLIENT_TIMEOUT = 240


def _codex() -> str:
    folder = os.environ.get("SMIG_E2E_BIN")
    if not folder or not (Path(folder) / "codex").is_file():
        pytest.skip("the real Codex CLI is not installed (set SMIG_E2E_BIN)")
    return str(Path(folder) / "codex")


def _logged_window(codex_home: Path) -> int:
    """The usable window Codex logged for the turn it ran."""
    windows = set()
    for rollout in codex_home.glob("sessions/**/*.jsonl"):
        for line in rollout.read_text(encoding="utf-8").splitlines():
            payload = json.loads(line).get("payload") or {}
            if payload.get("type") == "task_started" and payload.get("model_context_window"):
                windows.add(payload["model_context_window"])
    assert len(windows) == 1, windows
    return windows.pop()


@pytest.mark.parametrize(
    ("model", "extra"),
    [
        ("gpt-5.6-sol", ""),  # in Codex's catalog: 272,000
        ("gpt-6.2-sol", ""),  # in Codex's catalog: 500,000
        ("gpt-4.1", ""),  # outside it: 272,000, not the API's 1,047,576
        ("gpt-5.6-sol", "model_context_window = 600000\n"),  # raised by the user
        ("gpt-5.6-sol", "model_context_window = 2000000\n"),  # capped at max_context_window 872,000
        ("gpt-5.4", "model_context_window = 2000000\n"),  # outside the catalog: cannot be raised
    ],
)
def test_codex_logs_the_window_smig_plans_with(isolated_homes, tmp_path: Path, model: str, extra: str) -> None:
    codex = _codex()
    project = tmp_path / "project"
    project.mkdir()
    with FakeModelServer() as server:
        isolated_homes["codex"].mkdir(parents=True, exist_ok=True)
        (isolated_homes["codex"] / "config.toml").write_text(
            f'model = "{model}"\n{extra}model_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "SMIG_FAKE_KEY"\n',
            encoding="utf-8",
        )
        env = {key: os.environ[key] for key in ("PATH", "LANG", "TMPDIR") if key in os.environ}
        env.update(
            HOME=str(isolated_homes["home"]),
            CODEX_HOME=str(isolated_homes["codex"]),
            NO_COLOR="1",
            CI="1",
            SMIG_FAKE_KEY="test",
        )
        run = subprocess.run(
            [codex, "exec", "--skip-git-repo-check", "hello"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=CLIENT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    assert run.returncode == 0, run.stderr[-2000:]
    smig = build_services().capacities.lookup(model)
    assert smig.harness_window == _logged_window(isolated_homes["codex"])
