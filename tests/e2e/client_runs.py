"""What the drivers of the agents being added (issue 31) share: finding a client, its environment, one run.

`.ci/run` installs Copilot CLI, Pi, Qwen Code and Kilo Code CLI under their own npm prefix
(`~/.cache/smig-e2e-new`, `SMIG_E2E_NEW_BIN`), apart from the four clients smig already supports,
so that one of them failing to install offline cannot take the others' e2e tests down with it.
A client is looked for there, then where the four live (`SMIG_E2E_BIN`, `~/.cache/smig-e2e`), then
on PATH; a test whose client is nowhere skips.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from client_env import client_binary

CLIENT_TIMEOUT = 240
"""Seconds one client run may take before the test fails (a first Copilot run unpacks 235 MB)."""
NEW_BIN = Path(os.path.expanduser("~")) / ".cache" / "smig-e2e-new" / "node_modules" / ".bin"


def new_client(name: str) -> str:
    """The installed binary `name`: under the new clients' prefix, else where the four live, else skip."""
    for folder in (os.environ.get("SMIG_E2E_NEW_BIN"), str(NEW_BIN)):
        if folder and (Path(folder) / name).is_file():
            return str(Path(folder) / name)
    try:
        return client_binary(name)
    except pytest.skip.Exception:
        pytest.skip(f"{name} is not installed (set SMIG_E2E_NEW_BIN or run .ci/run)")


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """PATH, LANG and TMPDIR, the temp home and `extra`: nothing from a real profile or a parent agent."""
    env = {key: os.environ[key] for key in ("PATH", "LANG", "TMPDIR") if key in os.environ}
    return env | {"HOME": str(home)} | extra


def run_client(
    argv: list[str], cwd: Path, env: dict[str, str], typed: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a client once (`typed` as its keyboard, else no stdin); fails the test on a non-zero exit."""
    run = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=CLIENT_TIMEOUT,
        input=typed,
        stdin=subprocess.DEVNULL if typed is None else None,
    )
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-2000:])
    return run
