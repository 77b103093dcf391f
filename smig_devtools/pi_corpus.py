"""Provides a generated Pi home for the benchmark: one session per corpus entry, of its size.

The files have the shape Pi 0.73.1 writes (docs/formats/pi.md): `sessions/--<cwd, / as ->--/<start
time>_<uuid>.jsonl`, a `session` header (version 3), `model_change` and `thinking_level_change`
entries, then `message` entries (user, assistant with `toolCall`s and usage, `toolResult`) chained
by `parentId` into a tree: one session in four has a branch the user left (its last reply
answered again), so the reader walks the tree back from the leaf. Tool output pads each file to its size.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from smig_devtools.corpus import SessionEntry
from smig_devtools.home_corpus import MIN_SIZE, Text, mark, reusable

VERSION = 1
BASE_MS = 1_795_600_000_000
MODEL = {"api": "openai-completions", "provider": "fake", "model": "fake-coder"}


def generate_pi(home: Path, entries: list[SessionEntry], seed: int = 7) -> int:
    """Write one session per entry under `home/.pi/agent/sessions/`; return how many (reused when made alike)."""
    wanted = {"version": VERSION, "seed": seed, "sessions": [[e.cwd, e.size] for e in entries]}
    if reusable(home, wanted):
        return len(entries)
    rng = random.Random(seed)
    text = Text(rng)
    for number, entry in enumerate(entries):
        session_id = text.uuid4()
        trimmed = entry.cwd.lstrip("/").replace("/", "-").replace("\\", "-").replace(":", "-")
        folder = home / ".pi" / "agent" / "sessions" / f"--{trimmed}--"
        folder.mkdir(parents=True, exist_ok=True)
        started = f"2026-11-{1 + number % 28:02d}T10-00-00-000Z"
        entries_of = _session(session_id, entry, number, text, branch=rng.random() < 0.25)
        (folder / f"{started}_{session_id}.jsonl").write_text(
            "".join(json.dumps(e) + "\n" for e in entries_of), encoding="utf-8"
        )
    mark(home, wanted)
    return len(entries)


def _session(session_id: str, entry: SessionEntry, number: int, text: Text, branch: bool) -> list[dict[str, Any]]:
    """The header and entries of one session of about the entry's size."""
    stamp = f"2026-11-{1 + number % 28:02d}T10:00:00.000Z"
    moment = BASE_MS + number * 86_400_000
    out: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": session_id, "timestamp": stamp, "cwd": entry.cwd}
    ]
    written = len(json.dumps(out[0]))
    leaf: str | None = None

    def add(kind: str, **fields: Any) -> str:
        nonlocal written, leaf
        item = {"type": kind, "id": text.uuid4()[:8], "parentId": leaf, "timestamp": stamp, **fields}
        out.append(item)
        written += len(json.dumps(item))
        leaf = item["id"]
        return str(item["id"])

    def message(role: str, content: list[dict[str, Any]], **fields: Any) -> str:
        return add("message", message={"role": role, "content": content, **fields, "timestamp": moment})

    def reply(content: list[dict[str, Any]], turn: int, stop: str) -> str:
        usage = {"input": 1000 * turn, "output": 40, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1000 * turn + 40}
        return message("assistant", content, **MODEL, usage=usage, stopReason=stop)

    add("model_change", provider="fake", modelId="fake-coder")
    add("thinking_level_change", thinkingLevel="off")
    message("user", [{"type": "text", "text": entry.prompt or f"Task {number}"}])
    size, turn, fork_at = max(entry.size, MIN_SIZE), 0, None
    while written < size:
        turn += 1
        call_id = f"call_{turn:024d}"
        reply(
            [{"type": "toolCall", "id": call_id, "name": "bash", "arguments": {"command": f"step {turn}"}}],
            turn,
            "toolUse",
        )
        output = text.cut(text.turn_length(size, written))
        done = message(
            "toolResult", [{"type": "text", "text": output}], toolCallId=call_id, toolName="bash", isError=False
        )
        fork_at = done
    if branch and fork_at is not None:
        reply([{"type": "text", "text": "An answer the user went back from."}], turn + 1, "stop")
        leaf = fork_at  # the user went back to the last result and had it answered again
    reply([{"type": "text", "text": "Done."}], turn + 1, "stop")
    return out
