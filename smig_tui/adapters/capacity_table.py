"""Provides the capacity table: the shipped `data/models.json`, live provider figures, the user's overrides."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents import registry  # noqa: F401  # hands the core its agents' window rules
from smig_tui.core.agent_rules import WindowAdjust
from smig_tui.core.capacity import (
    CapacityTable,
    LiveBounds,
    LiveListing,
    apply_agent_settings,
    apply_live,
    apply_overrides,
    parse_table,
    parse_tokenizers,
)
from smig_tui.core.errors import ConfigError

PACKAGE_TABLE = "models.json"


def load_builtin() -> CapacityTable:
    """Read and validate the table shipped with smig."""
    return _shipped()[1]


def live_bounds() -> LiveBounds:
    """The plausible range of a provider's live figures, from the shipped table (`live_bounds`)."""
    data = _shipped()[0].get("live_bounds")
    if not isinstance(data, dict):
        return LiveBounds()
    fields = {key: data[key] for key in ("min_window", "max_window", "min_output") if isinstance(data.get(key), int)}
    return LiveBounds(**fields)


def shipped_date() -> str:
    """The date the shipped table was last checked."""
    return str(_shipped()[0].get("updated", "unknown"))


_KEPT: dict[tuple[str, int, int], tuple[dict[str, Any], CapacityTable]] = {}
"""The shipped table as last parsed, by its file's path, size and mtime_ns: every `build_services` (each CLI
run, MCP call and TUI worker) builds the capacities, and parsing the table costs more than the rest of them."""


def _shipped() -> tuple[dict[str, Any], CapacityTable]:
    """The parsed `data/models.json` and the table it gives, parsed again only when the file changed."""
    source = resources.files("smig_tui") / "data" / PACKAGE_TABLE
    stamp = _stamp(source)
    kept = _KEPT.get(stamp) if stamp is not None else None
    if kept is not None:
        return kept
    where = f"smig_tui/data/{PACKAGE_TABLE}"
    document = _read_document(source, where)
    tokenizers = parse_tokenizers(document.get("tokenizers", {}), where)
    kept = (document, parse_table(document["models"], where, tokenizers))
    if stamp is not None:
        _KEPT.clear()
        _KEPT[stamp] = kept
    return kept


def _stamp(source: Traversable) -> tuple[str, int, int] | None:
    """The shipped file's path, size and mtime_ns; None when it is no plain file (a zipped install)."""
    if not isinstance(source, Path):
        return None
    try:
        stat = source.stat()
    except OSError:
        return None
    return (str(source), stat.st_size, stat.st_mtime_ns)


def _read_document(source: Traversable, where: str) -> dict[str, Any]:
    """Return the parsed `data/models.json`."""
    try:
        document = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"{where} cannot be read ({error}); reinstall smig.") from error
    if not isinstance(document, dict) or "models" not in document:
        raise ConfigError(f"{where} has no `models` table; reinstall smig.")
    return document


def load_capacities(
    config: dict[str, Any],
    config_path: Path | str = "config.toml",
    agent_settings: Mapping[str, WindowAdjust] | None = None,
    live: Iterable[LiveListing] = (),
) -> CapacityTable:
    """Return the table smig decides with, built in this order (later wins):

    the shipped table; live figures fetched from providers (`smig models --refresh`); the config
    file's `[models."name"]` entries (one naming a known model overrides just the fields it gives,
    any other name adds a model, which needs at least `context_window`); then the user's agent
    configuration, which moves each agent's usable window.
    """
    table = apply_live(load_builtin(), live, live_bounds())
    overrides = config.get("models")
    if overrides is not None:
        table = apply_overrides(table, overrides, str(config_path))
    if agent_settings is not None:
        table = apply_agent_settings(table, agent_settings)
    return CapacityTable(table.models, table.tokenizers, config_file=str(config_path))
