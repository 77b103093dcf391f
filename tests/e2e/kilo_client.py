"""Runs the real Kilo Code CLI (npm `@kilocode/cli` 7.7.7) against the fake model server (Chat Completions), in a temp home.

Kilo is an OpenCode descendant: a custom provider in `~/.config/kilo/kilo.json` on its bundled
`@ai-sdk/openai-compatible` points it at the fake (`options.baseURL`), no provider package is
downloaded. Offline it still tries, and survives, a models.dev and a Kilo gateway model fetch;
the `KILO_*` switches below turn off what can be turned off (updates, sharing, model fetches,
telemetry, session ingest, indexing, Claude Code import). The npm package installs its binary from
the platform package `@kilocode/cli-linux-x64` (`optionalDependencies`), nothing from elsewhere.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from client_runs import clean_env, new_client, run_client
from fake_model_server import FakeModelServer

PROVIDER = "fake"
MODEL = "gpt-4.1"
QUIET = {
    "KILO_DISABLE_AUTOUPDATE": "1",
    "KILO_DISABLE_MODELS_FETCH": "1",
    "KILO_DISABLE_SHARE": "1",
    "KILO_DISABLE_LSP_DOWNLOAD": "1",
    "KILO_DISABLE_DEFAULT_PLUGINS": "1",
    "KILO_DISABLE_CLAUDE_CODE": "1",
    "KILO_DISABLE_SESSION_INGEST": "1",
    "KILO_DISABLE_CODEBASE_INDEXING": "1",
    "KILO_TELEMETRY_LEVEL": "off",
    "KILO_NO_DAEMON": "1",
}


def kilo_binary() -> str:
    """The installed `kilo`, or skip."""
    return new_client("kilo")


def configure(home: Path, server: FakeModelServer, context: int = 200_000, output: int = 8_000) -> Path:
    """Kilo's global config in the temp home: provider `fake` at the server, a `context`-token window."""
    model: dict[str, Any] = {"name": "fake", "limit": {"context": context, "output": output}}
    config = {
        "$schema": "https://app.kilo.ai/config.json",
        "model": f"{PROVIDER}/{MODEL}",
        "autoupdate": False,
        "share": "disabled",
        "provider": {
            PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "fake",
                "options": {"baseURL": f"{server.url}/v1", "apiKey": "smig-test"},
                "models": {MODEL: model},
            }
        },
    }
    path = home / ".config" / "kilo" / "kilo.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def kilo_env(home: Path) -> dict[str, str]:
    """Only the temp home (XDG folders under it) and the quiet switches."""
    return clean_env(home, **QUIET, NO_COLOR="1", CI="1")


def database(home: Path) -> Path:
    """Where Kilo keeps its sessions in a home with the default XDG folders (`KILO_DB` overrides it)."""
    return home / ".local" / "share" / "kilo" / "kilo.db"


def run_kilo(
    home: Path, cwd: Path, server: FakeModelServer, *args: str, context: int = 200_000
) -> subprocess.CompletedProcess[str]:
    """`kilo ARGS` (e.g. `run PROMPT`, `run -s ID PROMPT`) in `cwd`; fails the test on a non-zero exit."""
    configure(home, server, context=context)
    return run_client([kilo_binary(), *args], cwd, kilo_env(home))


def kilo_id(prefix: str, millis: int, counter: int, descending: bool = False) -> str:
    """An id shaped like Kilo's (OpenCode's): prefix, 12 hex digits of time and counter, 14 characters.

    Kilo orders a session's messages and parts by id: ids that do not ascend with time (or that sort
    after the ids Kilo makes next) put the history after the new prompt, and Kilo sends only the prompt.
    """
    value = (millis * 0x1000 + counter) & 0xFFFFFFFFFFFF
    if descending:
        value = ~value & 0xFFFFFFFFFFFF
    return f"{prefix}_{value:012x}smigfixture{counter:03d}"


def handwritten_document(cwd: Path, tag: str, now: int) -> dict[str, Any]:
    """A two-turn session with a completed bash call, in `kilo export`'s shape, as a migration writes it.

    The turns are dated in the ten seconds before `now` (milliseconds) and the session was updated
    at `now`: `kilo run -c` continues the folder's session with the newest `time.updated`, and
    `kilo import` keeps the document's.
    """
    millis = now - 10_000
    session = kilo_id("ses", millis, 0, descending=True)
    ask, answer, ask2, answer2 = (kilo_id("msg", millis + 1000 * n, 2 * n) for n in range(4))
    model = {"providerID": PROVIDER, "modelID": MODEL}

    def part(message: str, number: int, body: dict[str, Any], second: bool = False) -> dict[str, Any]:
        offset = 1000 * number + (500 if second else 0)
        return {
            "id": kilo_id("prt", millis + offset, 2 * number + 1),
            "sessionID": session,
            "messageID": message,
        } | body

    def user(message: str, number: int, text: str) -> dict[str, Any]:
        info = {"id": message, "sessionID": session, "role": "user", "time": {"created": millis + 1000 * number}}
        return {"info": info | {"agent": "code", "model": model}, "parts": [part(message, number, _text(text))]}

    def assistant(message: str, parent: str, number: int, finish: str) -> dict[str, Any]:
        created = millis + 1000 * number
        info = {
            "id": message,
            "sessionID": session,
            "role": "assistant",
            "parentID": parent,
            "mode": "code",
            "agent": "code",
            "path": {"cwd": str(cwd), "root": str(cwd)},
            "cost": 0,
            "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "modelID": MODEL,
            "providerID": PROVIDER,
            "time": {"created": created, "completed": created},
            "finish": finish,
        }
        return {"info": info, "parts": []}

    output = f"{tag}-OUTPUT: migrate by friday\n"
    call = {
        "type": "tool",
        "tool": "bash",
        "callID": f"call_{tag.lower()}_1",
        "state": {
            "status": "completed",
            "input": {"command": "cat plan.txt", "description": "Show the plan"},
            "output": output,
            "title": "Show the plan",
            "metadata": {"output": output, "exit": 0, "description": "Show the plan", "truncated": False},
            "time": {"start": millis + 1000, "end": millis + 1100},
        },
    }
    first = assistant(answer, ask, 1, "tool-calls")
    # text before the call, as Kilo stores a step: Chat Completions sends a message's text before its calls
    first["parts"] = [part(answer, 1, _text(f"{tag}-REPLY: it says friday.")), part(answer, 1, call, second=True)]
    second = assistant(answer2, ask2, 3, "stop")
    second["parts"] = [part(answer2, 3, _text(f"{tag}-REPLY-2: ship it then."))]
    info = {
        "id": session,
        "slug": f"smig-{tag.lower()}",
        "projectID": "global",
        "directory": str(cwd),
        "title": f"{tag} (written by hand)",
        "version": "7.7.7",
        "model": {"id": MODEL, "providerID": PROVIDER},
        "time": {"created": millis, "updated": now},
    }
    messages = [user(ask, 0, f"{tag}-1: what does plan.txt say?"), first, user(ask2, 2, f"{tag}-2: and then?"), second]
    return {"info": info, "messages": messages}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def import_document(home: Path, cwd: Path, path: Path, tag: str) -> str:
    """Write a hand-made session to `path` and bring it in with `kilo import`; its session id."""
    document = handwritten_document(cwd, tag, int(time.time() * 1000))
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")
    run_client([kilo_binary(), "import", str(path)], cwd, kilo_env(home))
    return str(document["info"]["id"])
