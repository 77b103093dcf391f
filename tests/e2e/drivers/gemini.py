"""Gemini CLI 0.61.0 in the real-client matrix: the recorded session in tests/fixtures/gemini as the source,
`gemini --resume ID -p` against the fake Gemini API as the receiver."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from gemini_client import prepare_home, run_gemini

from drivers import PROMPT, Servers, last_turn, write_note
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


def _turn(homes: dict[str, Path], project: Path, servers: Servers, *args: str) -> dict[str, Any]:
    """`gemini [ARGS] -p PROMPT` against the fake Gemini API; the request of that turn."""
    assert servers.gemini is not None, "Gemini CLI needs the fake Gemini server"
    servers.clear()
    run_gemini(homes["home"], project, servers.gemini, *args, "-p", PROMPT)
    return last_turn(servers.gemini.turns(), "Gemini CLI")


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    return _turn(homes, project, servers, "--resume", session_id)


def seed_memory(homes: dict[str, Path], note: str) -> None:
    """The global GEMINI.md, as Gemini CLI's `save_memory` tool writes it."""
    write_note(homes["home"] / ".gemini" / "GEMINI.md", f"## Gemini Added Memories\n- {note}\n")


def memory_turn(homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    return _turn(homes, project, servers)


def memory_carries(homes: dict[str, Path], notes: dict[str, str]) -> list[str]:
    """Gemini CLI inlines the bundle its GEMINI.md imports (`@./smig_memory.md`): every agent's note."""
    return list(notes.values())
