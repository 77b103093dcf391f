"""Provides where Codex keeps its files: `$CODEX_HOME`, default `~/.codex`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from smig_tui.adapters.agents.profile import Env, environment, user_home

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
