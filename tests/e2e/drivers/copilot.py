"""The real-client matrix's driver for GitHub Copilot CLI 1.0.102 (`@github/copilot`), BYOK, no sign-in.

As a source: the recorded `tools` session of tests/fixtures/real/copilot (a shell call, a file view, a
failing command, then a second prompt), its folder moved to the test's project. As a receiver: the
real client, pointed at the fake server's Anthropic Messages API (`copilot_client.copilot_env`), run
with `--resume ID -p PROMPT`; Copilot needs no config file of its own.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from copilot_client import run_copilot

from drivers import PROMPT, Servers

AGENT = "copilot"
TARGET = "claude-sonnet-5-5"
PROVIDER = "anthropic"
FIXTURE = Path(__file__).parents[2] / "fixtures" / "real" / "copilot"
RECORDED_ROOT = "/tmp/smig-real-copilot/work"
"""Where the recorded sessions ran: `<root>/<scenario>`."""


def smig_env(homes: dict[str, Path]) -> dict[str, str]:
    """smig writes Copilot's session files itself: nothing to add."""
    return {}


def install_source(homes: dict[str, Path], project: Path, tmp_path: Path) -> str:
    """The recorded `tools` session under `~/.copilot/session-state`, its folder pointed at `project`."""
    session = json.loads((FIXTURE / "scenarios.json").read_text(encoding="utf-8"))["tools"]["session"]
    recorded = FIXTURE / "home" / ".copilot" / "session-state" / session
    folder = homes["home"] / ".copilot" / "session-state" / session
    shutil.copytree(recorded, folder)
    for name in ("events.jsonl", "workspace.yaml"):
        path = folder / name
        path.write_text(
            path.read_text(encoding="utf-8").replace(f"{RECORDED_ROOT}/tools", str(project)), encoding="utf-8"
        )
    return session


def prepare_receiver(homes: dict[str, Path], servers: Servers) -> None:
    """Nothing: Copilot's BYOK settings are environment variables, given when it runs."""


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    """`copilot --resume ID -p PROMPT` in `project`; the request of that turn (the last one offering tools)."""
    servers.clear()
    run_copilot(homes["home"], project, servers.model, "--resume", session_id, "-p", PROMPT, "--allow-all-tools")
    bodies = [body for _, _, body in servers.model.requests if body.get("tools")]
    assert bodies, "Copilot CLI sent the model no request"
    return bodies[-1]


CARRIES = ("TOOLS: read notes.txt", "cat missing.txt", "codename: OSPREY", "TOOLS-2: which file?")
"""The first prompt, a call's command, a result and the last prompt of the recorded session."""
LEFT_BEHIND = ("<current_datetime>",)
"""Copilot's own date line, which it adds to a prompt and smig does not migrate."""


def seed_memory(homes: dict[str, Path], note: str) -> None:
    """`note` in Copilot's own global instructions file (`~/.copilot/copilot-instructions.md`)."""
    path = homes["home"] / ".copilot" / "copilot-instructions.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# Mine\n- {note}\n", encoding="utf-8")


def memory_turn(homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    """A new `copilot -p` turn in `project`; its model request."""
    servers.clear()
    run_copilot(homes["home"], project, servers.model, "-p", "MEMORY: what do you know?", "--allow-all-tools")
    bodies = [body for _, _, body in servers.model.requests if body.get("tools")]
    assert bodies, "Copilot CLI sent the model no request"
    return bodies[-1]


def memory_carries(homes: dict[str, Path], notes: dict[str, str]) -> list[str]:
    """Copilot reads smig's bundle itself (an instructions file): every agent's note, its own included."""
    return list(notes.values())
