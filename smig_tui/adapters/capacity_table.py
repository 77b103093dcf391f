"""Provides the capacity table: the shipped `data/models.json`, live provider figures, the user's overrides."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from importlib import resources
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
    document = _shipped_document()
    where = f"smig_tui/data/{PACKAGE_TABLE}"
    tokenizers = parse_tokenizers(document.get("tokenizers", {}), where)
    return parse_table(document["models"], where, tokenizers)


def live_bounds() -> LiveBounds:
    """The plausible range of a provider's live figures, from the shipped table (`live_bounds`)."""
    data = _shipped_document().get("live_bounds")
    if not isinstance(data, dict):
        return LiveBounds()
    fields = {key: data[key] for key in ("min_window", "max_window", "min_output") if isinstance(data.get(key), int)}
    return LiveBounds(**fields)


def shipped_date() -> str:
    """The date the shipped table was last checked."""
    return str(_shipped_document().get("updated", "unknown"))


def _shipped_document() -> dict[str, Any]:
    """Return the parsed `data/models.json`."""
    source = resources.files("smig_tui") / "data" / PACKAGE_TABLE
    where = f"smig_tui/data/{PACKAGE_TABLE}"
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
