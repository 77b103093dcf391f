"""Provides the writer of a chat history that Aider restores and continues: a file of smig's own.

Aider has no session store, only the project's `.aider.chat.history.md`, which is the user's (it
holds every run of theirs; `--restore-chat-history` reads all of it). smig never writes to it: a
migration is a new file `.aider.smig-<id>.chat.history.md` in the project folder, resumed with
`aider --chat-history-file <that file> --restore-chat-history` (Aider then appends the run to it).
The file is what Aider 0.86.2 restored when written by hand (docs/formats/aider.md, "the decisive
experiment"): one run header, two notice lines (the title and the lineage, never sent to the
model), then each prompt as `#### ` lines and each reply as plain lines, a reply line that Aider
would take for markup indented by a space. Tool calls are text (`core.handoff`): Aider has no tools.
What the layout reports as its turns is that file read the way Aider reads it, so the read-back
compares what the model will get.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

from smig_tui.adapters.agents.aider import folders as places
from smig_tui.adapters.agents.aider.history import (
    SMIG_LINEAGE,
    SMIG_TITLE,
    decode,
    header,
    notice,
    reply_block,
    restore,
    user_block,
)
from smig_tui.adapters.agents.writer_base import PlainFileWriter, opening_turns
from smig_tui.core.errors import SmigError
from smig_tui.core.handoff import to_turns
from smig_tui.core.models import Agent, Role, Session
from smig_tui.core.native import ContinueLatest, Destination, NativeOutput, PlannedFile, Turn, continue_fact
from smig_tui.core.ports import NativeLayout, NativeRequest

LATEST = "aider --restore-chat-history"
"""What continues "the" conversation of a folder in Aider: the project's own history file, always."""


def resume_argv(session_id: str) -> tuple[str, ...]:
    """The command line that continues a history smig wrote, run in its folder (the file name is relative)."""
    return ("aider", "--restore-chat-history", "--chat-history-file", places.written_name(session_id))


class AiderWriter(PlainFileWriter):
    """Builds an Aider chat history from migrated turns; the committer writes it (never over a file)."""

    agent = Agent("aider")

    def __init__(self, data_dir: Path | None = None) -> None:
        self._data_dir = data_dir
        """Where smig remembers the folders it wrote for (None: it does not)."""
        self._folders: dict[str, str] = {}

    def lay_out(self, request: NativeRequest) -> NativeLayout:
        """The history, the lineage note leading the first prompt; its turns as Aider will restore them."""
        turns = opening_turns(to_turns(request.messages, note=request.note), request.lineage)
        session_id = str(uuid.uuid4())
        path = Path(request.folder) / places.written_name(session_id)
        data = render(turns, request.title, json.dumps(request.lineage.as_json()), request.now)
        native = NativeOutput("aider", str(path), session_id, resume_argv(session_id), request.folder)
        self._folders[str(path)] = request.folder
        planned = PlannedFile(Destination("aider"), str(path), data, None, False, native)
        return NativeLayout((planned,), restored_turns(data))

    def settle(self, planned: PlannedFile) -> ContinueLatest | None:
        """Remember the folder (so the history lists from anywhere), and say what a plain restore picks:
        always the project's own history, never a file smig wrote."""
        output = planned.native
        if output is None:
            return None
        folder = self._folders.get(planned.path, str(Path(planned.path).parent))
        if self._data_dir is not None:
            with contextlib.suppress(OSError, SmigError):  # only a lost convenience: `settle` never raises
                places.remember(self._data_dir, folder)
        own = Path(folder) / places.DEFAULT_NAME
        picks = places.session_id_of(own) if own.is_file() else None
        why = " (the project's own chat history)" if picks else " (it starts a new chat)"
        return continue_fact(output, LATEST, folder, picks, why)

    def read_back(self, output: NativeOutput) -> Session:
        """The history as `smig list` reads it."""
        from smig_tui.adapters.agents.aider.source import AiderSource
        from smig_tui.adapters.readback import ReadBackError

        path = Path(output.path)
        source = AiderSource(lambda: ([], [path]))
        found = source.describe(path, lambda _warning: None)
        if found is None:
            raise ReadBackError(f"The written Aider history {output.path} cannot be read back.")
        return source.load(found, lambda _warning: None)


def render(turns: tuple[Turn, ...], title: str, lineage: str, now: datetime | None = None) -> str:
    """The chat-history Markdown of `turns`: a run header, smig's notices, then prompt and reply blocks."""
    parts = [header(now or datetime.now(UTC)), notice(SMIG_TITLE, title), notice(SMIG_LINEAGE, lineage)]
    for turn in turns:
        parts.append(user_block(turn.text) if turn.role is Role.USER else reply_block(turn.text))
    return "".join(parts)


def restored_turns(data: str) -> tuple[Turn, ...]:
    """The turns Aider restores from `data` (what the read-back must find)."""
    text, _ = decode(data.encode("utf-8"))
    roles = {"user": Role.USER, "assistant": Role.ASSISTANT}
    return tuple(Turn(roles[item.role], item.whole) for item in restore(text).messages)
