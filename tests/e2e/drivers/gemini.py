"""Gemini CLI 0.61.0 in the real-client matrix: the recorded session in tests/fixtures/gemini as the source,
`gemini --resume ID -p` against the fake Gemini API as the receiver."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from gemini_client import prepare_home, run_gemini

from drivers import PROMPT, Servers
from smig_tui.core.models import Agent
from smig_tui.services import build_services

AGENT = "gemini"
TARGET = "gemini-2.5-pro"
PROVIDER = "google"
FIXTURE = Path(__file__).parents[2] / "fixtures" / "gemini"


def smig_env(homes: dict[str, Path]) -> dict[str, str]:
    return {}


def install_source(homes: dict[str, Path], project: Path, tmp_path: Path) -> str:
    """The recorded session in the temp home, its project folder pointed at `project`; its id."""
    home = homes["home"] / ".gemini"
    shutil.copytree(FIXTURE / "home" / ".gemini", home, dirs_exist_ok=True)
    (home / "tmp" / "osprey-app" / ".project_root").write_text(str(project), encoding="utf-8")
    [info] = build_services().list_sessions(agent=Agent("gemini"))
    return info.id


def prepare_receiver(homes: dict[str, Path], servers: Servers) -> None:
    """API-key auth in Gemini CLI's settings (the server's address goes in the environment `resume` sets)."""
    prepare_home(homes["home"])


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    assert servers.gemini is not None, "Gemini CLI needs the fake Gemini server"
    servers.clear()
    run_gemini(homes["home"], project, servers.gemini, "--resume", session_id, "-p", PROMPT)
    bodies = servers.gemini.turns()
    assert bodies, "Gemini CLI sent the model no request"
    return bodies[-1]


def seed_memory(homes: dict[str, Path], note: str) -> None:
    """The global GEMINI.md, as Gemini CLI's `save_memory` tool writes it."""
    path = homes["home"] / ".gemini" / "GEMINI.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"## Gemini Added Memories\n- {note}\n", encoding="utf-8")


def memory_turn(homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    assert servers.gemini is not None, "Gemini CLI needs the fake Gemini server"
    servers.clear()
    run_gemini(homes["home"], project, servers.gemini, "-p", PROMPT)
    bodies = servers.gemini.turns()
    assert bodies, "Gemini CLI sent the model no request"
    return bodies[-1]


def memory_carries(homes: dict[str, Path], notes: dict[str, str]) -> list[str]:
    """Gemini CLI inlines the bundle its GEMINI.md imports (`@./smig_memory.md`): every agent's note."""
    return list(notes.values())
