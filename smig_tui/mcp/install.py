"""Provides `smig mcp --install CLIENT`: smig's entry written into a client's own config, merged in place.

Each client keeps its MCP servers in its own file and format: Claude Code in `~/.claude.json` (or a
project's `.mcp.json`), Codex in `config.toml`, Gemini CLI in `settings.json` (plus a policy file so
`gemini -p` may run the read-only tools), OpenCode in `opencode.json`. Only smig's own entry is
added or replaced: every other server and setting is kept, and the result is parsed again and
compared before it replaces the file, atomically. A file that does not parse, or that is not a
regular file, is left alone with a sentence saying so; a file the client changed meanwhile is read again.
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
from typing import Any

from smig_tui.core.errors import SmigError, WriteRefusedError

CLIENTS = ("claude", "codex", "gemini", "opencode")
NAME = "smig"
CODEX_ENV_VARS = (
    "CODEX_HOME",
    "CLAUDE_CONFIG_DIR",
    "GEMINI_CLI_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "SMIG_TUI_HOME",
    "TIKTOKEN_CACHE_DIR",
)
"""Codex starts servers with a cleared environment: these tell smig where the agents and smig keep their files."""
GEMINI_POLICY = """\
# Written by `smig mcp --install gemini`: let Gemini CLI run smig's read-only tools without asking,
# `gemini -p` included (it offers no MCP tool that needs approval). commit_migration and memory_sync
# write files and are not read-only, so they still ask (and are not offered to `gemini -p`).
[[rule]]
toolName = "*"
mcpName = "smig"
toolAnnotations = { readOnlyHint = true }
decision = "allow"
priority = 100
"""
SMIG_TABLE = re.compile(r"""^\s*\[\s*mcp_servers\s*\.\s*(?:smig|"smig"|'smig')\s*(?:\]|\.)""")
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
    """Other files smig owns that go with the entry (Gemini's policy), with their text."""

    @property
    def change(self) -> str:
        """added, updated or unchanged."""
        if self.before == self.after and all(_read(path) == text for path, text in self.extra):
            return "unchanged"
        return "added" if self.before is None or NAME not in self.before else "updated"


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
    home = Path(env.get("HOME") or Path.home())
    if client == "claude":
        folder = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home
        return cwd / ".mcp.json" if project else folder / ".claude.json"
    if client == "codex":
        return (
            cwd / ".codex" / "config.toml"
            if project
            else Path(env.get("CODEX_HOME") or home / ".codex") / "config.toml"
        )
    if client == "gemini":
        return cwd / ".gemini" / "settings.json" if project else gemini_home(env) / "settings.json"
    if project:
        return cwd / "opencode.json"
    if env.get("OPENCODE_CONFIG"):
        return Path(env["OPENCODE_CONFIG"])
    config = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    return config / "opencode" / "opencode.json"


def gemini_home(env: Mapping[str, str]) -> Path:
    """Gemini CLI's folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`."""
    return Path(env.get("GEMINI_CLI_HOME") or env.get("HOME") or Path.home()) / ".gemini"


def entry(client: str, command: list[str]) -> dict[str, Any]:
    """smig's server entry as the client's config holds it."""
    if client == "opencode":
        return {"type": "local", "command": command, "enabled": True}
    server: dict[str, Any] = {"command": command[0], "args": command[1:]}
    if client == "codex":
        server.update(
            required=True, env_vars=list(CODEX_ENV_VARS), tools={"commit_migration": {"approval_mode": "approve"}}
        )
    return server


def codex_block(server: dict[str, Any]) -> str:
    """Codex's TOML tables for smig's entry."""
    lines = ["[mcp_servers.smig]"]
    for key in ("command", "args", "required", "env_vars"):
        lines.append(f"{key} = {json.dumps(server[key])}")  # JSON's strings, arrays and true are TOML too
    for tool, settings in server["tools"].items():
        lines += ["", f"[mcp_servers.smig.tools.{tool}]"]
        lines += [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    return "\n".join(lines) + "\n"


def plan_install(
    client: str, project: bool = False, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> Install:
    """What installing smig into `client`'s config would write (nothing is written here)."""
    if client not in CLIENTS:
        raise ConfigError(f"smig cannot set up {client!r}; it sets up {', '.join(CLIENTS)}.")
    env = os.environ if env is None else env
    path = config_path(client, project, env, cwd or Path.cwd())
    before = _read(path)
    server = entry(client, server_command())
    after = _merge_toml(path, before, server) if client == "codex" else _merge_json(client, path, before, server)
    extra = ((gemini_home(env) / "policies" / "smig.toml", GEMINI_POLICY),) if client == "gemini" else ()
    return Install(client, project, path, before, after, extra)


def apply_install(
    plan: Install, env: Mapping[str, str] | None = None, cwd: Path | None = None, tries: int = 3
) -> Install:
    """Write a planned install: the merged config atomically, after checking nobody changed the file meanwhile."""
    from smig_tui.services import replace_file

    for extra_path, text in plan.extra:
        found = _read(extra_path)
        if found is not None and found != text and not found.startswith(GEMINI_POLICY.splitlines()[0]):
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


def _merge_json(client: str, path: Path, before: str | None, server: dict[str, Any]) -> str:
    """The JSON config with smig's entry set and everything else as it was."""
    try:
        data = json.loads(before) if before and before.strip() else {}
    except ValueError as error:
        raise ConfigError(
            f"{path} is not plain JSON ({error}); smig leaves it as it is. Add smig's entry by hand "
            f"(smig mcp --install {client} --dry-run prints it)."
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} holds a JSON {type(data).__name__}, not an object; smig leaves it as it is.")
    key = "mcp" if client == "opencode" else "mcpServers"
    servers = data.get(key, {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: {key} is not an object; smig leaves the file as it is.")
    if client == "opencode" and before is None:
        data["$schema"] = "https://opencode.ai/config.json"
    data[key] = {**servers, NAME: server}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _merge_toml(path: Path, before: str | None, server: dict[str, Any]) -> str:
    """Codex's config.toml with smig's tables replaced or appended; every other line kept as written."""
    text = before or ""
    try:
        old = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML ({error}); smig leaves it as it is.") from None
    kept: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        if TABLE.match(line):
            inside = bool(SMIG_TABLE.match(line))
        if not inside:
            kept.append(line)
    body = "".join(kept).rstrip("\n")
    after = (body + "\n\n" if body else "") + codex_block(server)
    try:
        new = tomllib.loads(after)
    except tomllib.TOMLDecodeError:
        new = None
    servers = dict(old.get("mcp_servers", {}))
    servers.pop(NAME, None)
    expected = {**old, "mcp_servers": {**servers, NAME: server}}
    if new != expected:
        raise ConfigError(
            f"{path} defines smig's server in a form smig cannot replace (an inline table?); edit its "
            "[mcp_servers.smig] entry by hand (smig mcp --install codex --dry-run prints it)."
        )
    return after
