"""Provides reading of smig's TOML config file into a plain mapping; each feature validates its own table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from smig_tui.core.errors import ConfigError


def load_config(path: Path) -> dict[str, Any]:
    """Return the parsed config, or an empty mapping when the file does not exist."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ConfigError(f"Cannot read config file {path}: {error.strerror}.") from error
    import tomllib  # only when there is a file: about 2 ms of a start without one

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"Config file {path} is not valid TOML: {error}.") from error
