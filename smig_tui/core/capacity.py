"""Provides the model capacity table: validation, name normalisation, lookup and search.

A table is a mapping of model name to fields (the shape of `data/models.json` and of the config
file's `[models."name"]` tables). Names are matched loosely, the way agents and users write
them: case-blind, with or without a provider prefix (`openai/`, `anthropic/`, `openrouter/x/`),
with dots or dashes (`gpt-5.1` = `gpt-5-1`), with a dated snapshot suffix (`-20250929`,
`-2025-04-14`, `@20250514`) and with Claude Code's `[1m]` marker (a distinct, larger variant).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from smig_tui.core.errors import ConfigError, UnknownModelError
from smig_tui.core.models import ModelCapacity

ENCODINGS = frozenset({"o200k_base", "cl100k_base"})
"""Encodings smig counts with; other providers are counted with one of these and calibrated."""

FIELDS = {
    "provider": str,
    "context_window": int,
    "max_output": int,
    "max_input": int,
    "encoding": str,
    "calibration": float,
    "harness_window": int,
    "source": str,
    "aliases": list,
}
"""Keys a model entry may carry, with their types."""

REQUIRED = ("context_window",)
"""Keys a new model must have; overrides of a known model may give any subset."""

_DATED = re.compile(r"(?:[-@_](?:20\d{2}-?\d{2}-?\d{2}|\d{4}))$")
_LATEST = re.compile(r"-latest$")
_BEDROCK_VERSION = re.compile(r"-v\d+(?::\d+)?$")


def normalise(name: str) -> str:
    """Return the lookup key for a model name (see the module docstring)."""
    key = name.strip().lower()
    if "/" in key:
        key = key.rsplit("/", 1)[1]
    key = re.sub(r"^(?:us|eu|apac|global)\.(?:anthropic\.)?|^anthropic\.", "", key)
    key = key.replace(".", "-").replace("_", "-").replace(" ", "-")
    return key


def _variants(key: str) -> list[str]:
    """Return progressively looser forms of a normalised key (snapshot and version suffixes off)."""
    marker = ""
    if key.endswith("[1m]"):
        key, marker = key[:-4], "[1m]"
    forms = [key]
    for pattern in (_BEDROCK_VERSION, _DATED, _LATEST):
        stripped = pattern.sub("", forms[-1])
        if stripped != forms[-1] and stripped:
            forms.append(stripped)
    return [form + marker for form in forms]


@dataclass(frozen=True)
class CapacityTable:
    """The models smig knows, indexed by every normalised name and alias."""

    models: tuple[ModelCapacity, ...]
    _index: dict[str, ModelCapacity] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for model in self.models:
            for name in (model.name, *model.aliases):
                self._index[normalise(name)] = model  # later entries (overrides) win

    def get(self, name: str) -> ModelCapacity | None:
        """Return the model called `name` (or an alias), or None.

        `name[1m]` falls back to `name` when that model already has a 1M window.
        """
        key = normalise(name)
        for form in _variants(key):
            if form in self._index:
                return self._index[form]
        if key.endswith("[1m]"):
            base = self.get(key[:-4])
            if base is not None and base.context_window >= 1_000_000:
                return base
        return None

    def lookup(self, name: str) -> ModelCapacity:
        """Return the model called `name`, or raise UnknownModelError with close matches."""
        found = self.get(name)
        if found is None:
            raise UnknownModelError(name, self.suggest(name))
        return found

    def suggest(self, name: str, limit: int = 5) -> list[str]:
        """Return canonical names close to `name`, best first."""
        key = _variants(normalise(name))[-1]
        close = difflib.get_close_matches(key, list(self._index), n=limit * 3, cutoff=0.55)
        close += [k for k in self._index if key and key in k]
        return _unique_names(self._index[k] for k in close)[:limit]

    def search(self, query: str = "") -> list[ModelCapacity]:
        """Return models whose name, alias or provider contains `query` (all when empty)."""
        words = normalise(query).split("-") if query.strip() else []
        hits = [
            model
            for model in self.models
            if all(any(w in normalise(n) for n in _haystack(model)) for w in words)
        ]
        if hits or not words:
            return hits
        suggested = set(self.suggest(query, limit=10))
        return [model for model in self.models if model.name in suggested]

    def names(self) -> list[str]:
        """Return the canonical model names, in table order."""
        return [model.name for model in self.models]

    def merged(self, other: CapacityTable) -> CapacityTable:
        """Return this table with `other`'s models added (or replacing same-named ones)."""
        replaced = {normalise(model.name) for model in other.models}
        kept = [model for model in self.models if normalise(model.name) not in replaced]
        return CapacityTable(tuple(kept) + other.models)


def _haystack(model: ModelCapacity) -> tuple[str, ...]:
    """Return what `search` matches a query against."""
    return (model.name, model.provider, *model.aliases)


def _unique_names(models: Iterable[ModelCapacity]) -> list[str]:
    """Return model names once each, in order."""
    seen: dict[str, None] = {}
    for model in models:
        seen.setdefault(model.name, None)
    return list(seen)


def parse_table(data: Mapping[str, Any], where: str) -> CapacityTable:
    """Validate a mapping of name -> fields into a table; errors name `where` and the key."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: the model table must be a mapping of model names to tables.")
    models = tuple(parse_model(name, fields, where) for name, fields in data.items())
    return CapacityTable(models)


def parse_model(name: str, fields: Any, where: str, base: ModelCapacity | None = None) -> ModelCapacity:
    """Validate one model entry; with `base`, the entry overrides a known model's fields."""
    label = f"{where}: models.{_quote(name)}"
    if not isinstance(fields, Mapping):
        raise ConfigError(f"{label} must be a table of fields.")
    values: dict[str, Any] = {}
    for key, value in fields.items():
        values[key] = _check_field(label, key, value)
    if base is None:
        missing = [key for key in REQUIRED if key not in values]
        if missing:
            raise ConfigError(f"{label}.{missing[0]} is required for a model smig does not know.")
        base = ModelCapacity(
            name=name, provider="custom", context_window=values["context_window"],
            max_output=min(values["context_window"] // 4, 32_000), encoding="o200k_base",
        )
    if "aliases" in values:
        values["aliases"] = tuple(values["aliases"])
    _rescale_inherited(base, values)
    capacity = replace(base, name=name, **values)
    _check_consistent(label, capacity)
    return capacity


def _rescale_inherited(base: ModelCapacity, values: dict[str, Any]) -> None:
    """Keep inherited harness share and input cap sensible when an override changes the window."""
    window = values.get("context_window")
    if window is None or window == base.context_window:
        return
    if "harness_window" not in values and base.harness_window is not None:
        values["harness_window"] = min(window, window * base.harness_window // base.context_window)
    if "max_input" not in values and base.max_input is not None:
        values["max_input"] = min(window, base.max_input)


def _check_field(label: str, key: str, value: Any) -> Any:
    """Check one field's name, type and range; return the value."""
    if key not in FIELDS:
        known = ", ".join(sorted(FIELDS))
        raise ConfigError(f"{label}.{key} is not a model field (known: {known}).")
    kind = FIELDS[key]
    ok = isinstance(value, kind) and not isinstance(value, bool)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise ConfigError(f"{label}.{key} must be a {kind.__name__}, not {value!r}.")
    if kind is int and value <= 0:
        raise ConfigError(f"{label}.{key} must be a positive number of tokens, not {value}.")
    if key == "calibration" and not 0.2 <= value <= 5.0:
        raise ConfigError(f"{label}.calibration must be between 0.2 and 5, not {value}.")
    if key == "encoding" and value not in ENCODINGS:
        raise ConfigError(f"{label}.encoding must be one of {', '.join(sorted(ENCODINGS))}, not {value!r}.")
    if key == "aliases" and not all(isinstance(item, str) and item for item in value):
        raise ConfigError(f"{label}.aliases must be a list of names.")
    return value


def _check_consistent(label: str, capacity: ModelCapacity) -> None:
    """Reject figures that contradict each other."""
    if capacity.harness_window is not None and capacity.harness_window > capacity.context_window:
        raise ConfigError(f"{label}.harness_window cannot exceed context_window ({capacity.context_window}).")
    if capacity.max_input is not None and capacity.max_input > capacity.context_window:
        raise ConfigError(f"{label}.max_input cannot exceed context_window ({capacity.context_window}).")


def _quote(name: str) -> str:
    """Quote a model name the way TOML needs it in a dotted key."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else f'"{name}"'


def apply_overrides(table: CapacityTable, overrides: Mapping[str, Any], where: str) -> CapacityTable:
    """Return `table` with the config's `[models."name"]` entries applied (override or add)."""
    if not isinstance(overrides, Mapping):
        raise ConfigError(f"{where}: [models] must be a table of model tables.")
    added = []
    for name, fields in overrides.items():
        base = table.get(name)
        added.append(parse_model(base.name if base else name, fields, where, base=base))
    return table.merged(CapacityTable(tuple(added)))
