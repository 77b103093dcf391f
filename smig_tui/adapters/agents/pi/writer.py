"""Provides the writer of a new Pi session that `pi --session ID`, `pi -c` and Pi's picker continue.

The file is what Pi 0.73.1 resumed when written by hand (docs/formats/pi.md, "the decisive
experiment"): `sessions/--<project>--/<start time>_<uuid>.jsonl`, a `session` header (version 3,
the project folder as `cwd`), then one `message` entry per turn chained by `parentId` (8-hex ids).
smig adds a `custom` entry first (`customType: smig-lineage`: Pi keeps an extension's data so and
never sends it) and a `session_info` entry last (the name `/name` gives, shown by the picker). Every
message carries the time of writing: Pi's picker orders sessions by their last message's time and
`pi -c` by the file's, and a user who just migrated means to continue the migration. Tool calls are
flattened to text (`core.handoff`), so the API never sees an unpaired call.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.jsonl_session_writer import JsonlSessionWriter
from smig_tui.adapters.agents.pi.home import agent_folder, project_sessions, session_folders
from smig_tui.adapters.agents.profile import Env
from smig_tui.adapters.agents.writer_base import opening_turns
from smig_tui.core.errors import SmigError
from smig_tui.core.models import Agent, Role, Session
from smig_tui.core.native import ContinueLatest, Lineage, NativeOutput, PlannedFile, Turn
from smig_tui.core.timeline import format_iso, monotonic_times

SESSION_VERSION = 3
"""The session format Pi 0.73.1 writes and reads without migrating it."""
LATEST = "pi -c"
"""What continues the newest session of a folder in Pi."""
LINEAGE_TYPE = "smig-lineage"
APIS = {"anthropic": "anthropic-messages", "google": "google-generative-ai", "openai": "openai-responses"}
"""The API each built-in provider speaks (an assistant message names it)."""
ZERO_COST = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}


def resume_argv(session_id: str) -> tuple[str, ...]:
    """The command line that continues the written session, run in its project folder (Pi finds a
    session by id among the current folder's; another folder's it offers to fork)."""
    return ("pi", "--session", session_id)


def provider_of(model: str) -> str:
    """Pi's built-in provider that serves a model name (Pi restores a session's model by it)."""
    name = model.lower()
    if name.startswith("claude"):
        return "anthropic"
    if name.startswith("gemini"):
        return "google"
    return "openai"


def default_model(env: Env = None) -> tuple[str, str] | None:
    """The (provider, model) the user set as Pi's default (`settings.json`), if any: a session that
    names it resumes with the model the user runs."""
    try:
        settings = json.loads((agent_folder(env) / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(settings, Mapping):
        return None
    provider, model = settings.get("defaultProvider"), settings.get("defaultModel")
    return (provider, model) if isinstance(provider, str) and isinstance(model, str) and provider and model else None


def session_id_of(path: Path) -> str:
    """The id in a session file's name (`<start time>_<id>.jsonl`)."""
    return path.stem.rsplit("_", 1)[-1]


def newest_session(folder: Path) -> str | None:
    """The id of the most recently modified session file of a folder: what `pi -c` continues."""
    newest: tuple[float, str] | None = None
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None
    for entry in entries:
        if entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
            try:
                stamp = (entry.stat().st_mtime, session_id_of(Path(entry.name)))
            except OSError:
                continue
            newest = max(newest, stamp) if newest else stamp
    return newest[1] if newest else None


def _shared(folder: Path, env: Env) -> bool:
    """Whether a session folder is one every project's listing reads (`sessions/` or a global flat folder)."""
    return any(folder == home or home in folder.parents for home in session_folders(env))


class PiWriter(JsonlSessionWriter):
    """Builds a Pi session from migrated turns; the committer writes it (never over a file)."""

    agent = Agent("pi")
    latest = LATEST

    def __init__(self, env: Env = None, data_dir: Path | None = None) -> None:
        super().__init__(env)
        self._data_dir = data_dir
        """Where smig remembers the folders whose own settings moved their sessions (None: it does not)."""

    def settle(self, planned: PlannedFile) -> ContinueLatest | None:
        """What `pi -c` picks (`newest_session`); a project whose own settings moved its sessions is
        remembered first, so smig lists them from anywhere."""
        folder, data_dir = self._folders.get(planned.path, ""), self._data_dir
        if planned.native and data_dir and folder and not _shared(Path(planned.path).parent, self._env):
            from smig_tui.adapters.agents.pi.projects import remember

            with contextlib.suppress(OSError, SmigError):  # only a lost convenience: `settle` never raises
                remember(data_dir, folder)  # its session folder is the project's own: list it from anywhere
        return super().settle(planned)

    def newest_session(self, folder: Path) -> str | None:
        """`pi -c` continues the most recently modified session file of the folder's session directory."""
        return newest_session(folder)

    def read_back(self, output: NativeOutput) -> Session:
        """The session as `smig list` reads it."""
        from smig_tui.adapters.agents.pi.source import PiSource
        from smig_tui.adapters.readback import ReadBackError

        path = Path(output.path)
        source = PiSource(path.parent.parent)
        found = source.describe(path, lambda _warning: None)
        if found is None:
            raise ReadBackError(f"The written Pi session {output.path} cannot be read back.")
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
    ) -> PlannedFile:
        """Lay out the session for `turns` in `cwd`'s session directory, ready to be written."""
        turns = opening_turns(turns, lineage)
        session_id = session_id or str(uuid.uuid4())
        now = (now or datetime.now(UTC)).astimezone(UTC)
        times = monotonic_times([turn.timestamp for turn in turns], now)
        provider, model_id = default_model(self._env) or (provider_of(model or ""), model or "gpt-5.5")
        start = now - timedelta(milliseconds=len(turns) + 1)
        header = {
            "type": "session",
            "version": SESSION_VERSION,
            "id": session_id,
            "timestamp": format_iso(start),
            "cwd": cwd,
        }
        entries: list[dict[str, Any]] = []
        parent: str | None = None

        def add(entry: dict[str, Any], moment: datetime) -> None:
            nonlocal parent
            entry_id = uuid.uuid5(uuid.UUID(session_id), f"smig:{len(entries)}").hex[:8]
            entries.append(
                {
                    "type": entry.pop("type"),
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": format_iso(moment),
                    **entry,
                }
            )
            parent = entry_id

        add({"type": "custom", "customType": LINEAGE_TYPE, "data": lineage.as_json()}, start)
        for number, (turn, moment) in enumerate(zip(turns, times, strict=True)):
            # The message's own time is the time of writing (the picker's order); the entry keeps the conversation's.
            written = int((start + timedelta(milliseconds=number + 1)).timestamp() * 1000)
            content = [{"type": "text", "text": turn.text}]
            if turn.role is Role.USER:
                message: dict[str, Any] = {"role": "user", "content": content, "timestamp": written}
            else:
                message = {
                    "role": "assistant",
                    "content": content,
                    "api": APIS.get(provider, "openai-completions"),
                    "provider": provider,
                    "model": model_id,
                    "usage": {
                        "input": 0,
                        "output": 0,
                        "cacheRead": 0,
                        "cacheWrite": 0,
                        "totalTokens": 0,
                        "cost": ZERO_COST,
                    },
                    "stopReason": "stop",
                    "timestamp": written,
                }
            add({"type": "message", "message": message}, moment)
        add({"type": "session_info", "name": title}, now)
        stamp = format_iso(start).replace(":", "-").replace(".", "-")
        path = project_sessions(self._env, cwd) / f"{stamp}_{session_id}.jsonl"
        return self.planned_file(path, [header, *entries], session_id, resume_argv(session_id), cwd)
