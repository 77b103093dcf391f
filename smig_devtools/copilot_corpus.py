"""Provides a generated GitHub Copilot CLI home for the benchmark: one session per corpus entry, of its size.

The folders have the shape Copilot CLI 1.0.102 writes (docs/formats/copilot.md):
`session-state/<uuid>/events.jsonl` and `workspace.yaml`. The events: `session.start`, each prompt as
`user.message` with its `transformedContent`, the system prompt the client records in the file
(`system.message`), `assistant.turn_start`/`turn_end`, `session.usage_record`, replies with
`toolRequests`, `tool.execution_start` and `tool.execution_complete` with the output, and
`session.shutdown`. Tool output pads each file to its entry's size.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from smig_devtools.corpus import SessionEntry
from smig_devtools.home_corpus import MIN_SIZE, Text, mark, reusable

VERSION = 1
CLIENT = "1.0.102"
MODEL = "claude-sonnet-4.5"
SYSTEM_PROMPT = 20_000
"""About the system prompt's size Copilot records in every run (23 KB seen); a small session holds less."""


def generate_copilot(home: Path, entries: list[SessionEntry], seed: int = 7) -> int:
    """Write one session per entry under `home/.copilot/session-state/`; return how many (reused when made alike)."""
    wanted = {"version": VERSION, "seed": seed, "sessions": [[e.cwd, e.size] for e in entries]}
    if reusable(home, wanted):
        return len(entries)
    text = Text(random.Random(seed))
    for number, entry in enumerate(entries):
        session_id = text.uuid4()
        folder = home / ".copilot" / "session-state" / session_id
        folder.mkdir(parents=True)
        stamp = f"2026-11-{1 + number % 28:02d}T10:00:00.000Z"
        prompt = entry.prompt or f"Task {number}"
        events = _events(session_id, entry.cwd, prompt, max(entry.size, MIN_SIZE), stamp, text)
        (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
        name = json.dumps(prompt.splitlines()[0][:80] if prompt.strip() else f"Task {number}")
        (folder / "workspace.yaml").write_text(
            f"id: {session_id}\ncwd: {entry.cwd}\nclient_name: github/cli\nname: {name}\nuser_named: false\n"
            f"summary_count: 0\nfork_count: 0\ncreated_at: {stamp}\nupdated_at: {stamp}\n",
            encoding="utf-8",
        )
    mark(home, wanted)
    return len(entries)


def _events(session_id: str, cwd: str, prompt: str, size: int, stamp: str, text: Text) -> list[dict[str, Any]]:
    """The events of one session of about `size` bytes."""
    events: list[dict[str, Any]] = []
    written = 0

    def add(kind: str, **data: Any) -> None:
        nonlocal written
        event = {
            "type": kind,
            "data": data,
            "id": text.uuid4(),
            "timestamp": stamp,
            "parentId": events[-1]["id"] if events else None,
        }
        events.append(event)
        written += len(json.dumps(event))

    add(
        "session.start",
        sessionId=session_id,
        version=1,
        producer="copilot-agent",
        copilotVersion=CLIENT,
        startTime=stamp,
        selectedModel=MODEL,
        context={"cwd": cwd},
    )
    add(
        "user.message",
        content=prompt,
        transformedContent=f"<current_datetime>{stamp}</current_datetime>\n\n{prompt}",
        messageId=text.uuid4(),
        turnId="0",
    )
    add("system.message", role="system", content=text.cut(min(SYSTEM_PROMPT, size // 4)))
    add("assistant.turn_start", turnId="0")
    turn = 0
    while written < size:
        turn += 1
        call_id = f"toolu_{turn:024d}"
        arguments = {"command": f"step {turn}", "description": f"Step {turn}"}
        usage = {"model": MODEL, "inputTokens": 1000 * turn, "outputTokens": 40, "cacheReadTokens": 0}
        add("session.usage_record", usage=usage)
        add(
            "assistant.message",
            messageId=text.uuid4(),
            model=MODEL,
            content=f"Step {turn}.",
            toolRequests=[{"toolCallId": call_id, "name": "bash", "arguments": arguments, "type": "function"}],
            turnId="0",
        )
        add("tool.execution_start", toolCallId=call_id, toolName="bash", arguments=arguments, turnId="0")
        add(
            "tool.execution_complete",
            toolCallId=call_id,
            model=MODEL,
            turnId="0",
            success=True,
            result={"content": text.cut(text.turn_length(size, written))},
        )
    add("assistant.message", messageId=text.uuid4(), model=MODEL, content="Done.", toolRequests=[], turnId="0")
    add("assistant.turn_end", turnId="0")
    add("session.shutdown", accountingSnapshot={"totalUserRequests": 1, "totalApiDurationMs": 20 * turn})
    return events
