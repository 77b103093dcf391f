"""Provides `McpConfig`: where and how one agent's client keeps its MCP servers, as data on its profile.

`smig mcp --install CLIENT` and `smig mcp --check` know no client by name: each agent package says
which file its client reads servers from (the user's and a project's, with the variables that move
it), the key path of the servers table and the file's format (JSON, or TOML kept line by line), the
shape of smig's entry, how the client starts a server from it (its environment), an allow list of
tools that run without asking, and any file that goes with the entry (a policy). The merging, the
atomic write and the read-back stay generic in `smig_tui/mcp/install.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Env = Mapping[str, str]
Started = tuple[list[str], dict[str, str]]


@dataclass(frozen=True, slots=True)
class McpLaunch:
    """What every client's entry for smig is made of."""

    command: tuple[str, ...]
    """How to start smig's server: `("smig", "mcp")`, or a full path when `smig` is not the one on PATH."""
    variables: tuple[str, ...]
    """The variables that tell smig where the agents and smig keep their files, for a client that starts
    servers with a cleared environment and passes only what its entry names."""
    read_only: tuple[str, ...]
    """smig's tools that only read (marked `readOnlyHint`): what an allow list may let run without asking."""


def command_and_args(launch: McpLaunch) -> dict[str, Any]:
    """The common entry: `{"command": "smig", "args": ["mcp"]}`."""
    return {"command": launch.command[0], "args": list(launch.command[1:])}


def started_with_env(server: Mapping[str, Any], env: Env) -> Started:
    """How most clients start an entry of the common shape: its command and args, with the client's whole
    environment plus the entry's `env`."""
    command = [str(server.get("command") or ""), *(str(arg) for arg in server.get("args") or [])]
    extra = server.get("env") or {}
    return command, {**env, **{key: str(value) for key, value in dict(extra).items()}}


def _no_files(_env: Env, _launch: McpLaunch) -> tuple[tuple[Path, str], ...]:
    return ()


@dataclass(frozen=True, slots=True)
class McpConfig:
    """One client's MCP configuration: its files, the entry's shape and format, how it starts smig."""

    user_file: Callable[[Env], Path]
    """The user's config file, as the environment places it (`HOME` and the client's own variables)."""
    project_file: Callable[[Path], Path]
    """A project's config file, for the project in the given folder."""
    servers: tuple[str, ...] = ("mcpServers",)
    """The key path of the table of servers in the file; smig's entry is `smig` in it."""
    toml: bool = False
    """A TOML file (smig's tables replaced or appended as lines, every other line kept); else JSON."""
    entry: Callable[[McpLaunch], dict[str, Any]] = command_and_args
    """smig's entry as the client's config holds it."""
    started: Callable[[Mapping[str, Any], Env], Started] = started_with_env
    """The command and environment the client starts an entry with, given the client's own environment
    (what `--check` reproduces)."""
    new_file: tuple[tuple[str, Any], ...] = ()
    """Keys a config file smig creates starts with (a `$schema`)."""
    allow: tuple[str, ...] = ()
    """The key path of a list, in the same file, of tools that run without asking (empty: none): smig's
    read-only tools are added to it, the user's own rules kept."""
    allow_rule: Callable[[str], str] = str
    """How that list names one of smig's tools (`mcp__smig__list_sessions`)."""
    page_chars: int | None = None
    """The largest page of a tool result, in UTF-8 bytes, that its client hands the model whole, when that
    is less than smig's default page (None: the default fits); smig's pages for it are cut to this."""
    extra_files: Callable[[Env, McpLaunch], tuple[tuple[Path, str], ...]] = _no_files
    """Files smig owns that go with the entry (a policy), with their text; the first line of each marks it
    as smig's, so a file of the same name written by someone else is never replaced."""
