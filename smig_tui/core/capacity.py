"""Provides the model capacity table: validation, name normalisation, lookup and search.

A table is a mapping of model name to fields (the shape of `data/models.json` and of the config
file's `[models."name"]` tables). Names are matched loosely, the way agents and users write
them: case-blind, with or without a provider prefix (`openai/`, `anthropic/`, `openrouter/x/`),
with dots or dashes (`gpt-5.1` = `gpt-5-1`), with a dated snapshot suffix (`-20250929`,
`-2025-04-14`, `@20250514`) and with a `[1m]` marker (a distinct, larger variant some agents open).

Each model names the window every agent runs it at (`agents`); what an agent does with a window
(its compaction share, its `[1m]` rule, what its user's own configuration changes) is that agent's
rules (`core/agent_rules.py`), handed over by its plugin.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from smig_tui.core.agent_rules import WindowAdjust, known_list, rules_of, usable_window
from smig_tui.core.errors import ConfigError, UnknownModelError
from smig_tui.core.models import AgentWindow, ModelCapacity

EXACT_ENCODINGS = frozenset({"o200k_base", "cl100k_base"})
"""OpenAI's own encodings: a count with one of them at factor 1 is the model's exact count."""

ENCODINGS = EXACT_ENCODINGS | {"o200k_split_digits"}
"""Encodings smig counts with; other providers are counted with one of these and calibrated.

`o200k_split_digits` is o200k_base with one token per digit, the base for tokenizers that split
digits (Gemma, Qwen): never exact, whatever the factor."""

FIELDS = {
    "provider": str,
    "status": str,
    "released": str,
    "retired": str,
    "replacement": str,
    "context_window": int,
    "max_output": int,
    "max_input": int,
    "tokenizer": str,
    "encoding": str,
    "calibration": float,
    "harness_window": int,
    "agents": Mapping,
    "source": str,
    "aliases": list,
}
"""Keys a model entry may carry, with their types."""

REQUIRED = ("context_window",)
"""Keys a new model must have; overrides of a known model may give any subset."""

STATUSES = ("current", "legacy", "retired")
"""A model's status: served and recommended, served but superseded, or no longer served."""

FIGURES = ("context_window", "max_output", "max_input", "calibration")
"""The numbers a model entry gives, each with a source (see `ModelCapacity.source_of`)."""


@dataclass(frozen=True, slots=True)
class TokenizerFamily:
    """Models that count alike: the encoding smig counts them with and the factor to their tokenizer."""

    name: str
    encoding: str
    calibration: float
    source: str
    error: float | None = None
    """The worst miss of `calibration` on held-out sessions, measured against the provider's tokenizer (0.16: ±16%)."""
    classes: tuple[tuple[str, float, float], ...] = ()
    """(text class, factor, held-out error) per class of `core.text_classes`, when measured per class."""


def counted_exactly(model: ModelCapacity) -> bool:
    """Whether smig's count for `model` is the model's own (its encoding, no factor), not an estimate."""
    return model.calibration == 1.0 and model.encoding in EXACT_ENCODINGS


def calibration_margin(model: ModelCapacity, error: float | None = None) -> str:
    """The measured error of a calibrated count as users read it (`±16%`; `error`, a session's mix's,
    instead of the model's when given), `± not measured` for a factor nobody measured, "" when exact."""
    if counted_exactly(model):
        return ""
    error = model.calibration_error if error is None else error
    if error is None:
        return "± not measured"
    return f"±{max(error, 0.005):.0%}"


def retired_warning(model: ModelCapacity) -> str | None:
    """Return the one-sentence warning for a retired model chosen as a target, or None."""
    if model.status != "retired":
        return None
    when = f" on {model.retired}" if model.retired else ""
    instead = f"; use {model.replacement} instead" if model.replacement else ""
    return (
        f'{model.name} was retired{when}{instead} (set status = "current" under '
        f'[models."{model.name}"] in the config file if your provider still serves it).'
    )


_DATED = re.compile(r"(?:[-@_](?:20\d{2}-?\d{2}-?\d{2}|\d{4}))$")
_LATEST = re.compile(r"-latest$")
_BEDROCK_VERSION = re.compile(r"-v\d+(?::\d+)?$")


_REGION_PREFIX = re.compile(r"^(?:us|eu|apac|global)\.(?:anthropic\.)?|^anthropic\.")


@functools.lru_cache(maxsize=4096)
def normalise(name: str) -> str:
    """Return the lookup key for a model name (see the module docstring).

    Cached: every table a config or an agent's settings derive indexes each model's names again
    (about 500 a table, several tables a command)."""
    key = name.strip().lower()
    if "/" in key:
        key = key.rsplit("/", 1)[1]
    key = _REGION_PREFIX.sub("", key)
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
    tokenizers: dict[str, TokenizerFamily] = field(default_factory=dict, repr=False, compare=False)
    """The tokenizer families the shipped table defines (config entries may name them)."""
    _index: dict[str, ModelCapacity] = field(default_factory=dict, repr=False, compare=False)
    _routes: dict[str, ModelCapacity] = field(default_factory=dict, repr=False, compare=False)
    """Models as one provider serves them (`openrouter/deepseek-flash`), found by that prefix only."""
    config_file: str = field(default="", compare=False)
    """The config file whose `[models]` table adds to this one, named when a model is not found."""

    def __post_init__(self) -> None:
        for model in self.models:
            if model.route:
                self._routes[route_key(model.route, model.name)] = model
                continue
            for name in (model.name, *model.aliases):
                self._index[normalise(name)] = model  # later entries (overrides) win

    def get(self, name: str) -> ModelCapacity | None:
        """Return the model called `name` (or an alias), or None.

        `provider/name` finds the figures that provider reported for the model, when it did;
        `name[1m]` falls back to `name` when that model already has a 1M window.
        """
        if "/" in name and self._routes:
            provider, rest = name.strip().split("/", 1)
            routed = self._routes.get(route_key(provider, rest))
            if routed is not None:
                return routed
        key = normalise(name)
        for form in _variants(key):
            if form in self._index:
                return self._index[form]
        if key.endswith("[1m]"):
            base = self.get(key[:-4])
            if base is not None and base.context_window >= 1_000_000:
                return _with_1m_in_agents(base)
        return None

    def lookup(self, name: str) -> ModelCapacity:
        """Return the model called `name`, or raise UnknownModelError with close matches."""
        found = self.get(name)
        if found is None:
            raise UnknownModelError(name, self.suggest(name), self.config_file)
        return found

    def suggest(self, name: str, limit: int = 5) -> list[str]:
        """Return canonical names close to `name`, best first."""
        key = _variants(normalise(name))[-1]
        close = difflib.get_close_matches(key, list(self._index), n=limit * 3, cutoff=0.55)
        close += [k for k in self._index if key and key in k]
        return _unique_names(self._index[k] for k in close)[:limit]

    def search(self, query: str = "", similar: bool = True) -> list[ModelCapacity]:
        """Return models whose name, alias or provider contains `query` (all when empty); when none
        does, the similar names unless `similar` is False."""
        words = normalise(query).split("-") if query.strip() else []
        hits = [model for model in self.models if all(any(w in normalise(n) for n in _haystack(model)) for w in words)]
        if hits or not words or not similar:
            return hits
        suggested = set(self.suggest(query, limit=10))
        return [model for model in self.models if model.name in suggested]

    def names(self) -> list[str]:
        """Return the canonical model names, in table order."""
        return [model.name for model in self.models]

    def merged(self, other: CapacityTable) -> CapacityTable:
        """Return this table with `other`'s models added (or replacing same-named ones)."""
        replaced = {_entry_key(model) for model in other.models}
        kept = [model for model in self.models if _entry_key(model) not in replaced]
        return CapacityTable(tuple(kept) + other.models, tokenizers={**self.tokenizers, **other.tokenizers})


def route_key(provider: str, name: str) -> str:
    """The key of a model as one provider serves it: `openrouter` + `deepseek/deepseek-flash` -> `openrouter/deepseek-flash`."""
    return f"{provider.strip().lower()}/{normalise(name)}"


def _entry_key(model: ModelCapacity) -> str:
    """What makes two entries the same model: the name, and the provider route it is held for."""
    return route_key(model.route, model.name) if model.route else normalise(model.name)


def _with_1m_in_agents(model: ModelCapacity) -> ModelCapacity:
    """Return `model` as its `[1m]` variant runs: an agent whose rules say so opens such a window to its
    maximum (Opus 4.6: 1M)."""
    raised = tuple(
        replace(a, window=a.max_window, usable=usable_window(a.agent, a.max_window))
        if a.max_window and (rules := rules_of(a.agent)) is not None and rules.raises_1m
        else a
        for a in model.agents
    )
    if raised == model.agents:
        return model
    explicit = dict(model.sources).get("harness_window") is not None
    return replace(model, agents=raised, harness_window=model.harness_window if explicit else raised[0].usable)


def _haystack(model: ModelCapacity) -> tuple[str, ...]:
    """Return what `search` matches a query against."""
    return (model.name, model.provider, *model.aliases)


def _unique_names(models: Iterable[ModelCapacity]) -> list[str]:
    """Return model names once each, in order."""
    seen: dict[str, None] = {}
    for model in models:
        seen.setdefault(model.name, None)
    return list(seen)


def parse_tokenizers(data: Any, where: str) -> dict[str, TokenizerFamily]:
    """Validate the `tokenizers` table: family name -> encoding, calibration, source and the measured error."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: `tokenizers` must be a table of tokenizer families.")
    families = {}
    for name, fields in data.items():
        label = f"{where}: tokenizers.{_quote(name)}"
        if not isinstance(fields, Mapping) or not isinstance(fields.get("source"), str):
            raise ConfigError(f"{label} must give encoding, calibration and source.")
        encoding = _check_field(label, "encoding", fields.get("encoding"))
        calibration = _check_field(label, "calibration", fields.get("calibration"))
        error = fields.get("error")
        if error is not None and (isinstance(error, bool) or not isinstance(error, int | float) or not 0 <= error < 1):
            raise ConfigError(f"{label}.error must be a fraction between 0 and 1 (0.16 for ±16%), not {error!r}.")
        classes = _parse_classes(label, fields.get("classes", {}))
        families[name] = TokenizerFamily(name, encoding, calibration, fields["source"], error, classes)
    return families


def _parse_classes(label: str, data: Any) -> tuple[tuple[str, float, float], ...]:
    """Validate `classes = {prose = {factor, error}, ...}`: one factor per text class, each with its error."""
    from smig_tui.core.text_classes import CLASSES

    if not isinstance(data, Mapping):
        raise ConfigError(f"{label}.classes must be a table of text classes.")
    parsed = []
    for name, fields in data.items():
        where = f"{label}.classes.{name}"
        if name not in CLASSES:
            raise ConfigError(f"{where} is not a text class (known: {', '.join(CLASSES)}).")
        if not isinstance(fields, Mapping):
            raise ConfigError(f"{where} must give factor and error.")
        factor = _check_field(where, "calibration", fields.get("factor"))
        error = fields.get("error")
        if isinstance(error, bool) or not isinstance(error, int | float) or not 0 <= error < 1:
            raise ConfigError(f"{where}.error must be a fraction between 0 and 1, not {error!r}.")
        parsed.append((name, factor, float(error)))
    if parsed and {name for name, _, _ in parsed} != set(CLASSES):
        raise ConfigError(f"{label}.classes must give every text class ({', '.join(CLASSES)}).")
    return tuple(parsed)


def parse_table(
    data: Mapping[str, Any],
    where: str,
    tokenizers: Mapping[str, TokenizerFamily] | None = None,
) -> CapacityTable:
    """Validate a mapping of name -> fields into a table; errors name `where` and the key."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: the model table must be a mapping of model names to tables.")
    models = tuple(parse_model(name, fields, where, tokenizers=tokenizers) for name, fields in data.items())
    return CapacityTable(models, tokenizers=dict(tokenizers or {}))


def parse_model(
    name: str,
    fields: Any,
    where: str,
    base: ModelCapacity | None = None,
    tokenizers: Mapping[str, TokenizerFamily] | None = None,
) -> ModelCapacity:
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
            name=name,
            provider="custom",
            context_window=values["context_window"],
            max_output=min(values["context_window"] // 4, 32_000),
            encoding="o200k_base",
        )
    elif not {"source", "agents"} & set(values):  # an override: its figures come from `where`
        given = [key for key in (*FIGURES, "harness_window") if key in values]
        kept = tuple(pair for pair in base.sources if pair[0] not in given)
        values["sources"] = tuple((key, f"{where} [models.{_quote(name)}]") for key in given) + kept
    if "aliases" in values:
        values["aliases"] = tuple(values["aliases"])
    if "tokenizer" in values:
        _apply_tokenizer(label, values, tokenizers or {})
    elif "calibration" in values:
        values["calibration_source"] = f"{where} [models.{_quote(name)}]"
        values["calibration_error"] = None  # a factor of the user's own: smig measured no error for it
        values["class_calibration"] = ()  # and it holds for every class of text
    if "agents" in values:
        values["agents"] = _parse_agents(label, values["agents"])
    derived = _rescale_inherited(base, values, where)
    if derived:
        earlier = values.get("sources", base.sources)
        values["sources"] = tuple(derived.items()) + tuple(pair for pair in earlier if pair[0] not in derived)
    capacity = replace(base, name=name, **values)
    if "harness_window" not in values and capacity.agents and dict(capacity.sources).get("harness_window") is None:
        capacity = replace(capacity, harness_window=capacity.agents[0].usable)
    _check_consistent(label, capacity)
    return capacity


def _apply_tokenizer(label: str, values: dict[str, Any], tokenizers: Mapping[str, TokenizerFamily]) -> None:
    """Fill encoding and calibration from the entry's tokenizer family, unless it gives them."""
    family = tokenizers.get(values["tokenizer"])
    if family is None:
        known = ", ".join(sorted(tokenizers)) or "none"
        raise ConfigError(
            f"{label}.tokenizer must name a tokenizer family (known: {known}), not {values['tokenizer']!r}."
        )
    values.setdefault("encoding", family.encoding)
    if "calibration" not in values:
        values["calibration"] = family.calibration
        values["calibration_source"] = f"tokenizer family {family.name}: {family.source}"
        values["calibration_error"] = family.error
        values["class_calibration"] = family.classes
    else:
        values["calibration_error"] = None
        values["class_calibration"] = ()


def _parse_agents(label: str, data: Mapping[str, Any]) -> tuple[AgentWindow, ...]:
    """Validate `agents = {<agent> = {window, max_window?, source}, ...}` into windows, home agent first."""
    windows = []
    for agent, fields in data.items():
        where = f"{label}.agents.{agent}"
        if rules_of(agent) is None:
            raise ConfigError(f"{where} is not an agent smig knows (known: {known_list()}).")
        if not isinstance(fields, Mapping) or not isinstance(fields.get("source"), str):
            raise ConfigError(f"{where} must give window and source.")
        window = _check_field(where, "context_window", fields.get("window"))
        most = fields.get("max_window")
        if most is not None:
            most = _check_field(where, "context_window", most)
        windows.append(AgentWindow(agent, window, usable_window(agent, window), fields["source"], most))
    return tuple(windows)


def _rescale_inherited(base: ModelCapacity, values: dict[str, Any], where: str) -> dict[str, str]:
    """Hold inherited figures to a window an override or a live listing changed; return their new sources.

    An agent runs a model at its own window whatever the model's (Codex runs gpt-5.6-sol at
    272,000 of 1,050,000), so an agent window is the smaller of the two, never a share scaled down
    with the model's window; the same goes for an input cap and an explicit harness window.
    """
    window = values.get("context_window")
    if window is None or window == base.context_window:
        return {}
    held = f"held to the {window:,} window ({where})"
    derived: dict[str, str] = {}
    explicit_harness = dict(base.sources).get("harness_window") is not None or not base.agents
    inherited = base.harness_window if "harness_window" not in values and explicit_harness else None
    if inherited is not None and inherited > window:
        values["harness_window"] = window
        derived["harness_window"] = f"{held} (was {inherited:,})"
    if "max_input" not in values and base.max_input is not None and base.max_input > window:
        values["max_input"] = window
        derived["max_input"] = f"{held} (was {base.max_input:,})"
    if "max_output" not in values and base.max_output >= window:
        values["max_output"] = max(1, window // 4)
        derived["max_output"] = (
            f"smig's assumption, a quarter of the {window:,} window ({where}); "
            f"the {base.max_output:,} given for the {base.context_window:,} window does not fit in it"
        )
    if "agents" not in values and base.agents:
        values["agents"] = tuple(
            a
            if a.window <= window
            else replace(a, window=window, usable=usable_window(a.agent, window), source=f"{a.source}; {held}")
            for a in base.agents
        )
    return derived


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
        name = "table" if kind is Mapping else kind.__name__
        raise ConfigError(f"{label}.{key} must be a {name}, not {value!r}.")
    if kind is int and value <= 0:
        raise ConfigError(f"{label}.{key} must be a positive number of tokens, not {value}.")
    if key == "calibration" and not 0.2 <= value <= 5.0:
        raise ConfigError(f"{label}.calibration must be between 0.2 and 5, not {value}.")
    if key == "encoding" and value not in ENCODINGS:
        raise ConfigError(f"{label}.encoding must be one of {', '.join(sorted(ENCODINGS))}, not {value!r}.")
    if key == "status" and value not in STATUSES:
        raise ConfigError(f"{label}.status must be one of {', '.join(STATUSES)}, not {value!r}.")
    if key == "aliases" and not all(isinstance(item, str) and item for item in value):
        raise ConfigError(f"{label}.aliases must be a list of names.")
    return value


def _check_consistent(label: str, capacity: ModelCapacity) -> None:
    """Reject figures that contradict each other."""
    if capacity.harness_window is not None and capacity.harness_window > capacity.context_window:
        raise ConfigError(f"{label}.harness_window cannot exceed context_window ({capacity.context_window}).")
    if capacity.max_input is not None and capacity.max_input > capacity.context_window:
        raise ConfigError(f"{label}.max_input cannot exceed context_window ({capacity.context_window}).")
    for agent in capacity.agents:
        if agent.window > capacity.context_window:
            raise ConfigError(
                f"{label}.agents.{agent.agent}.window cannot exceed context_window ({capacity.context_window})."
            )


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
        added.append(parse_model(base.name if base else name, fields, where, base=base, tokenizers=table.tokenizers))
    return table.merged(CapacityTable(tuple(added)))


def apply_agent_settings(table: CapacityTable, adjustments: Mapping[str, WindowAdjust]) -> CapacityTable:
    """Return `table` with each agent window adjusted by the user's configuration of that agent
    (`adjustments`: agent id -> its adjustment, read by the agent's plugin)."""
    changed = []
    for model in table.models:
        agents = tuple(
            adjust(model, window, table.get) if (adjust := adjustments.get(window.agent)) is not None else window
            for window in model.agents
        )
        if agents == model.agents:
            continue
        explicit = dict(model.sources).get("harness_window") is not None
        harness = model.harness_window if explicit else agents[0].usable
        changed.append(replace(model, agents=agents, harness_window=harness))
    return table.merged(CapacityTable(tuple(changed))) if changed else table


def for_agent(
    model: ModelCapacity,
    agent: str | None,
    adjust: WindowAdjust | None = None,
    lookup: Callable[[str], ModelCapacity | None] | None = None,
) -> ModelCapacity:
    """Return `model` as `agent` runs it: that agent's window first among `agents`, its usable window the
    harness window (what a plan for a session going into `agent` fits into).

    A model the agent has no window for in the table (Pi, OpenCode, Kilo run any model at the window
    their provider gives) runs at the model's own window under the agent's rule, then the user's
    configuration of that agent (`adjust`, from its plugin) moves it. Without an agent, or with a
    `harness_window` the user set in config, the model is returned as it is.
    """
    rules = rules_of(agent) if agent else None
    if rules is None or _set_by_hand(model):
        return model
    if model.agents and model.agents[0].agent == agent:
        return model
    window = next((a for a in model.agents if a.agent == agent), None)
    if window is None:
        size = model.context_window
        window = AgentWindow(
            rules.id, size, usable_window(rules.id, size), f"{rules.name}'s rule on the model's {size:,}-token window"
        )
        if adjust is not None:
            window = adjust(model, window, lookup or (lambda _name: None))
    others = tuple(a for a in model.agents if a.agent != agent)
    return replace(model, agents=(window, *others), harness_window=window.usable)


def harness_agent(model: ModelCapacity) -> str | None:
    """The agent whose rule gives `model`'s harness window (its first agent), or None when the user's config
    set it or no agent runs the model."""
    if model.harness_window is None or _set_by_hand(model):
        return None
    return model.agents[0].agent


def _set_by_hand(model: ModelCapacity) -> bool:
    """Whether `model`'s harness window was given as a figure (config, or a table entry), not derived from its
    home agent's window: then it holds whatever agent receives the session."""
    if model.harness_window is None:
        return False
    given = dict(model.sources).get("harness_window") is not None
    return given or not model.agents or model.agents[0].usable != model.harness_window


@dataclass(frozen=True, slots=True)
class LiveModel:
    """One model as a provider's own listing describes it (None: the listing does not say)."""

    id: str
    context_window: int | None
    max_output: int | None = None
    max_input: int | None = None
    """The longest prompt the provider accepts (LiteLLM's `max_input_tokens`)."""


@dataclass(frozen=True, slots=True)
class LiveBounds:
    """The figures a provider may plausibly report; anything outside is a listing's mistake, refused.

    The shipped bounds live in `data/models.json` (`live_bounds`): the smallest window a local
    server runs a model at, and ten times the largest window any model has been sold with."""

    min_window: int = 512
    max_window: int = 100_000_000
    min_output: int = 16

    def problem(self, live: LiveModel) -> str | None:
        """Say which figure of `live` is implausible, or None when all are believable."""
        for label, value in (("context length", live.context_window), ("input cap", live.max_input)):
            if value is not None and not self.min_window <= value <= self.max_window:
                return f"a {label} of {value:,}"
        if live.max_output is not None and not self.min_output <= live.max_output <= self.max_window:
            return f"a max output of {live.max_output:,}"
        return None

    def refusal(self, provider: str, live: LiveModel) -> str | None:
        """The warning for an implausible figure, naming the provider and the figure (None: none)."""
        problem = self.problem(live)
        if problem is None:
            return None
        return (
            f"{provider} reports {problem} for {live.id}, outside what smig believes "
            f"({self.min_window:,} to {self.max_window:,} tokens); refused, the other figures stay."
        )


@dataclass(frozen=True, slots=True)
class LiveListing:
    """What one provider reported, and when."""

    provider: str
    fetched: str
    """ISO 8601 UTC time of the fetch."""
    models: tuple[LiveModel, ...]
    refused: tuple[str, ...] = ()
    """One warning per model whose figures were implausible and left out of `models`."""

    @property
    def provenance(self) -> str:
        """How `smig models` credits these figures."""
        return f"live from {self.provider}, fetched {self.fetched[:16].replace('T', ' ')} UTC"


def apply_live(
    table: CapacityTable, listings: Iterable[LiveListing], bounds: LiveBounds | None = None
) -> CapacityTable:
    """Return `table` with the figures providers reported, each held to the provider that reported it.

    A provider's figure is what it serves (OpenRouter may route DeepSeek at 163,840 where DeepSeek
    serves 1M; a local server may run a model below its native window), so it replaces the
    model's own figures only when the provider is the model's maker; any other provider's figures
    make a route entry, found as `provider/model` (`openrouter/deepseek/deepseek-flash`). A model
    nobody else knows is added under its name. The config's `[models]` entries still win.
    Implausible figures (outside `bounds`) are skipped: a stale cache cannot bring them back.
    """
    bounds = bounds or LiveBounds()
    for listing in listings:
        where = listing.provenance
        changed = [
            entry
            for live in listing.models
            if bounds.problem(live) is None
            for entry in [_live_entry(table, listing.provider, live, where)]
            if entry is not None
        ]
        table = table.merged(CapacityTable(tuple(changed)))
    return table


def _live_entry(table: CapacityTable, provider: str, live: LiveModel, where: str) -> ModelCapacity | None:
    """One live model as a table entry: the maker's own figures, a route entry, or a new model."""
    base = table.get(live.id)
    window = live.context_window or max(live.max_input or 0, base.context_window if base else 0)
    if not window:
        return None
    reported = live.context_window is not None or base is None or window != base.context_window
    fields: dict[str, Any] = {"context_window": window} if reported else {}
    if live.max_input and live.max_input < window:
        fields["max_input"] = live.max_input
    if live.max_output and live.max_output < window:
        fields["max_output"] = live.max_output
    if base is None:
        added = parse_model(
            live.id, fields | {"provider": provider, "source": where}, where, tokenizers=table.tokenizers
        )
        made_up = (
            []
            if "max_output" in fields
            else [("max_output", f"smig's default, a quarter of the window up to 32,000 ({provider} gives none)")]
        )
        guess = f"smig's default, counted as {added.encoding} ({provider} names no tokenizer)"
        given = tuple((key, where) for key in fields)
        return replace(added, sources=(*given, *made_up, ("calibration", guess)), calibration_source=guess)
    updated = parse_model(base.name, fields, where, base=base, tokenizers=table.tokenizers)
    sources = tuple((key, where) for key in fields) + tuple(pair for pair in updated.sources if pair[0] not in fields)
    if provider == base.provider:
        return replace(updated, sources=sources)
    return replace(updated, name=f"{provider}/{live.id}", route=provider, sources=sources)
