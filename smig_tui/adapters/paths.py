"""Provides smig's own folders (data, cache, config), with the override tests use.

Where each agent keeps its files is that agent's to say: its profile's `home` (`adapters/agents/`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "smig"


@dataclass(frozen=True, slots=True)
class Paths:
    """Where smig keeps its own files."""

    data_dir: Path
    """smig's storage: committed migrations, memory-sync state."""
    cache_dir: Path
    """smig's caches: token counts, session index, summaries."""
    config_dir: Path
    """smig's config: `config.toml`."""

    @property
    def config_file(self) -> Path:
        """The user's TOML config file (may not exist)."""
        return self.config_dir / "config.toml"


def resolve_paths(env: Mapping[str, str] | None = None) -> Paths:
    """Work out smig's folders from the environment.

    `SMIG_TUI_HOME`, when set, puts smig's data, cache and config under one folder: the single seam
    tests use so they never touch a real profile.
    """
    env = os.environ if env is None else env
    smig_home = env.get("SMIG_TUI_HOME")
    if smig_home:
        root = Path(smig_home)
        return Paths(root / "data", root / "cache", root / "config")
    import platformdirs  # with tempfile, shutil and random: not needed when smig's home is set

    return Paths(
        data_dir=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        cache_dir=Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
        config_dir=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
    )
