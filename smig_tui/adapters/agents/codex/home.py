"""Provides where Codex keeps its files: `$CODEX_HOME`, default `~/.codex`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from smig_tui.adapters.agents.profile import Env, environment, user_home

if TYPE_CHECKING:
    from smig_tui.core.ports import Watched

HOME_VARIABLE = "CODEX_HOME"


@dataclass(frozen=True, slots=True)
class CodexHome:
    """Codex's folder and the rollout tree under it."""

    root: Path

    @property
    def sessions(self) -> Path:
        """Codex's rollout tree."""
        return self.root / "sessions"


def resolve_home(env: Env = None) -> CodexHome:
    """Codex's folder as the environment sets it, as Codex does."""
    override = environment(env).get(HOME_VARIABLE)
    return CodexHome(Path(override) if override else user_home(env) / ".codex")


def sqlite_home_set() -> Path | None:
    """`$CODEX_SQLITE_HOME` of this process (where Codex may keep its state DB), as the reader takes it."""
    value = os.environ.get("CODEX_SQLITE_HOME")
    return Path(value) if value else None


def rollout_roots(home: CodexHome) -> list[Path]:
    """Where rollouts live: live and archived threads."""
    return [home.sessions, home.root / "archived_sessions"]


def state_db_folders(home: CodexHome, sqlite_home: Path | None) -> list[Path]:
    """Where the state DB (thread titles and models) is looked for, in order."""
    return [*([sqlite_home] if sqlite_home else []), home.root, home.root / "sqlite"]


def watched(home: CodexHome, sqlite_home: Path | None) -> list[Watched]:
    """What a listing reads: the rollout trees, and the folders holding the thread names and the state DB
    (their own entries)."""
    from smig_tui.core.ports import Watched

    return [
        *(Watched(str(root), tree=True) for root in rollout_roots(home)),
        *(Watched(str(folder)) for folder in state_db_folders(home, sqlite_home)),
    ]
