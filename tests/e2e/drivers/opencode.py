"""OpenCode 1.18.33 in the real-client matrix: the recorded database in tests/opencode_builders as the
source, `opencode import` (smig's writer) then `opencode run -s ID` as the receiver.

Where the module keeps client servers (`servers.clients`), the receiver is the module's one `opencode serve`
(tests/e2e/served_clients.py): smig writes into its database and the resume is the request `opencode run -s`
sends it; a case whose temp home already holds an OpenCode database (OpenCode is the source too) runs
`opencode run`.

OpenCode talks to the fake model server through a custom provider on its bundled Anthropic SDK
(`"npm": "@ai-sdk/anthropic"`, `options.baseURL`); with the switches of `QUIET` it downloads nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from client_env import base_env, client_binary, run_client
from fake_model_server import FakeModelServer
from opencode_builders import install_database
from served_clients import ServedClient

from drivers import PROMPT, Servers, last_turn, write_note
from smig_tui.core.models import Agent
from smig_tui.services import build_services

AGENT = "opencode"
TARGET = "claude-sonnet-4-5"
PROVIDER = "anthropic"
"""OpenCode's fake provider speaks Anthropic's Messages API."""
QUIET = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
}


def database(home: Path) -> Path:
    """Where OpenCode keeps its sessions in a home with the default XDG folders (`OPENCODE_DB` overrides it)."""
    return home / ".local" / "share" / "opencode" / "opencode.db"


def configure(homes: dict[str, Path], server: FakeModelServer) -> dict[str, str]:
    """OpenCode's config in the temp home: a provider `fake` at the server; the env to run it with."""
    folder = homes["home"] / ".config" / "opencode"
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "$schema": "https://opencode.ai/config.json",
        "model": "fake/claude-sonnet-4-5",
        "autoupdate": False,
        "share": "disabled",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/anthropic",
                "name": "fake",
                "options": {"baseURL": f"{server.url}/v1", "apiKey": "test"},
                "models": {"claude-sonnet-4-5": {"name": "fake", "limit": {"context": 200000, "output": 8000}}},
            }
        },
    }
    (folder / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
    return base_env(homes) | QUIET


DB = "OPENCODE_DB"
"""Where OpenCode, its `import` and smig find OpenCode's database."""
SERVED = True
"""The matrix runs the cases OpenCode receives on one worker (`xdist_group`), so one `opencode serve`
serves them all."""


def smig_env(homes: dict[str, Path]) -> dict[str, str]:
    """smig writes through `opencode import`: the client, and its quiet switches."""
    return {"SMIG_OPENCODE_BIN": client_binary("opencode")} | QUIET


def install_source(homes: dict[str, Path], project: Path, tmp_path: Path) -> str:
    install_database(database(homes["home"]).parent)
    [info] = build_services().list_sessions(agent=Agent("opencode"))
    return info.id


def prepare_receiver(homes: dict[str, Path], servers: Servers) -> dict[str, str] | None:
    """OpenCode's config; with the module's `opencode serve`, its database for smig to write into."""
    configure(homes, servers.model)

    def start(home: Path) -> ServedClient:
        env = configure({"home": home, "codex": home / ".codex", "claude": home / ".claude"}, servers.model)
        return ServedClient("opencode", client_binary("opencode"), home, env, database(home))

    return None if servers.clients is None else servers.clients.database_env(AGENT, DB, database(homes["home"]), start)


def _turn(homes: dict[str, Path], project: Path, servers: Servers, *args: str) -> dict[str, Any]:
    """`opencode run [ARGS] PROMPT`; the request of that turn."""
    servers.clear()
    run_client([client_binary("opencode"), "run", *args, PROMPT], project, configure(homes, servers.model))
    return _last(servers)


def _last(servers: Servers) -> dict[str, Any]:
    """The last request of the turn (its title requests offer no tools)."""
    return last_turn([body for body in servers.model.bodies("/messages") if body.get("tools")], "OpenCode")


def resume(session_id: str, homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    servers.clear()
    if servers.clients is not None and servers.clients.resumed(AGENT, DB, session_id, project, PROMPT):
        return _last(servers)
    return _turn(homes, project, servers, "-s", session_id)  # smig wrote into the temp home


def seed_memory(homes: dict[str, Path], note: str) -> None:
    """OpenCode's global rules, `~/.config/opencode/AGENTS.md`."""
    write_note(homes["home"] / ".config" / "opencode" / "AGENTS.md", f"# Rules\n\n- {note}\n")


def memory_turn(homes: dict[str, Path], project: Path, servers: Servers) -> dict[str, Any]:
    return _turn(homes, project, servers)


def memory_carries(homes: dict[str, Path], notes: dict[str, str]) -> list[str]:
    """OpenCode loads its global AGENTS.md (it has no imports): its own note and smig's line naming the bundle."""
    return [notes[AGENT], f"also read {homes['home'] / '.config' / 'opencode' / 'smig_memory.md'}"]
