"""Provides the parts of the user's own agent configuration that change how much of a window an agent uses.

- Codex: `model_context_window`, `model_auto_compact_token_limit` and `model` in
  `$CODEX_HOME/config.toml` (the active `profile`'s values win over the top-level ones).
- Claude Code: `CLAUDE_CODE_DISABLE_1M_CONTEXT`, in the environment or in the `env` table of
  `$CLAUDE_CONFIG_DIR/settings.json`, holds native-1M models to 200K.

These files belong to the agents: they are only read, and one that cannot be read or parsed is
treated as absent (the agent itself reports its own broken config).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from typing import Any

from smig_tui.adapters.paths import Paths
from smig_tui.core.capacity import AgentSettings

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})


def read_agent_settings(paths: Paths, env: Mapping[str, str]) -> AgentSettings:
    """Return what the user's Codex and Claude Code configuration says about windows."""
    codex_file = paths.codex_home / "config.toml"
    codex = _codex_settings(_read_toml(codex_file))
    claude_file = paths.claude_home / "settings.json"
    if _truthy(env.get("CLAUDE_CODE_DISABLE_1M_CONTEXT")):
        claude_disable, claude_where = True, "the environment"
    else:
        settings_env = _read_json(claude_file).get("env")
        flag = settings_env.get("CLAUDE_CODE_DISABLE_1M_CONTEXT") if isinstance(settings_env, dict) else None
        claude_disable, claude_where = _truthy(flag), str(claude_file)
    return AgentSettings(
        codex_context_window=_positive(codex.get("model_context_window")),
        codex_auto_compact=_positive(codex.get("model_auto_compact_token_limit")),
        codex_model=codex.get("model") if isinstance(codex.get("model"), str) else None,
        codex_where=str(codex_file),
        claude_disable_1m=claude_disable,
        claude_where=claude_where if claude_disable else "",
    )


def _codex_settings(config: dict[str, Any]) -> dict[str, Any]:
    """Merge the active profile's keys over the top-level ones, as Codex does."""
    merged = dict(config)
    profile = config.get("profile")
    profiles = config.get("profiles")
    if isinstance(profile, str) and isinstance(profiles, dict) and isinstance(profiles.get(profile), dict):
        merged.update(profiles[profile])
    return merged


def _read_toml(path: Any) -> dict[str, Any]:
    """Return a TOML file's contents, or {} when it is missing or broken."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _read_json(path: Any) -> dict[str, Any]:
    """Return a JSON object file's contents, or {} when it is missing, broken or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _truthy(value: Any) -> bool:
    """Tell whether an environment-style flag is set."""
    return str(value).strip().lower() in TRUE_WORDS if value is not None else False


def _positive(value: Any) -> int | None:
    """Return a positive whole number, or None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
