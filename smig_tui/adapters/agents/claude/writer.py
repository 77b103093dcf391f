"""Provides the writer of a new Claude Code transcript that `claude --resume ID` can continue.

The shape follows FORMATS.md 2.10: the first line is a `user` record with `cwd`; records are chained
by `parentUuid`; user and assistant turns strictly alternate; no tool_use, no thinking blocks; a
`custom-title` record at the end names it in the picker. The file's mtime is the time of writing:
`claude -c` and the picker order sessions by it, and a user who just migrated means to continue the
migration (the records inside keep their own times).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.claude.home import ClaudeHome
from smig_tui.adapters.agents.project_files import newest_transcript, sanitize_project
from smig_tui.adapters.agents.writer_base import PlainFileWriter, opening_turns
from smig_tui.core.handoff import to_turns
from smig_tui.core.models import Agent, Role, Session, SessionInfo
from smig_tui.core.native import ContinueLatest, Destination, Lineage, NativeOutput, PlannedFile, Turn, continue_fact
from smig_tui.core.ports import NativeLayout, NativeRequest
from smig_tui.core.timeline import format_iso, monotonic_times

CLAUDE_VERSION = "2.1.197"
"""The Claude Code version stamped on written records (one whose resume was tested end to end)."""
ASSISTANT_MODEL = "claude-sonnet-4-5"
"""Model named on written assistant records when the target is not a Claude model."""
MAX_SANITIZED = 200
LATEST = "claude -c"
"""What continues the newest session of a folder in Claude Code."""


def path_hash(text: str) -> str:
    """The suffix Claude Code appends to a folder name over 200 characters.

    A 32-bit string hash (`h = h * 31 + code unit`, over UTF-16 code units), made positive and
    written in base 36: checked against the folder Claude Code 2.1.197 created for a long cwd.
    """
    value = 0
    raw = text.encode("utf-16-le", "surrogatepass")
    for unit in (raw[i] | raw[i + 1] << 8 for i in range(0, len(raw), 2)):
        value = (value * 31 + unit) & 0xFFFFFFFF
    signed = value - (1 << 32) if value >= 1 << 31 else value
    value = abs(signed)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if not value:
            return out


def project_dir(home: ClaudeHome, cwd: str) -> Path:
    """The folder Claude Code keeps `cwd`'s transcripts in, reusing an existing long-name folder."""
    if home.project_dir_name:
        return home.projects / home.project_dir_name  # CLAUDE_CODE_PROJECT_DIR_NAME
    name = sanitize_project(cwd)
    if len(name) <= MAX_SANITIZED:
        return home.projects / name
    prefix = name[:MAX_SANITIZED] + "-"
    if home.projects.is_dir():
        # A folder Claude already made for this cwd is the truth, whatever its hash.
        for existing in sorted(home.projects.iterdir()):
            if existing.name.startswith(prefix) and existing.is_dir():
                return existing
    return home.projects / (prefix + path_hash(cwd))


def resume_argv(session_id: str) -> tuple[str, ...]:
    """The command line that continues the written session, run in its project folder (Claude Code
    looks the id up among the sessions of the folder it starts in)."""
    return ("claude", "--resume", session_id)


class ClaudeWriter(PlainFileWriter):
    """Builds a Claude Code transcript from migrated turns; the service writes it (never over a file)."""

    agent = Agent("claude")

    def __init__(self, home: ClaudeHome) -> None:
        self._home = home
        self._folders: dict[str, str] = {}
        """The project folder of each transcript laid out, by path."""

    def lay_out(self, request: NativeRequest) -> NativeLayout:
        """The transcript, the lineage note leading the first user turn."""
        turns = to_turns(request.messages, note=request.note)
        planned = self.prepare(
            turns,
            request.folder,
            request.lineage,
            request.title,
            model=request.target,
            git_branch=request.git_branch,
            now=request.now,
        )
        self._folders[planned.path] = request.folder
        return NativeLayout((planned,), turns)

    def settle(self, planned: PlannedFile) -> ContinueLatest | None:
        """`claude -c` continues the most recently modified transcript of the folder's project folder."""
        output = planned.native
        if output is None:
            return None
        folder = self._folders.get(planned.path, "")
        newest = newest_transcript(Path(planned.path).parent)
        return continue_fact(output, LATEST, folder, newest, " (modified after the migration was written)")

    def read_back(self, output: NativeOutput) -> Session:
        """The transcript as `smig list` reads it."""
        from smig_tui.adapters.agents.claude.load import load_session

        info = SessionInfo(id=output.session_id, agent=Agent("claude"), path=output.path)
        return load_session(info, lambda _warning: None)

    def prepare(
        self,
        turns: tuple[Turn, ...],
        cwd: str,
        lineage: Lineage,
        title: str,
        model: str | None = None,
        git_branch: str | None = None,
        now: datetime | None = None,
        session_id: str | None = None,
    ) -> PlannedFile:
        """Lay out the transcript for `turns` in `cwd`'s project folder, ready to be written."""
        turns = opening_turns(turns, lineage)
        session_id = session_id or str(uuid.uuid4())
        now = now or datetime.now(UTC)
        times = monotonic_times([turn.timestamp for turn in turns], now)
        base = {
            "isSidechain": False,
            "userType": "external",
            "cwd": cwd,
            "sessionId": session_id,
            "version": CLAUDE_VERSION,
            "gitBranch": git_branch or "",
            "entrypoint": "cli",
        }
        model_name = model if model and model.startswith("claude") else ASSISTANT_MODEL
        lines: list[dict[str, Any]] = []
        parent: str | None = None
        for number, (turn, moment) in enumerate(zip(turns, times, strict=True), start=1):
            record_uuid = str(uuid.uuid5(uuid.UUID(session_id), f"smig:{number}"))
            record = {
                "parentUuid": parent,
                **base,
                **_body(turn, number, model_name),
                "uuid": record_uuid,
                "timestamp": format_iso(moment),
            }
            if number == 1:
                record["smigLineage"] = lineage.as_json()
            lines.append(record)
            parent = record_uuid
        lines.append({"type": "custom-title", "customTitle": title, "sessionId": session_id})
        path = project_dir(self._home, cwd) / f"{session_id}.jsonl"
        # Compact, as Claude Code writes its records (its own tools, and smig's tail scan, search bytes).
        data = "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)
        native = NativeOutput("claude", str(path), session_id, resume_argv(session_id), cwd)
        return PlannedFile(Destination("claude"), str(path), data, None, False, native)


def _body(turn: Turn, number: int, model: str) -> dict[str, Any]:
    """The `type` and `message` of one record."""
    if turn.role is Role.USER:
        return {"type": "user", "message": {"role": "user", "content": turn.text}}
    return {
        "type": "assistant",
        "message": {
            "id": f"msg_smig_{number:06d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": turn.text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        },
    }
