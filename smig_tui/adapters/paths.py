"""Provides every filesystem location smig reads or writes, with the env overrides tests use."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from smig_tui.adapters.agents.claude.scan import project_dir_override

APP_NAME = "smig"


@dataclass(frozen=True, slots=True)
class Paths:
    """Where the agents keep their files and where smig keeps its own."""

    codex_home: Path
    """`$CODEX_HOME`, default `~/.codex`."""
    claude_home: Path
    """`$CLAUDE_CONFIG_DIR`, default `~/.claude`."""
    data_dir: Path
    """smig's storage: committed migrations, memory-sync state."""
    cache_dir: Path
    """smig's caches: token counts, session index, summaries."""
    config_dir: Path
    """smig's config: `config.toml`."""
    claude_project_dir_name: str | None = None
    """`$CLAUDE_CODE_PROJECT_DIR_NAME` when Claude Code would honour it: the one `projects/` folder
    it then keeps every session in, whatever the cwd."""
    gemini_home: Path | None = None
    """Gemini CLI's folder: `$GEMINI_CLI_HOME/.gemini`, default `~/.gemini`."""

    @property
    def config_file(self) -> Path:
        """The user's TOML config file (may not exist)."""
        return self.config_dir / "config.toml"

    @property
    def claude_projects(self) -> Path:
        """Claude Code's per-project transcript folders."""
        return self.claude_home / "projects"

    @property
    def codex_sessions(self) -> Path:
        """Codex's rollout tree."""
        return self.codex_home / "sessions"


def resolve_paths(env: dict[str, str] | None = None) -> Paths:
    """Work out all locations from the environment.

    `SMIG_TUI_HOME`, when set, puts smig's data, cache and config under one folder: the single seam
    tests use so they never touch a real profile.
    """
    env = dict(os.environ) if env is None else env
    home = Path(env.get("HOME") or Path.home())
    codex = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
    claude = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    project_dir = project_dir_override(env)
    gemini = Path(env.get("GEMINI_CLI_HOME") or home) / ".gemini"
    smig_home = env.get("SMIG_TUI_HOME")
    if smig_home:
        root = Path(smig_home)
        return Paths(codex, claude, root / "data", root / "cache", root / "config", project_dir, gemini)
    return Paths(
        codex_home=codex,
        claude_home=claude,
        data_dir=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        cache_dir=Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
        config_dir=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
        claude_project_dir_name=project_dir,
        gemini_home=gemini,
    )
