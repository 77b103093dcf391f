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


WRITTEN = [
    ("user", "IMPORTED-ASK: what does plan.txt say?"),
    ("call", "cat plan.txt"),
    ("result", "IMPORTED-OUTPUT: migrate by friday"),
    ("assistant", "IMPORTED-ANSWER: migrate by friday."),
    ("user", "IMPORTED-SECOND: and after that?"),
    ("assistant", "IMPORTED-REPLY: then celebrate."),
]
"""The turns the hand-written sessions hold, in order (kind, text)."""


def assert_carries_the_written_turns(items: list[tuple[str, str]], prompt: str) -> None:
    """The hand-written items, in order and paired, then the new prompt last."""
    kinds = [(kind.split(":")[0], text) for kind, text in items]
    found: list[int] = []
    for kind, text in WRITTEN:
        matches = [i for i, (k, t) in enumerate(kinds) if k == kind and text in t and i not in found]
        assert matches, f"{kind} {text!r} is not in the request: {kinds}"
        found.append(matches[0])
    assert found == sorted(found), kinds
    call_id = kinds[found[1]][1].split(" ", 1)[0]
    assert kinds[found[2]][1].startswith(call_id), (kinds[found[1]], kinds[found[2]])
    assert kinds[-1][0] == "user" and kinds[-1][1].endswith(prompt), kinds[-1]
    assert found[-1] < len(kinds) - 1
