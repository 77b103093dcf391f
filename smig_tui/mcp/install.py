"""Provides `smig mcp --install CLIENT`: smig's entry written into a client's own config, merged in place.

Each client keeps its MCP servers in its own file and format, which its agent package describes
(`McpConfig` on the agent's profile: the file for the user and for a project, the key path of the
servers, JSON or TOML, the entry's shape, an allow list, files that go with it such as a policy).
Only smig's own entry is added or replaced: every other server and setting is kept, and the result
is parsed again and compared before it replaces the file, atomically. A file that does not parse, or
that is not a regular file, is left alone with a sentence saying so; a file the client changed
meanwhile is read again.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smig_tui.core.errors import SmigError, WriteRefusedError
from smig_tui.core.mcp_config import McpLaunch
from smig_tui.plugins import agent_choices, agent_profiles

if TYPE_CHECKING:
    from smig_tui.core.mcp_config import McpConfig

NAME = "smig"
SMIG_VARIABLES = ("XDG_CONFIG_HOME", "SMIG_TUI_HOME", "TIKTOKEN_CACHE_DIR")
"""Besides the agents' own home variables, what tells smig where configs, its own files and the
tokenizer files are (passed by a client that clears its servers' environment)."""
TABLE = re.compile(r"^\s*\[")


class ConfigError(SmigError):
    """A client's config cannot be merged into (it does not parse, or smig's entry is written in a form smig cannot replace)."""

    exit_code = 2


@dataclass(frozen=True)
class Install:
    """What `--install` does to one client: the file, its text before and after, and what changed."""

    client: str
    project: bool
    path: Path
    before: str | None
    after: str
    extra: tuple[tuple[Path, str], ...] = ()
    """Other files smig owns that go with the entry (a policy), with their text."""
    had_entry: bool = False
    """Whether the config held an entry for smig before."""

    @property
    def change(self) -> str:
        """added, updated or unchanged."""
        if self.before == self.after and all(_read(path) == text for path, text in self.extra):
            return "unchanged"
        return "updated" if self.had_entry else "added"


def clients() -> tuple[str, ...]:
    """The agents whose client smig can set up, in the order a user picks among agents."""
    configured = {profile.id for profile in agent_profiles() if profile.mcp is not None}
    return tuple(agent for agent in agent_choices() if agent in configured)


def mcp_config(client: str) -> McpConfig:
    """The MCP configuration of one agent's client; a sentence naming the choices when there is none."""
    config = next((profile.mcp for profile in agent_profiles() if profile.id == client), None)
    if config is None:
        raise ConfigError(f"smig cannot set up {client!r}; it sets up {', '.join(clients())}.")
    return config


def variables() -> tuple[str, ...]:
    """Every agent's home variables and smig's own, once each, in the registry's order."""
    found = [name for profile in agent_profiles() for name in profile.home_variables]
    return tuple(dict.fromkeys([*found, *SMIG_VARIABLES]))


def read_only_tools() -> tuple[str, ...]:
    """smig's tools marked read-only, in the order it lists them."""
    from smig_tui.mcp.schemas import TOOLS

    return tuple(tool["name"] for tool in TOOLS if (tool.get("annotations") or {}).get("readOnlyHint") is True)


def launch(command: list[str] | None = None) -> McpLaunch:
    """What every entry is made of: the command, the variables to pass, the read-only tools."""
    return McpLaunch(tuple(command or server_command()), variables(), read_only_tools())


def server_command() -> list[str]:
    """How a client should start this smig: `smig mcp` when that is the `smig` on PATH, else its full path."""
    me = Path(sys.argv[0]).resolve() if sys.argv and Path(sys.argv[0]).name == "smig" else None
    found = shutil.which("smig")
    if found and (me is None or Path(found).resolve() == me):
        return ["smig", "mcp"]
    if me is not None:
        return [str(me), "mcp"]
    return [sys.executable, "-m", "smig_tui.mcp"]


def config_path(client: str, project: bool, env: Mapping[str, str], cwd: Path) -> Path:
    """The file a client reads its MCP servers from, for the user or for the project in `cwd`."""
    config = mcp_config(client)
    return config.project_file(cwd) if project else config.user_file(env)


def entry(client: str, command: list[str]) -> dict[str, Any]:
    """smig's server entry as the client's config holds it."""
    return mcp_config(client).entry(launch(command))


def toml_block(path: tuple[str, ...], server: Mapping[str, Any]) -> str:
    """smig's entry as TOML tables under `path`: its plain values, then each table of it as a table of its own."""
    return _toml_tables([*path, NAME], server).lstrip("\n")


def _toml_tables(keys: list[str], table: Mapping[str, Any]) -> str:
    # JSON's strings, numbers, arrays and true are TOML too
    plain = [f"{key} = {json.dumps(value)}" for key, value in table.items() if not isinstance(value, Mapping)]
    text = "\n".join(["", f"[{'.'.join(keys)}]", *plain]) + "\n" if plain else ""  # a table of tables needs no heading
    for key, value in table.items():
        if isinstance(value, Mapping):
            text += _toml_tables([*keys, key], value)
    return text


def plan_install(
    client: str, project: bool = False, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> Install:
    """What installing smig into `client`'s config would write (nothing is written here)."""
    config = mcp_config(client)
    env = os.environ if env is None else env
    path = config_path(client, project, env, cwd or Path.cwd())
    before = _read(path)
    made = launch()
    server = config.entry(made)
    if config.toml:
        after = _merge_toml(client, config, path, before, server)
        old: Any = tomllib.loads(before or "")
    else:
        after = _merge_json(client, config, made, path, before, server)
        old = json.loads(before) if before and before.strip() else {}
    for key in config.servers:
        old = old.get(key) if isinstance(old, dict) else None
    had_entry = isinstance(old, dict) and NAME in old
    return Install(client, project, path, before, after, config.extra_files(env, made), had_entry)


def apply_install(
    plan: Install, env: Mapping[str, str] | None = None, cwd: Path | None = None, tries: int = 3
) -> Install:
    """Write a planned install: the merged config atomically, after checking nobody changed the file meanwhile."""
    from smig_tui.services import replace_file

    for extra_path, text in plan.extra:
        found = _read(extra_path)
        if found is not None and found != text and not found.startswith(text.splitlines()[0]):
            raise WriteRefusedError(f"Refusing to overwrite {extra_path}: smig did not write it.")
    for _ in range(tries):
        if _read(plan.path) != plan.before:  # the client rewrote its config since it was read: merge again
            plan = plan_install(plan.client, plan.project, env, cwd)
            continue
        if plan.before != plan.after:
            mode = plan.path.stat().st_mode & 0o777 if plan.before is not None else 0o600
            replace_file(plan.path, plan.after, mode)
        for extra_path, text in plan.extra:
            if _read(extra_path) != text:
                replace_file(extra_path, text, 0o644)
        if _read(plan.path) != plan.after:
            raise ConfigError(f"{plan.path} changed while smig was writing it; run the install again.")
        return plan
    raise ConfigError(f"{plan.path} keeps changing (is {plan.client} running?); run the install again.")


def _read(path: Path) -> str | None:
    """A config file's text, None when there is none; something that is not a regular file is refused."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    if not path.is_file() or path.is_symlink():
        from smig_tui.services import file_kind

        raise WriteRefusedError(f"Refusing to change {path}: it is {file_kind(info.st_mode)}, not a regular file.")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"Cannot read {path}: {error}.") from None


def _merge_json(
    client: str, config: McpConfig, made: McpLaunch, path: Path, before: str | None, server: dict[str, Any]
) -> str:
    """The JSON config with smig's entry (and its allow rules) set and everything else as it was."""
    try:
        data = json.loads(before) if before and before.strip() else {}
    except ValueError as error:
        raise ConfigError(
            f"{path} is not plain JSON ({error}); smig leaves it as it is. Add smig's entry by hand "
            f"(smig mcp --install {client} --dry-run prints it)."
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} holds a JSON {type(data).__name__}, not an object; smig leaves it as it is.")
    if before is None:
        data = {**dict(config.new_file), **data}
    servers = _table(data, config.servers, path)
    servers[NAME] = server
    if config.allow:
        *parents, last = config.allow
        table = _table(data, tuple(parents), path)
        rules = table.setdefault(last, [])
        if not isinstance(rules, list):
            raise ConfigError(f"{path}: {'.'.join(config.allow)} is not a list; smig leaves the file as it is.")
        rules += [rule for rule in map(config.allow_rule, made.read_only) if rule not in rules]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _table(data: dict[str, Any], keys: tuple[str, ...], path: Path) -> dict[str, Any]:
    """The object at a key path of `data`, made when missing; a sentence when something else is there."""
    table = data
    for depth, key in enumerate(keys, start=1):
        table = table.setdefault(key, {})
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {'.'.join(keys[:depth])} is not an object; smig leaves the file as it is.")
    return table


def _merge_toml(client: str, config: McpConfig, path: Path, before: str | None, server: dict[str, Any]) -> str:
    """A TOML config with smig's tables replaced or appended; every other line kept as written."""
    text = before or ""
    try:
        old = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML ({error}); smig leaves it as it is.") from None
    keys = r"\s*\.\s*".join(re.escape(key) for key in config.servers)
    smig_table = re.compile(rf"""^\s*\[\s*{keys}\s*\.\s*(?:{NAME}|"{NAME}"|'{NAME}')\s*(?:\]|\.)""")
    kept: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        if TABLE.match(line):
            inside = bool(smig_table.match(line))
        if not inside:
            kept.append(line)
    body = "".join(kept).rstrip("\n")
    after = (body + "\n\n" if body else "") + toml_block(config.servers, server)
    try:
        new = tomllib.loads(after)
    except tomllib.TOMLDecodeError:
        new = None
    expected = dict(old)
    table = expected
    for key in config.servers:
        table[key] = dict(table.get(key, {}))
        table = table[key]
    table[NAME] = server
    if new != expected:
        heading = ".".join((*config.servers, NAME))
        raise ConfigError(
            f"{path} defines smig's server in a form smig cannot replace (an inline table?); edit its "
            f"[{heading}] entry by hand (smig mcp --install {client} --dry-run prints it)."
        )
    return after
