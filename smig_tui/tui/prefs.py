"""Provides the TUI's small persisted preferences (recent target models) in `data_dir/tui.json`."""

from __future__ import annotations

import json
from pathlib import Path

from smig_tui.services import write_private

RECENT_LIMIT = 8
"""How many recent targets the picker lists first."""


def load_recent(path: Path) -> list[str]:
    """Read the recent targets; a missing or corrupt file means none yet."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    names = data.get("recent_targets") if isinstance(data, dict) else None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def remember(recent: list[str], name: str) -> list[str]:
    """Put `name` first, without duplicates, capped."""
    return [name, *(item for item in recent if item != name)][:RECENT_LIMIT]


def save_recent(path: Path, names: list[str]) -> None:
    """Write the recent targets atomically."""
    write_private(path, json.dumps({"recent_targets": names}, indent=2) + "\n")
