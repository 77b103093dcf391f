"""Provides where Claude Code keeps its files: `$CLAUDE_CONFIG_DIR`, default `~/.claude`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from smig_tui.adapters.agents.claude.scan import project_dir_override
from smig_tui.adapters.agents.profile import Env, environment, user_home

HOME_VARIABLE = "CLAUDE_CONFIG_DIR"


@dataclass(frozen=True, slots=True)
class ClaudeHome:
    """Claude Code's config folder, and the one project folder it may be told to keep every session in."""

    root: Path
    project_dir_name: str | None = None
    """`$CLAUDE_CODE_PROJECT_DIR_NAME` when Claude Code would honour it: the one `projects/` folder
    it then keeps every session in, whatever the cwd."""

    @property
    def projects(self) -> Path:
        """Claude Code's per-project transcript folders."""
        return self.root / "projects"


def resolve_home(env: Env = None) -> ClaudeHome:
    """Claude Code's folder as the environment sets it, as Claude Code does."""
    variables = environment(env)
    override = variables.get(HOME_VARIABLE)
    root = Path(override) if override else user_home(env) / ".claude"
    return ClaudeHome(root, project_dir_override(variables))
