"""Wren's session format: a header of `key: value` lines, a blank line, then `>>> role` blocks.

wren-session 1
id: wren-0001
cwd: /work/app
title: Tame the wren
model: gpt-5.5
updated: 2026-11-30T10:00:00Z

>>> user
text …
>>> assistant
text …
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from smig_tui.adapters.agents.writer_base import PlainFileWriter
from smig_tui.core.handoff import to_turns
from smig_tui.core.models import Agent, Kind, Message, ReadWarning, Role, Session, SessionInfo
from smig_tui.core.native import Destination, NativeOutput, PlannedFile
from smig_tui.core.ports import NativeLayout, NativeRequest, WarningSink
from smig_tui.core.timeline import format_iso

AGENT = Agent("wren")
MAGIC = "wren-session 1"
TURN = ">>> "


def parse(path: Path, warn: WarningSink) -> Session:
    """Read one `.wren` file into smig's session model."""
    text = path.read_text(encoding="utf-8")
    head, _, body = text.partition("\n\n")
    lines = head.splitlines()
    if not lines or lines[0] != MAGIC:
        warn(ReadWarning(str(path), 1, "not a Wren session"))
    fields = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    stat = path.stat()
    messages: list[Message] = []
    role, block = None, []
    for line in [*body.splitlines(), f"{TURN}end"]:
        if line.startswith(TURN):
            if role is not None:
                index = len(messages)
                messages.append(Message(index, f"w{index}", Role(role), Kind.TEXT, "\n".join(block).strip("\n")))
            role, block = line[len(TURN) :].strip(), []
        else:
            block.append(line)
    info = SessionInfo(
        id=fields.get("id", path.stem),
        agent=AGENT,
        path=str(path),
        cwd=fields.get("cwd"),
        title=fields.get("title"),
        model=fields.get("model"),
        updated=fields.get("updated"),
        size=stat.st_size,
        mtime=stat.st_mtime,
        message_count=len(messages),
    )
    return Session(info=info, messages=tuple(messages))


def render(session_id: str, cwd: str, title: str, model: str, updated: str, turns: list[tuple[str, str]]) -> str:
    """A `.wren` file's text."""
    header = [MAGIC, f"id: {session_id}", f"cwd: {cwd}", f"title: {title}", f"model: {model}", f"updated: {updated}"]
    blocks = [f"{TURN}{role}\n{text}" for role, text in turns]
    return "\n".join(header) + "\n\n" + "\n".join(blocks) + "\n"


def resume_argv(session_id: str) -> tuple[str, ...]:
    """Wren's command line that continues a session, run in its project folder."""
    return ("wren", "--resume", session_id)


class WrenSource:
    """Lists and reads Wren's sessions."""

    agent = AGENT

    def __init__(self, home: Path) -> None:
        self.home = home

    def discover(self, warn: WarningSink) -> Iterator[SessionInfo]:
        """Every `.wren` file, newest first."""
        files = sorted((self.home / "sessions").glob("*.wren"), key=lambda path: -path.stat().st_mtime)
        for path in files:
            yield parse(path, warn).info

    def load(self, info: SessionInfo, warn: WarningSink) -> Session:
        """One session in full."""
        return parse(Path(info.path), warn)


class WrenWriter(PlainFileWriter):
    """Writes a session Wren resumes with `wren --resume ID`."""

    agent = AGENT

    def __init__(self, home: Path) -> None:
        self.home = home

    def lay_out(self, request: NativeRequest) -> NativeLayout:
        """The session file's text; nothing is written."""
        turns = to_turns(request.messages, note=request.note)
        session_id = f"wren-{request.lineage.migration_id[:12]}"
        path = self.home / "sessions" / f"{session_id}.wren"
        text = render(
            session_id,
            request.folder,
            request.title,
            request.target,
            format_iso(request.now),
            [(turn.role.value, turn.text) for turn in turns],
        )
        native = NativeOutput("wren", str(path), session_id, resume_argv(session_id), request.folder)
        return NativeLayout((PlannedFile(Destination("wren"), str(path), text, native=native),), turns)

    def read_back(self, output: NativeOutput) -> Session:
        """The written file, read by Wren's own reader."""
        return parse(Path(output.path), lambda _warning: None)
