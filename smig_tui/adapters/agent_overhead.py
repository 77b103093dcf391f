"""Provides the receiving agents' fixed overhead: the shipped measurements plus the config's overrides."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from smig_tui.core.decide import AgentOverhead, parse_agent_overheads
from smig_tui.core.errors import ConfigError

PACKAGE_FILE = "agent_overhead.json"


def load_overheads(config: dict[str, Any], where: str = "config.toml") -> dict[str, AgentOverhead]:
    """Each agent's overhead: `[agents.X] overhead` from the config when set, else the shipped figure."""
    source = resources.files("smig_tui") / "data" / PACKAGE_FILE
    try:
        document = json.loads(source.read_text(encoding="utf-8"))
        agents = document["agents"]
        shipped = {
            name: AgentOverhead(
                name, int(entry["tokens"]), f"measured with {entry['client']} {entry['client_version']}"
            )
            for name, entry in agents.items()
        }
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ConfigError(f"smig_tui/data/{PACKAGE_FILE} cannot be read ({error}); reinstall smig.") from error
    for name, tokens in parse_agent_overheads(config, where).items():
        shipped[name] = AgentOverhead(name, tokens, f"{where} [agents.{name}]")
    return shipped
