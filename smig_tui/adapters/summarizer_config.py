"""Provides the summarizer's provider settings: presets, the `[summarizer]` table, env overrides."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from smig_tui.core.config_schema import TABLES, check_settings
from smig_tui.core.errors import ConfigError, Hint


@dataclass(frozen=True, slots=True)
class ProviderPreset:
    """Defaults for a well-known provider."""

    base_url: str
    api_key_env: str | None
    model: str | None
    context_window: int


PROVIDERS: dict[str, ProviderPreset] = {
    "openai": ProviderPreset("https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4.1-mini", 1_047_576),
    "deepseek": ProviderPreset("https://api.deepseek.com", "DEEPSEEK_API_KEY", "deepseek-chat", 128_000),
    # Ollama's OpenAI-compatible endpoint; its default context is small, so chunk conservatively.
    "local": ProviderPreset("http://127.0.0.1:11434/v1", None, None, 8_192),
}
CUSTOM_CONTEXT_WINDOW = 32_768
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0"}


@dataclass(frozen=True, slots=True)
class SummarizerConfig:
    """Where summaries are written and how long to wait; the key itself is never shown."""

    provider: str
    model: str
    base_url: str
    api_key_env: str | None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 120.0
    max_retries: int = 2
    context_window: int = CUSTOM_CONTEXT_WINDOW
    """The summarizer model's own window: transcripts larger than it are chunked (map-reduce)."""

    @property
    def is_local(self) -> bool:
        """True for a server on this machine, which needs no key."""
        return self.provider == "local" or (urlsplit(self.base_url).hostname or "") in LOCAL_HOSTS

    @property
    def label(self) -> str:
        """`provider/model`, for messages."""
        return f"{self.provider}/{self.model}"


def resolve_config(
    table: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    provider: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    where: str = "config file",
) -> SummarizerConfig:
    """Merge provider defaults < the `[summarizer]` table (checked by the config schema) < env
    (`SMIG_SUMMARY_*`) < arguments."""
    check_settings(table, TABLES["summarizer"].settings or {}, "summarizer", where)
    name = provider or env.get("SMIG_SUMMARY_PROVIDER") or table.get("provider")
    name = name or _default_provider(env)
    preset = PROVIDERS.get(name)
    url = base_url or env.get("SMIG_SUMMARY_BASE_URL") or table.get("base_url")
    if not url and name == "openai":
        url = env.get("OPENAI_BASE_URL")
    url = url or (preset.base_url if preset else None)
    if not url:
        raise ConfigError(f"{where}: provider {name!r} needs [summarizer] base_url.", hint=Hint.SUMMARIZER_URL)
    chosen = model or env.get("SMIG_SUMMARY_MODEL") or table.get("model")
    chosen = chosen or (preset.model if preset else None)
    if not chosen:
        raise ConfigError(f"{where}: provider {name!r} needs [summarizer] model.", hint=Hint.SUMMARIZER_MODEL)
    key_env = table.get("api_key_env") or (preset.api_key_env if preset else None)
    timeout, retries, window = table.get("timeout"), table.get("max_retries"), table.get("context_window")
    return SummarizerConfig(
        provider=name,
        model=chosen,
        base_url=url.rstrip("/"),
        api_key_env=key_env,
        api_key=(env.get(key_env) or None) if key_env else None,
        timeout=float(timeout) if timeout is not None else 120.0,
        max_retries=retries if retries is not None else 2,
        context_window=window or (preset.context_window if preset else CUSTOM_CONTEXT_WINDOW),
    )


def _default_provider(env: Mapping[str, str]) -> str:
    """Pick the provider whose key is present; OpenAI when none is."""
    if not env.get("OPENAI_API_KEY") and env.get("DEEPSEEK_API_KEY"):
        return "deepseek"
    return "openai"


def key_problem(config: SummarizerConfig) -> str | None:
    """Say which env var to set when a remote provider has no key; None when ready."""
    if config.api_key or config.is_local:
        return None
    env_name = config.api_key_env or "the variable named by [summarizer] api_key_env"
    return f'No API key for the {config.provider} summarizer: set {env_name} (or use provider = "local").'
