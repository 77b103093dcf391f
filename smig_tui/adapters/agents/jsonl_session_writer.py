"""Provides `JsonlSessionWriter`: the steps of a writer whose session is one JSON Lines file in a project's
folder and whose client continues the latest by file time (Pi, Qwen Code), so each keeps only its records."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.profile import Env
from smig_tui.adapters.agents.project_files import newest_transcript
from smig_tui.adapters.agents.writer_base import PlainFileWriter
from smig_tui.core.handoff import to_turns
from smig_tui.core.models import Agent
from smig_tui.core.native import ContinueLatest, Destination, Lineage, NativeOutput, PlannedFile, Turn, continue_fact
from smig_tui.core.ports import NativeLayout, NativeRequest


class JsonlSessionWriter(PlainFileWriter, ABC):
    """Lays a migration out as one session file and says what the client's "continue the latest" picks
    in its folder; a subclass names its `agent` and `latest` command and lays out the records (`prepare`)."""

    agent: Agent
    latest: str
    """The client's "continue the latest" command (`pi -c`)."""

    def __init__(self, env: Env = None) -> None:
        self._env = env
        self._folders: dict[str, str] = {}
        """The project folder of each session laid out, by path."""

    @abstractmethod
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
        """Lay out the session for `turns` in `cwd`, ready to be written."""

    def lay_out(self, request: NativeRequest) -> NativeLayout:
        """The session, the lineage note leading the first user turn."""
        turns = to_turns(request.messages, note=request.note)
        planned = self.prepare(
            turns, request.folder, request.lineage, request.title, model=request.target, now=request.now
        )
        self._folders[planned.path] = request.folder
        return NativeLayout((planned,), turns)

    def settle(self, planned: PlannedFile) -> ContinueLatest | None:
        """The client continues the most recently modified session file of the written one's folder."""
        output = planned.native
        if output is None:
            return None
        folder = self._folders.get(planned.path, "")
        newest = self.newest_session(Path(planned.path).parent)
        return continue_fact(output, self.latest, folder, newest, " (modified after the migration was written)")

    def newest_session(self, folder: Path) -> str | None:
        """The id of the most recently modified session of `folder` (a file named `<id>.jsonl`)."""
        return newest_transcript(folder)

    def planned_file(
        self, path: Path, records: Iterable[dict[str, Any]], session_id: str, argv: tuple[str, ...], cwd: str
    ) -> PlannedFile:
        """The session file of `records`, one compact JSON object a line as these clients write them,
        which `argv` resumes in `cwd`."""
        data = "".join(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n" for record in records)
        native = NativeOutput(self.agent.value, str(path), session_id, argv, cwd)
        return PlannedFile(Destination(self.agent.value), str(path), data, None, False, native)
