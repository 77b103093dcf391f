"""Qwen Code 0.24.4 in the real-client matrix: a session the real client recorded (tests/fixtures/real/qwen,
the `tools` scenario: a shell call, a file read, a failed command) as the source, `qwen --resume ID PROMPT`
against the fake server's Chat Completions as the receiver."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from qwen_client import prepare_home, run_qwen

from drivers import PROMPT, Servers, last_turn

AGENT = "qwen"
TARGET = "qwen3-coder-plus"
PROVIDER = "qwen"
CARRIES = ("TOOLS: read notes.txt", "codename: OSPREY", "TOOLS-2: which file?")
"""The first prompt, a file's text its tools read, the last prompt."""
REAL = Path(__file__).parents[2] / "fixtures" / "real" / "qwen"


def smig_env(homes: dict[str, Path]) -> dict[str, str]:
    return {}


def install_source(homes: dict[str, Path], project: Path, tmp_path: Path) -> str:
    """The recorded home (four sessions); the `tools` session's id. Its folder stays the recorded one:
    a migration names the receiver's folder itself (`--cwd`)."""
    shutil.copytree(REAL / "home" / ".qwen", homes["home"] / ".qwen", dirs_exist_ok=True)
    return str(json.loads((REAL / "scenarios.json").read_text(encoding="utf-8"))["tools"]["session"])


def prepare_receiver(homes: dict[str, Path], servers: Servers) -> None:
    """Qwen Code's settings: OpenAI auth, no update check, no memory-extractor side requests."""
    prepare_home(homes["home"])


def _turn(homes: dict[str, Path], project: Path, servers: Servers, *args: str) -> dict[str, Any]:
    """`qwen [ARGS] PROMPT` (one turn); the request of that turn."""
    servers.clear()
    run_qwen(homes["home"], project, servers.model, *args, PROMPT)
    return last_turn([body for body in servers.model.bodies("/chat/completions") if body.get("tools")], "Qwen Code")


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    return _turn(homes, project, servers, "--resume", session_id)


def seed_memory(homes: dict[str, Path], note: str) -> None:
    """The global QWEN.md, as Qwen Code's `save_memory` tool writes it."""
    path = prepare_home(homes["home"]) / "QWEN.md"
    path.write_text(f"## Qwen Added Memories\n- {note}\n", encoding="utf-8")


def memory_turn(homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    return _turn(homes, project, servers)


def memory_carries(homes: dict[str, Path], notes: dict[str, str]) -> list[str]:
    """Qwen Code inlines the bundle its QWEN.md imports (`@./smig_memory.md`): every agent's note."""
    return list(notes.values())
