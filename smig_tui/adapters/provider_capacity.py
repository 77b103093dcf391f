"""Provides live capacities from providers that report them, and the cache that keeps them.

Shapes understood (each item of the listing is read for the first length field it has):

- OpenAI-compatible `GET {base_url}/models`: OpenRouter's `context_length` (and
  `top_provider.max_completion_tokens`), vLLM's `max_model_len`, others' `context_window`;
  OpenAI's and DeepSeek's own listings carry no length, which is said, not guessed.
- Ollama: `GET /api/tags`, then `POST /api/show` per model: `num_ctx` from its parameters when
  the Modelfile sets one (what it serves), else `model_info["<arch>.context_length"]`.
- LM Studio: `GET /api/v0/models` with `loaded_context_length` or `max_context_length`.
- LiteLLM proxy: `GET {base_url}/model/info`, each item's `model_info` with `max_input_tokens`
  (the longest prompt the proxy accepts: the input cap, and the window of a model smig does not
  know) and `max_output_tokens`, under the `model_name` clients call.

A figure outside the plausible bounds (`live_bounds` in `data/models.json`) is refused with a
warning naming the provider, the model and the figure; the model's other figures stay as they were.

All requests go through the `openai` client (no retries, a short timeout). Nothing here is ever
required: a provider that is down or answers garbage yields one sentence and changes nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from smig_tui.adapters.fs import atomic_write
from smig_tui.core.capacity import LiveBounds, LiveListing, LiveModel
from smig_tui.core.config_schema import table_of
from smig_tui.core.errors import ConfigError, SmigError

CACHE_FILE = "provider-capacities.json"
TIMEOUT = 10.0
LENGTH_FIELDS = ("context_length", "max_model_len", "context_window", "max_context_length", "input_token_limit")
OUTPUT_FIELDS = ("max_completion_tokens", "max_output_tokens", "output_token_limit")
INPUT_FIELDS = ("max_input_tokens",)


class ProviderFetchError(SmigError):
    """A provider could not be asked, or its answer made no sense (the message is the one-line warning)."""


@dataclass(frozen=True, slots=True)
class Provider:
    """Where to ask one provider for its models, and how."""

    name: str
    base_url: str
    kind: str = "openai"
    """`openai` (an OpenAI-compatible `/models`), `ollama`, `lmstudio` or `litellm` (its `/model/info`)."""
    api_key_env: str | None = None


KNOWN = {
    "openai": Provider("openai", "https://api.openai.com/v1", "openai", "OPENAI_API_KEY"),
    "openrouter": Provider("openrouter", "https://openrouter.ai/api/v1", "openai", "OPENROUTER_API_KEY"),
    "deepseek": Provider("deepseek", "https://api.deepseek.com", "openai", "DEEPSEEK_API_KEY"),
    "ollama": Provider("ollama", "http://127.0.0.1:11434", "ollama"),
    "vllm": Provider("vllm", "http://127.0.0.1:8000/v1", "openai", "VLLM_API_KEY"),
    "lmstudio": Provider("lmstudio", "http://127.0.0.1:1234", "lmstudio"),
    "litellm": Provider("litellm", "http://127.0.0.1:4000", "litellm", "LITELLM_API_KEY"),
}
"""Providers smig knows; a `[providers.NAME]` table in the config file changes one or adds another."""


def providers_from_config(config: Mapping[str, Any], where: str) -> dict[str, Provider]:
    """Return the known providers with the config's `[providers.NAME]` tables applied."""
    providers = dict(KNOWN)
    for name, fields in table_of(config, "providers", where).items():
        base = providers.get(name)
        base_url = fields.get("base_url", base.base_url if base else None)
        if base_url is None:
            raise ConfigError(f"{where}: providers.{name}.base_url is required for a provider smig does not know.")
        kind = fields.get("kind", base.kind if base else "openai")
        key_env = fields.get("api_key_env", base.api_key_env if base else None)
        providers[name] = Provider(name, base_url.rstrip("/"), kind, key_env)
    return providers


def fetch_listing(
    provider: Provider,
    env: Mapping[str, str] | None = None,
    now: datetime | None = None,
    bounds: LiveBounds | None = None,
) -> LiveListing:
    """Ask `provider` for its models' windows; raise ProviderFetchError with one sentence when it cannot.

    Models with an implausible figure are left out of the listing, each with a warning in `refused`."""
    import openai

    env = os.environ if env is None else env
    key = env.get(provider.api_key_env, "") if provider.api_key_env else ""
    if provider.api_key_env and not key and provider.kind == "openai" and not _is_local(provider.base_url):
        raise ProviderFetchError(f"{provider.name}: set {provider.api_key_env} to fetch its model list.")
    client = openai.OpenAI(base_url=provider.base_url, api_key=key or "none", timeout=TIMEOUT, max_retries=0)
    try:
        with client:
            if provider.kind == "ollama":
                models = _ollama(client, provider)
            elif provider.kind == "lmstudio":
                models = _listed(client.get("/api/v0/models", cast_to=object), provider)
            elif provider.kind == "litellm":
                models = _litellm(client.get("/model/info", cast_to=object), provider)
            else:
                models = _listed(client.get("/models", cast_to=object), provider)
    except (TypeError, AttributeError, ValueError) as error:  # a listing of the wrong shape somewhere inside
        raise ProviderFetchError(
            f"{provider.name} at {provider.base_url} answered something that is not a model list; "
            "the shipped figures stay."
        ) from error
    except openai.APIStatusError as error:
        raise ProviderFetchError(
            f"{provider.name} at {provider.base_url} answered HTTP {error.status_code}; the shipped figures stay."
        ) from error
    except openai.APIError as error:  # connection refused, timeout, a body that is not JSON
        raise ProviderFetchError(
            f"{provider.name} at {provider.base_url} could not be read "
            f"({type(error).__name__}); the shipped figures stay."
        ) from error
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    bounds = bounds or LiveBounds()
    refused = tuple(r for r in (bounds.refusal(provider.name, m) for m in models) if r)
    kept = tuple(m for m in models if bounds.problem(m) is None)
    return LiveListing(provider.name, stamp, kept, refused)


def _is_local(url: str) -> bool:
    """Tell whether a base URL is on this machine (local servers need no key)."""
    return "//127.0.0.1" in url or "//localhost" in url or "//[::1]" in url


def _listed(body: Any, provider: Provider) -> list[LiveModel]:
    """Read an OpenAI-style `{"data": [...]}` listing (LM Studio's too) into models with a window."""
    items = body.get("data") if isinstance(body, dict) else None
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise ProviderFetchError(
            f"{provider.name} at {provider.base_url} answered something that is not a model list; "
            "the shipped figures stay."
        )
    models = []
    for item in items:
        ident = item.get("id")
        nested = item.get("top_provider") if isinstance(item.get("top_provider"), dict) else {}
        window = _first(item, ("loaded_context_length", *LENGTH_FIELDS)) or _first(nested, LENGTH_FIELDS)
        most = _first(item, INPUT_FIELDS)
        if isinstance(ident, str) and ident and (window or most):
            output = _first(nested, OUTPUT_FIELDS) or _first(item, OUTPUT_FIELDS)
            models.append(LiveModel(ident, window, output, most))
    if items and not models:
        raise ProviderFetchError(
            f"{provider.name} lists {len(items)} models but reports no context lengths; the shipped figures stay."
        )
    return models


def _litellm(body: Any, provider: Provider) -> list[LiveModel]:
    """Read a LiteLLM proxy's `/model/info`: the input cap and max output of each model it serves."""
    items = body.get("data") if isinstance(body, dict) else None
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise ProviderFetchError(
            f"{provider.name} at {provider.base_url} answered something that is not a model list; "
            "the shipped figures stay."
        )
    models = []
    for item in items:
        ident = item.get("model_name")
        info = item.get("model_info") if isinstance(item.get("model_info"), dict) else {}
        most = _first(info, INPUT_FIELDS)
        if isinstance(ident, str) and ident and most:
            models.append(LiveModel(ident, None, _first(info, ("max_output_tokens",)), most))
    if items and not models:
        raise ProviderFetchError(
            f"{provider.name} lists {len(items)} models but reports no input limits; the shipped figures stay."
        )
    return models


def _ollama(client: Any, provider: Provider) -> list[LiveModel]:
    """Read Ollama's tags, then each model's window from `/api/show`."""
    tags = client.get("/api/tags", cast_to=object)
    entries = tags.get("models") if isinstance(tags, dict) else None
    if not isinstance(entries, list):
        raise ProviderFetchError(
            f"{provider.name} at {provider.base_url} answered something that is not a model list; "
            "the shipped figures stay."
        )
    models = []
    for entry in entries:
        name = entry.get("name") or entry.get("model") if isinstance(entry, dict) else None
        if not isinstance(name, str):
            continue
        shown = client.post("/api/show", body={"model": name}, cast_to=object)
        if not isinstance(shown, dict):
            continue
        info = shown.get("model_info")
        info = info if isinstance(info, dict) else {}
        window = _num_ctx(shown.get("parameters")) or _first(
            {key.rsplit(".", 1)[-1]: value for key, value in info.items()}, ("context_length",)
        )
        if window:
            models.append(LiveModel(name, window))
    return models


def _num_ctx(parameters: Any) -> int | None:
    """Return `num_ctx` from Ollama's Modelfile parameters text, when set."""
    if not isinstance(parameters, str):
        return None
    for line in parameters.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "num_ctx" and parts[1].isdigit() and int(parts[1]) > 0:
            return int(parts[1])
    return None


def _first(item: Mapping[str, Any], keys: tuple[str, ...]) -> int | None:
    """Return the first positive whole number among `keys`."""
    for key in keys:
        value = item.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


class LiveCache:
    """The last listing fetched from each provider, in smig's cache folder."""

    def __init__(self, cache_dir: Path) -> None:
        self.path = cache_dir / CACHE_FILE

    def load(self) -> list[LiveListing]:
        """Return the cached listings (none when the file is missing or unreadable)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [
                LiveListing(
                    name,
                    entry["fetched"],
                    tuple(
                        LiveModel(m["id"], m["context_window"], m.get("max_output"), m.get("max_input"))
                        for m in entry["models"]
                    ),
                )
                for name, entry in data["providers"].items()
            ]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return []

    def save(self, listing: LiveListing) -> None:
        """Store one provider's listing, replacing its previous one."""
        kept = {other.provider: other for other in self.load() if other.provider != listing.provider}
        kept[listing.provider] = listing
        document = {
            "version": 1,
            "providers": {
                name: {
                    "fetched": item.fetched,
                    "models": [
                        {"id": m.id, "context_window": m.context_window, "max_output": m.max_output}
                        | ({"max_input": m.max_input} if m.max_input else {})
                        for m in item.models
                    ],
                }
                for name, item in kept.items()
            },
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, json.dumps(document, indent=1) + "\n")
