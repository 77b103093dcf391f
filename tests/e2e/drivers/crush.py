"""Crush's driver for the real-client matrix: a source from its schema, never a receiver.

Crush's npm package (`@charmland/crush` 0.96.1) downloads its binary from GitHub when it installs,
which this project's machines and CI cannot reach, and smig writes no Crush session (it is a
read-only agent). So `install_source` lays out databases built from Crush's own schema
(tests/fixtures/crush, not written by the client) and `resume` skips, saying why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from crush_builders import make

AGENT = "crush"
TARGET = "gpt-5.5"
"""No Crush client runs here; a plan is never made for Crush as the receiver."""
PROVIDER = "openai"
CARRIES = ("codename: OSPREY", "git status --short")
"""A tool's output and the `!` shell command of the tool session, which every receiving client must send."""
NO_CLIENT = (
    "Crush cannot be installed or run offline here (its npm package downloads its binary from GitHub), "
    "and smig writes no Crush session (read-only agent)"
)


def smig_env(homes: dict[str, Path]) -> dict[str, str]:
    """Nothing: smig reads Crush's databases through the projects list in the temp home."""
    return {}


def install_source(homes: dict[str, Path], project: Path, tmp_path: Path) -> str:
    """Crush's tool session (built from its schema) as a project at `project`, named in Crush's projects list."""
    make.write_database(project / ".crush" / "crush.db", make.PROJECT_ALPHA, "gpt-5.5")
    listing = homes["home"] / ".local" / "share" / "crush" / "projects.json"
    listing.parent.mkdir(parents=True, exist_ok=True)
    entry = {"path": str(project), "data_dir": str(project / ".crush"), "last_accessed": "2025-12-05T09:00:00Z"}
    listing.write_text(json.dumps({"projects": [entry]}), encoding="utf-8")
    return str(make.TOOLS)


def prepare_receiver(homes: dict[str, Path], servers: Any) -> None:
    """Nothing to configure: Crush never receives a migration."""


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Any) -> dict[str, Any]:
    """Skips: there is no Crush client to resume with, and no Crush session smig wrote."""
    pytest.skip(NO_CLIENT)


def gap(source: str, receiver: str, truncated: bool) -> str | None:
    """Crush is never the receiver: smig refuses `--to crush` (read-only) and there is no client to resume."""
    return NO_CLIENT if receiver == AGENT else None
