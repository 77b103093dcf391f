"""Provides the capacity table: the shipped `data/models.json` plus the user's config overrides."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from smig_tui.core.capacity import CapacityTable, apply_overrides, parse_table
from smig_tui.core.errors import ConfigError

PACKAGE_TABLE = "models.json"


def load_builtin() -> CapacityTable:
    """Read and validate the table shipped with smig."""
    source = resources.files("smig_tui") / "data" / PACKAGE_TABLE
    where = f"smig_tui/data/{PACKAGE_TABLE}"
    try:
        document = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"{where} cannot be read ({error}); reinstall smig.") from error
    if not isinstance(document, dict) or "models" not in document:
        raise ConfigError(f"{where} has no `models` table; reinstall smig.")
    return parse_table(document["models"], where)


def load_capacities(config: dict[str, Any], config_path: Path | str = "config.toml") -> CapacityTable:
    """Return the built-in table with the config file's `[models."name"]` entries applied.

    An entry naming a known model (or one of its aliases) overrides just the fields it gives;
    any other name adds a model, which needs at least `context_window`.
    """
    table = load_builtin()
    overrides = config.get("models")
    if overrides is None:
        return table
    return apply_overrides(table, overrides, str(config_path))
