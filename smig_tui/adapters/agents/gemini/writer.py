"""Provides the writer of a new Gemini CLI session that `gemini --resume ID` continues.

The file is what Gemini CLI 0.61.0 itself appends: a metadata line (`sessionId`, `projectHash`
= sha256 of the project path, `startTime`, `lastUpdated`, `kind: "main"`, `summary`, the picker's
title), then one record per turn (`type` `user` with text parts, or `gemini` with text), named
`session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl` in the project's `chats/` folder: the name
`--resume ID` looks for. The session is dated when it is written (the records keep their own times),
since `gemini --resume latest` and the picker's numbering order sessions by `startTime`: a user who
just migrated means to continue the migration. Tool calls are flattened to text (`core.handoff`), so the API never sees an
unpaired call. The client drops a user turn that starts with `/` or `?` (a slash command) or with
its own context tags on resume; such a turn gets a leading zero-width space, so it is still sent.

The session id is `smig-` and a random UUID. The client takes any id (`--session-id`) and names the
file from its first 8 characters as it does its own; this matters because of its clean-up. Resuming
a session in a later minute than its file name leaves a second file with the same id holding only a
start record, and the next run's clean-up (`general.sessionRetention`, on by default) takes that
file as unreadable and deletes every file whose name ends in the same 8 letters or digits, the
conversation included (seen with 0.61.0, for its own sessions as for smig's). An id whose first 8
characters hold a `-` gives no such suffix, so the clean-up removes the stub alone and the
conversation survives (tested with the real client).
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.gemini.convert import COMMAND_PREFIXES, HARNESS_PREFIXES
from smig_tui.adapters.agents.gemini.layout import (
    PROJECT_ROOT_FILE,
    SESSION_PREFIX,
    chats_dir_for,
    normalize,
    project_hash,
)
from smig_tui.adapters.agents.gemini.scan import scan
from smig_tui.adapters.agents.writer_base import PlainFileWriter, opening_turns
from smig_tui.core.handoff import to_turns
from smig_tui.core.models import Agent, Role, Session
from smig_tui.core.native import ContinueLatest, Destination, Lineage, NativeOutput, PlannedFile, Turn, continue_fact
from smig_tui.core.ports import NativeLayout, NativeRequest
from smig_tui.core.timeline import format_iso, monotonic_times

DEFAULT_MODEL = "gemini-2.5-pro"
"""Model named on written replies when the target is not a Gemini model (Gemini CLI's default Pro)."""
KEEP_AS_PROMPT = "\u200b"
ID_PREFIX = "smig-"
LATEST = "gemini --resume latest"
"""What continues the newest session of a folder in Gemini CLI."""
"""Put before a user turn the client would otherwise take for a command or its own context."""


def new_session_id() -> str:
    """A fresh id whose first 8 characters are not a short id the client's clean-up matches (module note)."""
    return f"{ID_PREFIX}{uuid.uuid4()}"


def latest_session(chats: Path) -> str | None:
    """The session `gemini --resume latest` picks in a project's `chats/` folder: of those with a
    conversation, the one whose last start record is the latest (every resume appends one)."""
    best: tuple[str, str] | None = None
    try:
        entries = sorted(os.scandir(chats), key=lambda entry: entry.name)
    except OSError:
        return None
    for entry in entries:
        if not (entry.name.startswith(SESSION_PREFIX) and entry.name.endswith(".jsonl")) or not entry.is_file():
            continue
        try:
            facts = scan(Path(entry.path), entry.stat().st_size)
        except OSError:
            continue
        if facts is None or not facts.has_conversation or facts.meta.get("kind") == "subagent" or not facts.started:
            continue
        stamp = (facts.started, str(facts.meta.get("sessionId")))
        best = max(best, stamp) if best else stamp
    return best[1] if best else None


def resume_argv(session_id: str) -> tuple[str, ...]:
    """The command line that continues the written session, run in its project folder (Gemini CLI keeps
    sessions per project). 0.61.0 takes the full id as well as `latest` or a list index, which moves."""
    return ("gemini", "--resume", session_id)


def sendable(turn: Turn) -> Turn:
    """A user turn the client will send on resume (not taken for a slash command or its own context)."""
    stripped = turn.text.strip()
    if turn.role is Role.USER and (not stripped or stripped.startswith(COMMAND_PREFIXES + HARNESS_PREFIXES)):
        return Turn(turn.role, KEEP_AS_PROMPT + turn.text, turn.timestamp, turn.source_ids)
    return turn


class GeminiWriter(PlainFileWriter):
    """Builds a Gemini CLI session from migrated turns; the committer writes it (never over a file)."""

    agent = Agent("gemini")

    def __init__(self, home: Path) -> None:
        self._home = home
        self._folders: dict[str, str] = {}
        """The project folder of each session laid out, by path."""

    def lay_out(self, request: NativeRequest) -> NativeLayout:
        """The session (and its project folder's owner file when the folder is new)."""
        turns = to_turns(request.messages, note=request.note)
        planned = self.prepare(
            turns, request.folder, request.lineage, request.title, model=request.target, now=request.now
        )
        for file in planned:
            self._folders[file.path] = request.folder
        return NativeLayout(tuple(planned), tuple(sendable(turn) for turn in turns))

    def settle(self, planned: PlannedFile) -> ContinueLatest | None:
        """`gemini --resume latest` continues the session of the project started (or resumed) last."""
        output = planned.native
        if output is None:
            return None
        folder = self._folders.get(planned.path, "")
        latest = latest_session(Path(planned.path).parent)
        return continue_fact(output, LATEST, folder, latest, " (started or resumed after the migration was written)")

    def read_back(self, output: NativeOutput) -> Session:
        """The session as `smig list` reads it."""
        from smig_tui.adapters.agents.gemini.source import GeminiSource
        from smig_tui.adapters.readback import read_listed

        return read_listed(GeminiSource(self._home), Path(output.path), "Gemini")

    def prepare(
        self,
        turns: tuple[Turn, ...],
        cwd: str,
        lineage: Lineage,
        title: str,
        model: str | None = None,
        now: datetime | None = None,
        session_id: str | None = None,
    ) -> list[PlannedFile]:
        """Lay out the session for `turns` in `cwd`'s project folder (and that folder's owner file, if new)."""
        turns = opening_turns(turns, lineage)
        turns = tuple(sendable(turn) for turn in turns)
        cwd = normalize(cwd)
        session_id = session_id or new_session_id()
        now = now or datetime.now(UTC)
        times = monotonic_times([turn.timestamp for turn in turns], now)
        namespace = uuid.uuid5(uuid.NAMESPACE_URL, f"gemini-session:{session_id}")
        model_name = model if model and model.startswith("gemini") else DEFAULT_MODEL
        written = format_iso(now)  # `--resume latest` and the picker's numbers go by startTime
        lines: list[dict[str, Any]] = [
            {
                "sessionId": session_id,
                "projectHash": project_hash(cwd),
                "startTime": written,
                "lastUpdated": written,
                "kind": "main",
                "summary": title,
                "smigLineage": lineage.as_json(),
            }
        ]
        for number, (turn, moment) in enumerate(zip(turns, times, strict=True), start=1):
            record: dict[str, Any] = {
                "id": str(uuid.uuid5(namespace, f"smig:{number}")),
                "timestamp": format_iso(moment),
            }
            if turn.role is Role.USER:
                record |= {"type": "user", "content": [{"text": turn.text}]}
            else:
                record |= {"type": "gemini", "content": turn.text, "thoughts": [], "model": model_name}
            lines.append(record)
        chats, new_project = chats_dir_for(self._home, cwd)
        path = chats / f"session-{now.strftime('%Y-%m-%dT%H-%M')}-{session_id[:8]}.jsonl"
        data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        native = NativeOutput("gemini", str(path), session_id, resume_argv(session_id), cwd)
        files = [PlannedFile(Destination("gemini"), str(path), data, None, False, native)]
        if new_project:
            # The client adopts a folder whose owner file names the project (its registry does the rest).
            files.insert(0, PlannedFile(Destination("gemini"), str(chats.parent / PROJECT_ROOT_FILE), cwd))
        return files
