"""Provides `smig mcp --check`: start smig the way each client's config says, and report what answered.

For every client whose config (the user's, and the project's in this folder) names a `smig` server,
the command and arguments it states are started with the environment that client would give them
(as its agent package's `McpConfig.started` says: a client may clear all but a few variables and pass
those its entry names), asked for `initialize` and `tools/list`, and reported: the tools it lists and
how long it took, or why it did not answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smig_tui.mcp.install import NAME, clients, config_path, mcp_config

START_LIMIT = 30.0
"""Seconds the clients wait for a server to start (Codex, Claude Code and OpenCode: 30 s)."""
HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "smig-check", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


@dataclass(frozen=True)
class Checked:
    """One client's view of smig: where it is configured, what it starts, and what came back."""

    client: str
    path: Path
    command: tuple[str, ...]
    ok: bool
    detail: str


def check_all(env: Mapping[str, str] | None = None, cwd: Path | None = None) -> list[Checked]:
    """Every configured smig server of every client, started and asked for its tools."""
    env = os.environ if env is None else env
    cwd = cwd or Path.cwd()
    found = []
    for client in clients():
        for project in (False, True):
            path = config_path(client, project, env, cwd)
            try:
                started = started_as(client, path, env)
            except (OSError, ValueError, tomllib.TOMLDecodeError) as error:
                found.append(Checked(client, path, (), False, f"cannot read the config: {error}"))
                continue
            if started is not None:
                command, server_env = started
                ok, detail = probe(command, server_env, cwd)
                found.append(Checked(client, path, tuple(command), ok, detail))
    return found


def started_as(client: str, path: Path, env: Mapping[str, str]) -> tuple[list[str], dict[str, str]] | None:
    """The command and environment `client` starts smig with, per its config at `path`; None when not there."""
    if not path.is_file():
        return None
    config = mcp_config(client)
    text = path.read_text(encoding="utf-8")
    server: Any = tomllib.loads(text) if config.toml else (json.loads(text) if text.strip() else {})
    for key in config.servers:
        server = server.get(key) if isinstance(server, dict) else None
    server = server.get(NAME) if isinstance(server, dict) else None
    if not isinstance(server, dict):
        return None
    return config.started(server, env)


def probe(command: list[str], env: Mapping[str, str], cwd: Path) -> tuple[bool, str]:
    """Start `command`, send the handshake and `tools/list`; whether it answered, and a sentence."""
    if not command or not command[0]:
        return False, "the entry names no command"
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command,
            input="".join(json.dumps(message) + "\n" for message in HANDSHAKE),
            capture_output=True,
            text=True,
            env=dict(env),
            cwd=cwd,
            timeout=START_LIMIT,
        )
    except FileNotFoundError:
        return False, f"{command[0]} is not found (not on the PATH the client gives it)"
    except PermissionError:
        return False, f"{command[0]} cannot be run (permission denied)"
    except subprocess.TimeoutExpired:
        return False, f"no answer within {START_LIMIT:.0f} s, the clients' limit"
    took = time.perf_counter() - start
    answers = {}
    for line in done.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            return False, f"wrote something that is not a protocol message to stdout: {line[:80]!r}"
        if isinstance(message, dict):
            answers[message.get("id")] = message
    tools = (answers.get(2) or {}).get("result", {}).get("tools")
    if not isinstance(tools, list):
        last = done.stderr.strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        return False, f"did not list its tools ({last[0][:200]})"
    version = (answers.get(1) or {}).get("result", {}).get("serverInfo", {}).get("version", "?")
    return True, f"smig {version}: {len(tools)} tools in {took:.2f} s"
