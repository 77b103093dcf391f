"""The recorded Kilo Code CLI 7.7.7 database and requests (tests/fixtures/real/kilo), for the Kilo tests."""

from __future__ import annotations

import json
import lzma
import sqlite3
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "fixtures" / "real" / "kilo"
RECORDED_ROOT = "/tmp/smig-real-kilo/work"
"""Where the recorded sessions ran: `<root>/<scenario>`."""
ENVIRONMENT = "\n\n<environment_details>"
"""Kilo's injected text part: the client's context (made at send time), not the conversation."""


def install_database(path: Path) -> Path:
    """The recorded `kilo.db` rebuilt at `path`, in WAL mode as Kilo leaves it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    connection.executescript((FIXTURE / "kilo.sql").read_text(encoding="utf-8"))
    connection.commit()
    connection.execute("PRAGMA journal_mode=WAL")
    connection.close()
    return path


def last_request(scenario: str) -> dict[str, Any]:
    """The body of the last request Kilo sent the model in one recorded scenario."""
    with lzma.open(FIXTURE / "requests.jsonl.xz", "rt", encoding="utf-8") as handle:
        entries = [json.loads(line) for line in handle if line.strip()]
    posts = [e for e in entries if e["scenario"] == scenario and e["method"] == "POST"]
    return dict(posts[-1]["body"])


def sent_history(body: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """A Chat Completions conversation as (role, kind, content): text parts, tool calls (paired by id), results."""
    out: list[tuple[str, str, Any]] = []
    calls: dict[str, str] = {}
    for message in body["messages"]:
        role, content = message["role"], message.get("content")
        if role == "system":
            continue
        if role == "tool":
            assert message["tool_call_id"] in calls  # every result answers a call sent before it
            out.append(("tool", "tool_result", content))
            continue
        parts = [{"text": content}] if isinstance(content, str) else content or []
        out += [(role, "text", part["text"]) for part in parts if not part["text"].startswith(ENVIRONMENT)]
        for call in message.get("tool_calls") or []:
            calls[call["id"]] = call["function"]["name"]
            out.append(("assistant", "tool_call", json.loads(call["function"]["arguments"])))
    return out
