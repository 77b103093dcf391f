"""Provides a generated Gemini CLI home for the benchmark: one session per Codex thread, of its size.

The files have the shape Gemini CLI 0.61.0 writes (a metadata line, the `<session_context>` block in
a `$set`, prompts, replies with tool calls whose results it records twice, `$set` time stamps), so
the listing row measures the reader on what users have; each file is padded with tool output to the
size of the Codex thread it mirrors, so the two listing rows read the same bytes.
"""

from __future__ import annotations

import json
import random
import shutil
import uuid
from pathlib import Path
from typing import Any

from smig_devtools.corpus import SessionEntry

VERSION = 2
"""2: tool output is cut from one random text (drawing every character made a 500 MB session take minutes)."""


def generate_gemini(home: Path, entries: list[SessionEntry], seed: int = 7) -> int:
    """Write one Gemini session per entry under `home/.gemini/tmp/`; return how many (reused when made alike)."""
    marker = home / "corpus.json"
    wanted = {"version": VERSION, "seed": seed, "sizes": [entry.size for entry in entries]}
    if marker.is_file() and json.loads(marker.read_text(encoding="utf-8")) == wanted:
        return len(entries)
    if home.exists():
        if not marker.is_file():
            raise ValueError(f"{home} exists and was not made by the corpus generator; refusing to replace it.")
        shutil.rmtree(home)
    rng = random.Random(seed)
    noise = "".join(rng.choice("abcdefghij klmnop\n") for _ in range(1 << 18))
    tmp = home / ".gemini" / "tmp"
    projects: dict[str, str] = {}
    for number, entry in enumerate(entries):
        cwd = entry.cwd or f"/home/user/project-{number % 40}"
        slug = projects.setdefault(cwd, f"project-{len(projects)}")
        folder = tmp / slug
        (folder / "chats").mkdir(parents=True, exist_ok=True)
        (folder / ".project_root").write_text(cwd, encoding="utf-8")
        session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        path = folder / "chats" / f"session-2026-11-{1 + number % 28:02d}T10-00-{session_id[:8]}.jsonl"
        path.write_text(
            _session(session_id, cwd, entry.prompt or f"Task {number}", max(entry.size, 2_000), rng, noise),
            encoding="utf-8",
        )
    (home / ".gemini" / "projects.json").write_text(json.dumps({"projects": projects}), encoding="utf-8")
    marker.write_text(json.dumps(wanted), encoding="utf-8")
    return len(entries)


def _session(session_id: str, cwd: str, prompt: str, size: int, rng: random.Random, noise: str) -> str:
    """One session of about `size` bytes: prompt, tool calls with padded output, a final reply."""
    stamp = "2026-11-20T10:00:00.000Z"
    lines: list[dict[str, Any]] = [
        {
            "sessionId": session_id,
            "projectHash": uuid.uuid5(uuid.NAMESPACE_URL, cwd).hex * 2,
            "startTime": stamp,
            "lastUpdated": stamp,
            "kind": "main",
        },
        {
            "$set": {
                "messages": [
                    {
                        "id": "ctx",
                        "timestamp": stamp,
                        "type": "user",
                        "content": [{"text": f"<session_context>\nWorkspace: {cwd}\n</session_context>"}],
                    }
                ]
            }
        },
        {
            "id": str(uuid.UUID(int=rng.getrandbits(128))),
            "timestamp": stamp,
            "type": "user",
            "content": [{"text": prompt}],
        },
    ]
    written = sum(len(json.dumps(line)) for line in lines)
    turn = 0
    while written < size:
        turn += 1
        length = min(12_000, max(200, (size - written) // 2))
        start = rng.randrange(len(noise) - length)
        output = noise[start : start + length]
        call_id = f"run_shell_command__{turn}"
        response = {"functionResponse": {"id": call_id, "name": "run_shell_command", "response": {"output": output}}}
        reply_id = str(uuid.UUID(int=rng.getrandbits(128)))
        reply = {
            "id": reply_id,
            "timestamp": stamp,
            "type": "gemini",
            "content": f"Step {turn}.",
            "thoughts": [],
            "tokens": {
                "input": 1000 * turn,
                "output": 40,
                "cached": 0,
                "thoughts": 0,
                "tool": 0,
                "total": 1000 * turn + 40,
            },
            "model": "gemini-2.5-pro",
            "toolCalls": [
                {
                    "id": call_id,
                    "name": "run_shell_command",
                    "args": {"command": f"step {turn}"},
                    "result": [response],
                    "status": "success",
                    "timestamp": stamp,
                }
            ],
        }
        follow = {
            "id": str(uuid.UUID(int=rng.getrandbits(128))),
            "timestamp": stamp,
            "type": "user",
            "content": [response],
        }
        for line in (reply, follow, {"$set": {"lastUpdated": stamp}}):
            lines.append(line)
            written += len(json.dumps(line))
    lines.append(
        {
            "id": str(uuid.UUID(int=rng.getrandbits(128))),
            "timestamp": stamp,
            "type": "gemini",
            "content": "Done.",
            "thoughts": [],
            "model": "gemini-2.5-pro",
            "tokens": {
                "input": 1000 * (turn + 1),
                "output": 5,
                "cached": 0,
                "thoughts": 0,
                "tool": 0,
                "total": 1000 * (turn + 1) + 5,
            },
        }
    )
    return "".join(json.dumps(line) + "\n" for line in lines)
