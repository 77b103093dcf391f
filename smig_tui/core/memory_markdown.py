"""Provides a session-to-memory note without an LLM: goal, files touched, commands run, last state.

The note has the frontmatter of a Claude Code auto-memory topic file (FORMATS.md 2.11), so it can be
dropped into `<project>/memory/` as it is, and reads well as plain Markdown anywhere else.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from smig_tui.core.handoff import goal_message
from smig_tui.core.models import Kind, Message, Plan, Role, Session
from smig_tui.core.words import one_line

_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "file", "filename")
_COMMAND_KEYS = ("command", "cmd")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)
MAX_LISTED = 30


def _arguments(message: Message) -> Any:
    """A tool call's arguments as data when they are JSON, else the raw text."""
    try:
        return json.loads(message.text)
    except (ValueError, RecursionError):
        return message.text


def _command_text(value: Any) -> str | None:
    """A shell command from `command`/`cmd`, given as a string or an argv list."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        argv: list[str] = list(value)
        if len(argv) >= 3 and argv[1] in ("-lc", "-c"):
            return argv[2].strip()
        return shlex.join(argv)
    return None


def files_and_commands(messages: Iterable[Message]) -> tuple[list[str], list[str]]:
    """Files the tool calls touched and commands they ran, first-seen order, no repeats."""
    files: dict[str, None] = {}
    commands: dict[str, None] = {}
    for message in messages:
        if message.kind is not Kind.TOOL_CALL:
            continue
        args = _arguments(message)
        if isinstance(args, dict):
            for key in _PATH_KEYS:
                if isinstance(args.get(key), str) and args[key].strip():
                    files.setdefault(args[key].strip())
            for key in _COMMAND_KEYS:
                command = _command_text(args.get(key))
                if command:
                    commands.setdefault(command)
            text = args.get("input") if isinstance(args.get("input"), str) else ""
        else:
            text = str(args)
        for match in _PATCH_FILE.finditer(text or ""):
            files.setdefault(match.group(1).strip())
    return list(files), list(commands)


def _last_reply(messages: tuple[Message, ...]) -> Message | None:
    """The last thing the assistant said in prose: where the work stood."""
    for message in reversed(messages):
        if message.role is Role.ASSISTANT and message.kind is Kind.TEXT and message.text.strip():
            return message
    return None


def _read(prepare: Callable[[Sequence[Message]], Iterable[Message]], message: Message | None) -> str | None:
    """One message's text as the note quotes it, handed to `prepare` first."""
    return next(iter(prepare((message,)))).text.strip() if message else None


def _bullets(items: list[str], code: bool) -> list[str]:
    """A Markdown list, capped, with a count of the rest."""
    shown = [f"- `{one_line(item, 160)}`" if code else f"- {item}" for item in items[:MAX_LISTED]]
    if len(items) > MAX_LISTED:
        shown.append(f"- … and {len(items) - MAX_LISTED} more")
    return shown or ["- (none recorded)"]


def to_memory_markdown(
    session: Session, plan: Plan | None = None, prepare: Callable[[Sequence[Message]], Iterable[Message]] = iter
) -> str:
    """A memory note for `session`; with a plan, only the messages the plan keeps are described.

    The note reads the goal, the tool calls and the last reply, and no other message (tool output is
    most of a session's text). It hands just those to `prepare` before it reads them: an export redacts
    them there, since the note cuts what it quotes and a secret cut in two would pass a redaction of the
    finished note. The title is the session's as given.
    """
    info = session.info
    messages = tuple(item.message for item in plan.kept) if plan else session.messages
    opening, last = goal_message(session.messages), _last_reply(messages)
    goal = _read(prepare, opening)
    title = one_line(info.title or goal or f"{info.agent.value} session {info.id}", 80)
    files, commands = files_and_commands(prepare([message for message in messages if message.kind is Kind.TOOL_CALL]))
    description = one_line(f"{info.agent.value} session in {info.cwd or 'unknown dir'}: {goal or title}", 150)
    lines = [
        "---",
        f"name: {json.dumps(title, ensure_ascii=False)}",
        f"description: {json.dumps(description, ensure_ascii=False)}",
        "type: project",
        f"originSessionId: {info.id}",
    ]
    if info.updated:
        lines.append(f"modified: {info.updated}")
    lines += ["---", f"# {title}", ""]
    lines += [f"- Agent: {info.agent.value}" + (f" ({info.model})" if info.model else "")]
    lines += [f"- Working directory: `{info.cwd}`" if info.cwd else "- Working directory: unknown"]
    lines += [f"- Dates: {info.created or '?'} → {info.updated or '?'}", ""]
    lines += ["## Goal", "", goal or "(no user message recorded)", ""]
    lines += ["## Files touched", "", *_bullets(files, code=True), ""]
    lines += ["## Commands run", "", *_bullets(commands, code=True), ""]
    lines += ["## Last state", "", _read(prepare, last) or "(no assistant reply recorded)"]
    return "\n".join(lines).rstrip() + "\n"
