"""Provides a generated Qwen Code home for the benchmark: one session per corpus entry, of its size.

The files have the shape Qwen Code 0.24.4 writes (docs/formats/qwen.md): `projects/<cwd, every
character but a letter or digit as ->/chats/<uuid>.jsonl`, records chained by `parentUuid`, each
prompt followed by an `attribution_snapshot`, each reply by a `ui_telemetry` record, replies with a
shell `functionCall` and `usageMetadata`, results as `tool_result` records with `toolCallResult`.
Tool output pads each file to its entry's size.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from smig_devtools.corpus import SessionEntry
from smig_devtools.home_corpus import MIN_SIZE, Text, mark, reusable

VERSION = 1
CLIENT = "0.24.4"
MODEL = "qwen3-coder-plus"


def generate_qwen(home: Path, entries: list[SessionEntry], seed: int = 7) -> int:
    """Write one session per entry under `home/.qwen/projects/`; return how many (reused when made alike)."""
    wanted = {"version": VERSION, "seed": seed, "sessions": [[e.cwd, e.size] for e in entries]}
    if reusable(home, wanted):
        return len(entries)
    text = Text(random.Random(seed))
    for number, entry in enumerate(entries):
        session_id = text.uuid4()
        chats = home / ".qwen" / "projects" / re.sub(r"[^a-zA-Z0-9]", "-", entry.cwd) / "chats"
        chats.mkdir(parents=True, exist_ok=True)
        records = _session(session_id, entry, number, text)
        (chats / f"{session_id}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    mark(home, wanted)
    return len(entries)


def _session(session_id: str, entry: SessionEntry, number: int, text: Text) -> list[dict[str, Any]]:
    """The records of one session of about the entry's size: a prompt, shell calls with output, a reply."""
    stamp = f"2026-11-{1 + number % 28:02d}T10:00:00.000Z"
    records: list[dict[str, Any]] = []
    written = 0

    def add(kind: str, **fields: Any) -> None:
        nonlocal written
        record = {
            "uuid": text.uuid4(),
            "parentUuid": records[-1]["uuid"] if records else None,
            "sessionId": session_id,
            "timestamp": stamp,
            "type": kind,
            "provenance": {"user": "real_user", "assistant": "assistant_output"}.get(kind, kind),
            "cwd": entry.cwd,
            "version": CLIENT,
            **fields,
        }
        records.append(record)
        written += len(json.dumps(record))

    add("user", message={"role": "user", "parts": [{"text": entry.prompt or f"Task {number}"}]})
    add(
        "system",
        subtype="attribution_snapshot",
        systemPayload={"snapshot": {"type": "attribution-snapshot", "version": 1, "surface": "cli", "fileStates": {}}},
    )
    size, turn = max(entry.size, MIN_SIZE), 0
    while written < size:
        turn += 1
        call_id = f"call_{turn:024d}"
        output = text.cut(text.turn_length(size, written))
        _reply(
            add,
            [{"functionCall": {"id": call_id, "name": "run_shell_command", "args": {"command": f"step {turn}"}}}],
            turn,
        )
        add(
            "tool_result",
            message={
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": call_id, "name": "run_shell_command", "response": {"output": output}}}
                ],
            },
            toolCallResult={
                "callId": call_id,
                "status": "success",
                "resultDisplay": {"type": "shell_result", "exitCode": 0, "truncated": False},
                "executionStatus": "success",
            },
        )
    _reply(add, [{"text": "Done."}], turn + 1)
    return records


def _reply(add: Any, parts: list[dict[str, Any]], turn: int) -> None:
    """A model reply, after the telemetry record the client writes before it."""
    tokens = {"input_token_count": 1000 * turn, "output_token_count": 40, "total_token_count": 1000 * turn + 40}
    add("system", subtype="ui_telemetry", systemPayload={"uiEvent": {"event.name": "qwen-code.api_response", **tokens}})
    add(
        "assistant",
        model=MODEL,
        message={"role": "model", "parts": parts},
        usageMetadata={
            "promptTokenCount": 1000 * turn,
            "candidatesTokenCount": 40,
            "thoughtsTokenCount": 0,
            "totalTokenCount": 1000 * turn + 40,
            "cachedContentTokenCount": 0,
        },
        contextWindowSize=1_000_000,
    )
