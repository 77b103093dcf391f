"""Provides lenient reads of an agent's own settings files: one that cannot be read counts as absent.

These files belong to the agents: they are only read, and a broken one is the agent's to report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's contents, or {} when it is missing or broken."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    import tomllib  # only when there is a file: about 2 ms of a start without one

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object file's contents, or {} when it is missing, broken or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def truthy(value: Any) -> bool:
    """Whether an environment-style flag is set."""
    return str(value).strip().lower() in TRUE_WORDS if value is not None else False


def positive(value: Any) -> int | None:
    """A positive whole number, or None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
