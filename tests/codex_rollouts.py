"""Builds small Codex rollouts for tests: a session run in a given folder whose turns are given texts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_rollout(codex_home: Path, cwd: Path, session_id: str, texts: list[str]) -> None:
    """A Codex rollout run in `cwd` whose turns alternate user and assistant with `texts`."""
    stamp = "2026-11-20T10:00:00.000Z"
    lines: list[dict[str, Any]] = [
        {
            "timestamp": stamp,
            "type": "session_meta",
            "payload": {
                "id": session_id,
                "timestamp": stamp,
                "cwd": str(cwd),
                "originator": "codex-tui",
                "cli_version": "0.128.0",
                "source": "cli",
                "model_provider": "openai",
            },
        },
        {
            "timestamp": stamp,
            "type": "turn_context",
            "payload": {"turn_id": "t1", "cwd": str(cwd), "approval_policy": "never", "model": "gpt-5.5"},
        },
    ]
    for n, text in enumerate(texts):
        role, kind = ("user", "input_text") if n % 2 == 0 else ("assistant", "output_text")
        item = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        lines.append({"timestamp": stamp, "type": "response_item", "payload": item})
    folder = codex_home / "sessions" / "2026" / "11" / "20"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-2026-11-20T10-00-00-{session_id}.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
