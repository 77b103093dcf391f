"""The Pi coding agent (0.73.1) in the real-client matrix: its recorded session as a source, its client as a receiver.

The source is the recorded `tools` session of tests/fixtures/real/pi (a shell call, a file read, a
failed call), moved to the test's project folder as Pi files it: the header's `cwd`, and the
project's session folder. The receiver is `pi --session ID -p PROMPT` with a custom provider `fake`
at the fake model server (Chat Completions), as tests/e2e/pi_client.py sets it up.

Its memory is its global context file, `~/.pi/agent/AGENTS.md`, put whole in every system prompt. Pi has
no import syntax: smig's line there names the bundle, which the model opens with Pi's `read` tool; the
memory turn scripts that read, so the request after it carries the other agents' notes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_client import prepare_home, run_pi

from . import PROMPT, Servers, last_turn, write_note

AGENT = "pi"
TARGET = "claude-sonnet-4-5"
PROVIDER = "anthropic"
RECORDED = Path(__file__).parents[2] / "fixtures" / "real" / "pi"
CARRIES = ("TOOLS: read notes.txt", "codename: OSPREY", "TOOLS-2: which?")
"""The first prompt, the text of the file its tools read, the last prompt."""


def smig_env(_homes: dict[str, Path]) -> dict[str, str]:
    """Nothing: Pi's sessions are plain files smig writes itself."""
    return {}


def install_source(homes: dict[str, Path], project: Path, _tmp_path: Path) -> str:
    """The recorded `tools` session in the temp home, moved to `project`; its id."""
    scenario = json.loads((RECORDED / "scenarios.json").read_text(encoding="utf-8"))["tools"]
    [recorded] = (RECORDED / "home" / ".pi" / "agent" / "sessions").glob(f"*/{scenario['file']}")
    header, *entries = recorded.read_text(encoding="utf-8").splitlines()
    moved = json.loads(header) | {"cwd": str(project)}
    folder = homes["home"] / ".pi" / "agent" / "sessions" / ("--" + str(project).lstrip("/").replace("/", "-") + "--")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / recorded.name).write_text("\n".join([json.dumps(moved), *entries]) + "\n", encoding="utf-8")
    return str(scenario["session"])


def prepare_receiver(homes: dict[str, Path], servers: Servers) -> None:
    """Pi's `models.json` in the temp home, its provider `fake` at the model server."""
    prepare_home(homes["home"], servers.model)


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    """`pi --session ID -p PROMPT` in `project` (skips when Pi is not installed); the turn's request."""
    servers.clear()
    run_pi(homes["home"], project, servers.model, "--session", session_id, "-p", PROMPT)
    bodies = [body for _, _, body in servers.model.requests if body.get("tools")]
    assert bodies, "Pi sent the model no request"
    return bodies[-1]


def _agent_folder(homes: dict[str, Path]) -> Path:
    return homes["home"] / ".pi" / "agent"


def seed_memory(homes: dict[str, Path], note: str) -> None:
    """Pi's global context file, `~/.pi/agent/AGENTS.md`."""
    write_note(_agent_folder(homes) / "AGENTS.md", f"# Rules\n\n- {note}\n")


def memory_turn(homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    """`pi -p PROMPT` in `project`, the model reading the bundle smig's line names: the request after that read."""
    servers.clear()
    servers.model.steps = [{"name": "read", "args": {"path": str(_agent_folder(homes) / "smig_memory.md")}}]
    try:
        run_pi(homes["home"], project, servers.model, "-p", PROMPT)
    finally:
        servers.model.steps = []
    turns = [body for _, _, body in servers.model.requests if body.get("tools")]
    assert len(turns) >= 2, "Pi did not send the model the result of reading the bundle"
    return last_turn(turns, "Pi")


def memory_carries(homes: dict[str, Path], notes: dict[str, str]) -> list[str]:
    """Pi's own note and smig's line naming the bundle (its system prompt), and every other agent's note (the
    bundle as its `read` tool returned it)."""
    return [*notes.values(), f"also read {_agent_folder(homes) / 'smig_memory.md'}"]
