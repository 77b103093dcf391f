"""Checks the recorded Kilo Code CLI 7.7.7 database against the requests Kilo sent (no client runs here).

Kilo's storage is OpenCode 1.18.33's plus a few tables, so smig's OpenCode reader, pointed at
`kilo.db` through `OPENCODE_DB`, must already read each session as Kilo sent it on its last resume
(a compaction's summary, which smig marks as one, is the assistant text Kilo sends): the groundwork
fact the Kilo package builds on (docs/formats/kilo.md). Kilo's injected `<environment_details>`
text part is the client's context, not the conversation, and is left out.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from recording import load_requests

from smig_tui.core.models import Agent, Kind
from smig_tui.services import build_services

FIXTURE = Path(__file__).parents[1] / "fixtures" / "real" / "kilo"
ENVIRONMENT = "\n\n<environment_details>"


def _sent(body: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """A Chat Completions conversation as (role, kind, content): text parts, tool calls, results."""
    out: list[tuple[str, str, Any]] = []
    for message in body["messages"]:
        role, content = message["role"], message.get("content")
        if role == "system":
            continue
        if role == "tool":
            out.append(("tool", "tool_result", content))
            continue
        parts = [{"text": content}] if isinstance(content, str) else content or []
        out += [(role, "text", part["text"]) for part in parts if not part["text"].startswith(ENVIRONMENT)]
        out += [
            ("assistant", "tool_call", json.loads(c["function"]["arguments"])) for c in message.get("tool_calls") or []
        ]
    return out


@pytest.fixture
def kilo_database(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    database = isolated_homes["home"] / "kilo.db"
    connection = sqlite3.connect(database)
    connection.executescript((FIXTURE / "kilo.sql").read_text(encoding="utf-8"))
    connection.commit()
    connection.close()
    monkeypatch.setenv("OPENCODE_DB", str(database))
    return database


@pytest.mark.parametrize("scenario", ["chat", "tools", "compact", "imported"])
def test_smig_reads_a_kilo_session_as_kilo_last_sent_it(kilo_database: Path, scenario: str) -> None:
    services = build_services()
    [info] = [
        i for i in services.list_sessions(agent=Agent("opencode")) if i.cwd == f"/tmp/smig-real-kilo/work/{scenario}"
    ]
    last = [e for e in load_requests(FIXTURE / "requests.jsonl.xz", scenario) if e["method"] == "POST"][-1]["body"]
    session = services.load_session(info)
    mine = [
        (
            m.role.value,
            "text" if m.kind is Kind.SUMMARY else m.kind.value,
            json.loads(m.text) if m.kind is Kind.TOOL_CALL else m.text,
        )
        for m in session.messages
    ]
    sent = _sent(last)
    assert mine[: len(sent)] == sent  # then the reply to that request
    assert len(mine) == len(sent) + 1 and mine[-1][0] == "assistant"
    assert (
        sum(kind == "tool_call" for _, kind, _ in sent)
        == {"chat": 0, "tools": 3, "compact": 0, "imported": 1}[scenario]
    )
    assert session.compactions == (1 if scenario == "compact" else 0)
