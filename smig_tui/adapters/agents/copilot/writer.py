"""Provides the writer of a new GitHub Copilot CLI session that `copilot --continue` and `--resume=ID` continue.

The session is what Copilot CLI 1.0.102 resumed when written by hand (docs/formats/copilot.md, "the
decisive experiment"): a folder `session-state/<uuid>/` holding `events.jsonl` (a `session.start`,
then one `user.message` or `assistant.message` per turn, each event with `id`, `timestamp` and
`parentId` chaining it to the one before) and `workspace.yaml` (its folder and the name the picker
lists it by). The client needs no system prompt, usage or turn events and no row in its
`session-store.db` (it adds one when it runs the session). `events.jsonl` is written last and its
mtime is the time of writing: `copilot --continue` picks the session whose events file was modified
last, in any folder. Tool calls are flattened to text (`core.handoff`), so the model never sees an
unpaired call.
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.copilot.home import EVENTS, WORKSPACE, sessions_folder
from smig_tui.adapters.agents.copilot.workspace import render_workspace
from smig_tui.adapters.agents.profile import Env
from smig_tui.adapters.agents.writer_base import PlainFileWriter, opening_turns
from smig_tui.core.capacity import normalise
from smig_tui.core.handoff import to_turns
from smig_tui.core.models import Agent, Role, Session
from smig_tui.core.native import ContinueLatest, Destination, Lineage, NativeOutput, PlannedFile, Turn, continue_fact
from smig_tui.core.ports import NativeLayout, NativeRequest
from smig_tui.core.timeline import format_iso, monotonic_times

COPILOT_VERSION = "1.0.102"
"""The Copilot CLI version stamped on written sessions (the one whose resume was tested end to end)."""
DEFAULT_MODEL = "claude-sonnet-4.5"
"""Model the session names when the target is not one of Copilot's own ids (Copilot CLI's default)."""
CATALOG = {
    normalise(name): name
    for name in ("claude-sonnet-4.5", "claude-opus-4.6", "gpt-5.4", "gpt-5-mini", "claude-sonnet-4")
}
"""Copilot's ids of the models smig knows under other spellings (`claude-sonnet-4-5` is `claude-sonnet-4.5`)."""
LATEST = "copilot --continue"
"""What continues the latest session in Copilot CLI (in any folder)."""


def resume_argv(session_id: str) -> tuple[str, ...]:
    """The command line that continues the written session (run in its folder: the client works there)."""
    return ("copilot", "--resume", session_id)


def copilot_model(target: str | None) -> str:
    """The model id the session names: the target in Copilot's spelling, else its default."""
    return CATALOG.get(normalise(target), DEFAULT_MODEL) if target else DEFAULT_MODEL


def newest_session(sessions: Path) -> str | None:
    """The session whose `events.jsonl` was modified last, in any folder: what `copilot --continue` picks."""
    newest: tuple[float, str] | None = None
    try:
        entries = list(os.scandir(sessions))
    except OSError:
        return None
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            stamp = (os.stat(os.path.join(entry.path, EVENTS)).st_mtime, entry.name)
        except OSError:
            continue
        newest = max(newest, stamp) if newest else stamp
    return newest[1] if newest else None


class CopilotWriter(PlainFileWriter):
    """Builds a Copilot CLI session from migrated turns; the committer writes it (never over a file)."""

    agent = Agent("copilot")

    def __init__(self, env: Env = None) -> None:
        self._env = env
        self._folders: dict[str, str] = {}
        """The project folder of each session laid out, by path."""

    def lay_out(self, request: NativeRequest) -> NativeLayout:
        """`workspace.yaml`, then the session's events, the lineage note leading the first user turn."""
        turns = to_turns(request.messages, note=request.note)
        workspace, events = self.prepare(
            turns, request.folder, request.lineage, request.title, model=request.target, now=request.now
        )
        self._folders[events.path] = request.folder
        return NativeLayout((workspace, events), turns)

    def settle(self, planned: PlannedFile) -> ContinueLatest | None:
        """`copilot --continue` continues the session whose events were modified last, wherever it ran."""
        output = planned.native
        if output is None:
            return None
        folder = self._folders.get(planned.path, "")
        newest = newest_session(Path(planned.path).parent.parent)
        return continue_fact(output, LATEST, folder, newest, " (modified after the migration was written)")

    def read_back(self, output: NativeOutput) -> Session:
        """The session as `smig list` reads it."""
        from smig_tui.adapters.agents.copilot.source import CopilotSource
        from smig_tui.adapters.readback import ReadBackError

        path = Path(output.path)
        source = CopilotSource(path.parent.parent)
        found = source.describe(path, lambda _warning: None)
        if found is None:
            raise ReadBackError(f"The written Copilot CLI session {output.path} cannot be read back.")
        return source.load(found, lambda _warning: None)

    def prepare(
        self,
        turns: tuple[Turn, ...],
        cwd: str,
        lineage: Lineage,
        title: str,
        model: str | None = None,
        now: datetime | None = None,
        session_id: str | None = None,
    ) -> tuple[PlannedFile, PlannedFile]:
        """Lay out `workspace.yaml` and `events.jsonl` of a new session for `turns` in `cwd`."""
        turns = opening_turns(turns, lineage)
        session_id = session_id or str(uuid.uuid4())
        now = now or datetime.now(UTC)
        times = monotonic_times([turn.timestamp for turn in turns], now)
        model_name = copilot_model(model)
        namespace = uuid.UUID(session_id)
        events: list[dict[str, Any]] = []

        def event(kind: str, payload: dict[str, Any], moment: datetime) -> None:
            events.append(
                {
                    "type": kind,
                    "data": payload,
                    "id": str(uuid.uuid5(namespace, f"smig:{len(events)}")),
                    "timestamp": format_iso(moment),
                    "parentId": events[-1]["id"] if events else None,
                }
            )

        start = format_iso(times[0])
        event(
            "session.start",
            {
                "sessionId": session_id,
                "version": 1,
                "producer": "copilot-agent",
                "copilotVersion": COPILOT_VERSION,
                "startTime": start,
                "selectedModel": model_name,
                "context": {"cwd": cwd},
                "smigLineage": lineage.as_json(),
            },
            times[0],
        )
        for number, (turn, moment) in enumerate(zip(turns, times, strict=True)):
            if turn.role is Role.USER:
                event("user.message", {"content": turn.text}, moment)
            else:
                message_id = str(uuid.uuid5(namespace, f"smig:message:{number}"))
                payload = {"messageId": message_id, "content": turn.text, "toolRequests": [], "model": model_name}
                event("assistant.message", payload, moment)
        folder = sessions_folder(self._env) / session_id
        workspace = render_workspace(
            {
                "id": session_id,
                "cwd": cwd,
                "name": title,
                "user_named": False,
                "summary_count": 0,
                "fork_count": 0,
                "created_at": start,
                "updated_at": events[-1]["timestamp"],
            }
        )
        # Compact, as Copilot writes its events.
        data = "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)
        native = NativeOutput("copilot", str(folder / EVENTS), session_id, resume_argv(session_id), cwd)
        return (
            PlannedFile(Destination("copilot"), str(folder / WORKSPACE), workspace, None, False),
            PlannedFile(Destination("copilot"), str(folder / EVENTS), data, None, False, native),
        )
