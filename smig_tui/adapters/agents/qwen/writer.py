"""Provides the writer of a new Qwen Code session that `qwen --resume ID` and `qwen -c` continue.

The file is what Qwen Code 0.24.4 resumed when written by hand (docs/formats/qwen.md, "the decisive
experiment"): `projects/<project>/chats/<uuid>.jsonl`, one record per turn chained by `parentUuid`
(`type` `user` with `message: {role: "user", parts: [{text}]}`, or `assistant` with
`role: "model"`), each with `sessionId`, `timestamp`, `cwd` and `version`. The file name must be a
bare UUID (the client ignores any other), and the first record's `cwd` must be the project folder
(the client lists a session only for the project its first record names). A `custom_title` record at
the end, as `/rename` appends one, names it in the picker. The file's mtime is the time of writing:
`qwen -c` and the picker order sessions by it, and a user who just migrated means to continue the
migration. Tool calls are flattened to text (`core.handoff`), so the API never sees an unpaired call.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.jsonl_session_writer import JsonlSessionWriter
from smig_tui.adapters.agents.qwen.home import chats_folder
from smig_tui.adapters.agents.writer_base import opening_turns
from smig_tui.core.models import Agent, Role, Session
from smig_tui.core.native import Lineage, NativeOutput, PlannedFile, Turn
from smig_tui.core.timeline import format_iso, monotonic_times

QWEN_VERSION = "0.24.4"
"""The Qwen Code version stamped on written records (the one whose resume was tested end to end)."""
DEFAULT_MODEL = "qwen3-coder-plus"
"""Model named on written replies when the target is not a Qwen model (Qwen Code's default)."""
LATEST = "qwen -c"
"""What continues the newest session of a folder in Qwen Code."""


def resume_argv(session_id: str) -> tuple[str, ...]:
    """The command line that continues the written session, run in its project folder (Qwen Code finds
    a session only among the current project's)."""
    return ("qwen", "--resume", session_id)


class QwenWriter(JsonlSessionWriter):
    """Builds a Qwen Code session from migrated turns; the committer writes it (never over a file).
    `qwen -c` continues the most recently modified session of the folder's project."""

    agent = Agent("qwen")
    latest = LATEST

    def read_back(self, output: NativeOutput) -> Session:
        """The session as `smig list` reads it."""
        from smig_tui.adapters.agents.qwen.source import QwenSource
        from smig_tui.adapters.readback import read_listed

        path = Path(output.path)
        return read_listed(QwenSource(path.parent.parent.parent), path, "Qwen Code")

    def prepare(
        self,
        turns: tuple[Turn, ...],
        cwd: str,
        lineage: Lineage,
        title: str,
        model: str | None = None,
        now: datetime | None = None,
        session_id: str | None = None,
    ) -> PlannedFile:
        """Lay out the session for `turns` in `cwd`'s project folder, ready to be written."""
        turns = opening_turns(turns, lineage)
        session_id = session_id or str(uuid.uuid4())
        now = now or datetime.now(UTC)
        times = monotonic_times([turn.timestamp for turn in turns], now)
        model_name = model if model and model.lower().startswith("qwen") else DEFAULT_MODEL
        base = {"sessionId": session_id, "cwd": cwd, "version": QWEN_VERSION}
        lines: list[dict[str, Any]] = []
        parent: str | None = None
        for number, (turn, moment) in enumerate(zip(turns, times, strict=True), start=1):
            record_uuid = str(uuid.uuid5(uuid.UUID(session_id), f"smig:{number}"))
            record: dict[str, Any] = {
                "uuid": record_uuid,
                "parentUuid": parent,
                **base,
                "timestamp": format_iso(moment),
            }
            if turn.role is Role.USER:
                record |= {"type": "user", "message": {"role": "user", "parts": [{"text": turn.text}]}}
            else:
                record |= {"type": "assistant", "model": model_name}
                record["message"] = {"role": "model", "parts": [{"text": turn.text}]}
            if number == 1:
                record["smigLineage"] = lineage.as_json()
            lines.append(record)
            parent = record_uuid
        lines.append(
            {
                "uuid": str(uuid.uuid5(uuid.UUID(session_id), "smig:title")),
                "parentUuid": parent,
                **base,
                "timestamp": format_iso(now),
                "type": "system",
                "subtype": "custom_title",
                "systemPayload": {"customTitle": title, "titleSource": "manual"},
            }
        )
        path = chats_folder(self._env, cwd) / f"{session_id}.jsonl"
        return self.planned_file(path, lines, session_id, resume_argv(session_id), cwd)
