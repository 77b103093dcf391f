"""Builders for search tests: rollouts written the way Codex writes them, grown line by line."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

SESSION_ID = "01a30000-0000-7000-8000-00000000a001"


def codex_line(kind: str, payload: dict[str, object], stamp: str) -> str:
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload}, ensure_ascii=False) + "\n"


def message_line(role: str, text: str, stamp: str = "2026-11-30T10:00:01.000Z") -> str:
    part = "input_text" if role == "user" else "output_text"
    return codex_line(
        "response_item", {"type": "message", "role": role, "content": [{"type": part, "text": text}]}, stamp
    )


def tool_lines(command: str, output: str, call_id: str, stamp: str = "2026-11-30T10:00:02.000Z") -> str:
    call = {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": command}), "call_id": call_id}
    result = {"type": "function_call_output", "call_id": call_id, "output": output}
    return codex_line("response_item", call, stamp) + codex_line("response_item", result, stamp)


def write_rollout(
    codex_home: Path,
    turns: list[tuple[str, str]],
    session_id: str = SESSION_ID,
    cwd: str = "/home/user/proj",
    day: str = "2026-11-30",
) -> Path:
    """A Codex rollout with `turns` of (role, text), in `$CODEX_HOME/sessions/`."""
    year, month, date = day.split("-")
    folder = codex_home / "sessions" / year / month / date
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-{day}T10-00-00-{session_id}.jsonl"
    meta = {
        "id": session_id,
        "timestamp": f"{day}T10:00:00.000Z",
        "cwd": cwd,
        "originator": "codex_cli_rs",
        "cli_version": "0.171.0",
        "source": "cli",
        "model_provider": "openai",
    }
    lines = [codex_line("session_meta", meta, f"{day}T10:00:00.000Z")]
    lines += [message_line(role, text, f"{day}T10:00:0{i % 10}.000Z") for i, (role, text) in enumerate(turns)]
    path.write_text("".join(lines), encoding="utf-8")
    return path


LINEAGE = Path(__file__).parents[1] / "fixtures" / "real" / "codex" / "fork_lineage"
"""A real Codex fork lineage: a thread, its fork, and the fork's fork, with the files' times."""


def install_lineage(codex_home: Path) -> None:
    """Copy the fork lineage into `codex_home`, with the times the real files had."""
    install_real_codex(codex_home, LINEAGE)


def install_real_codex(codex_home: Path, scenario: Path) -> None:
    """Copy one scenario of the real Codex threads into `codex_home`, with the times the real files had."""
    shutil.copytree(scenario / "codex_home", codex_home, dirs_exist_ok=True)
    for rel, mtime in json.loads((scenario / "expected.json").read_text(encoding="utf-8"))["mtimes"].items():
        os.utime(codex_home / rel, (mtime, mtime))
