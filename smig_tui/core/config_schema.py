"""Provides the config file's schema: every table smig reads, what each of its settings must be, and one
checker, so a wrong setting is refused in the same words wherever it is read, and `smig doctor` checks
the whole file from this one list.

`[models.<name>]` has fields that depend on each other (a harness window within the context window,
aliases, a calibration range): `core/capacity` checks those, this schema only that it is a table of tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from smig_tui.core.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Setting:
    """What one setting may hold, and how a refusal says it."""

    accepts: Callable[[object], bool]
    says: str
    """`true or false`, `a whole number of tokens (0 or more)`: completes "must be …"."""


def _whole(least: int) -> Callable[[object], bool]:
    return lambda value: isinstance(value, int) and not isinstance(value, bool) and value >= least


def one_of(*choices: str) -> Setting:
    """A setting that takes one of a few words."""
    return Setting(lambda value: value in choices, f"one of {', '.join(choices)}")


SWITCH = Setting(lambda value: isinstance(value, bool), "true or false")
TOKENS = Setting(_whole(0), "a whole number of tokens (0 or more)")
WINDOW = Setting(_whole(1), "a positive whole number of tokens")
COUNT = Setting(_whole(0), "a whole number (0 or more)")
SECONDS = Setting(
    lambda value: isinstance(value, int | float) and not isinstance(value, bool) and value > 0,
    "a number of seconds above 0",
)
TEXT = Setting(lambda value: isinstance(value, str) and bool(value.strip()), "a word or name in quotes")
VARIABLE = Setting(lambda value: isinstance(value, str) and bool(value.strip()), "the name of an environment variable")
ADDRESS = Setting(
    lambda value: isinstance(value, str) and value.startswith(("http://", "https://")), "an http(s) address"
)
FOLDERS = Setting(
    lambda value: isinstance(value, list) and all(isinstance(item, str) and item.strip() for item in value),
    "a list of folders in quotes",
)
PROVIDER_KINDS = ("openai", "ollama", "lmstudio", "litellm")
"""The listing APIs smig can read a provider's model windows from."""


@dataclass(frozen=True, slots=True)
class Table:
    """One table of the config file."""

    says: str
    """What it configures (for `smig doctor` and the docs)."""
    settings: Mapping[str, Setting] | None
    """Its settings; None when its feature checks the fields itself (see the module's docstring)."""
    named: bool = False
    """A table of named tables (`[agents.<id>]`, `[providers.<name>]`), each holding `settings`."""


TABLES: dict[str, Table] = {
    "plan": Table("how a plan is made", {"reserve": TOKENS, "harness": SWITCH, "pin_first_user": SWITCH}),
    "agents": Table(
        "an agent's overhead per request, instead of the measured one; more folders to look in for an agent "
        "that keeps its sessions in project folders",
        {"overhead": TOKENS, "folders": FOLDERS},
        named=True,
    ),
    "models": Table("models smig does not know, and corrections to those it does", None, named=True),
    "providers": Table(
        "where live model windows are read from",
        {"base_url": ADDRESS, "api_key_env": VARIABLE, "kind": one_of(*PROVIDER_KINDS)},
        named=True,
    ),
    "summarizer": Table(
        "the LLM that writes summaries",
        {
            "provider": TEXT,
            "model": TEXT,
            "base_url": TEXT,
            "api_key_env": VARIABLE,
            "timeout": SECONDS,
            "max_retries": COUNT,
            "context_window": WINDOW,
        },
    ),
    "archive": Table("the session archive", {"auto": SWITCH}),
}
"""Every table smig reads from its config file."""


def check_settings(table: Mapping[str, Any], settings: Mapping[str, Setting], label: str, where: str) -> None:
    """Refuse a key `settings` does not name, or a value its setting does not accept (one sentence,
    naming `where` and `label.key`)."""
    for key, value in table.items():
        setting = settings.get(key)
        if setting is None:
            raise ConfigError(f"{where}: {label}.{key} is not a setting (known: {', '.join(sorted(settings))}).")
        if not setting.accepts(value):
            raise ConfigError(f"{where}: {label}.{key} must be {setting.says}, not {value!r}.")


def table_of(config: Mapping[str, Any], name: str, where: str) -> Mapping[str, Any]:
    """The config's table `name`, checked against the schema (an empty table when the file has none)."""
    schema = TABLES[name]
    table = config.get(name, {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: [{name}] must be a table.")
    if schema.named:
        for key, inner in table.items():
            if not isinstance(inner, Mapping):
                raise ConfigError(f"{where}: [{name}.{key}] must be a table.")
            if schema.settings is not None:
                check_settings(inner, schema.settings, f"{name}.{key}", where)
    elif schema.settings is not None:
        check_settings(table, schema.settings, name, where)
    return table


def config_problems(config: Mapping[str, Any], where: str) -> list[str]:
    """One sentence per table the file has that smig does not read, or that the schema refuses."""
    problems = []
    for name in config:
        if name not in TABLES:
            known = ", ".join(f"[{table}]" for table in TABLES)
            problems.append(f"{where}: [{name}] is not a table smig reads (known: {known}).")
            continue
        try:
            table_of(config, name, where)
        except ConfigError as error:
            problems.append(str(error))
    return problems
