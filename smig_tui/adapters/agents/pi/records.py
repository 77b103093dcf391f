# smig: compiled with mypyc where it can (setup.py)
"""Provides the read of one Pi session file into what its client sends the model on resume.

The file (session version 3, Pi 0.73.1) is a header line, then entries forming a tree by
`parentId`. Pi resumes at the last entry of the file (the active leaf) and sends the path from the
root to it (`buildSessionContext`): entries on other branches are abandoned. On that path the last
`compaction` entry stands for everything before `firstKeptEntryId`, as one user message with its
summary; a `branch_summary` and an extension's `custom_message` are user messages; a `!command`
the user ran (`bashExecution`) is a user message unless excluded. Before the API call
(`transformMessages`) an assistant message that failed or was aborted is dropped, and a call left
without a result gets one (`No result provided`, an error): smig reads the same.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.content_parts import Converted, close_reply
from smig_tui.adapters.agents.file_sessions import line_size, line_store, open_lines
from smig_tui.adapters.json_parse import parse
from smig_tui.adapters.stored_text import LineText, TextStore
from smig_tui.core.models import Kind, Role, Usage

COMPACTION_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUFFIX = "\n</summary>"
BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUFFIX = "</summary>"
"""Pi's own words around a summary (`messages.js`), as the model reads them."""
NO_RESULT = "No result provided"
"""What Pi sends for a call whose result never came (`transformMessages`)."""
DROPPED_STOPS = ("error", "aborted")
"""A reply that ended so is not sent again."""


@dataclass
class SessionFile:
    """A session file's header and the entries on its active path."""

    header: dict[str, Any] = field(default_factory=dict)
    path: list[dict[str, Any]] = field(default_factory=list)
    """From the root to the leaf (the file's last entry), along `parentId`."""
    lines: dict[str, int] = field(default_factory=dict)
    """The line (1-based) of each entry, by `id`."""
    damaged: list[int] = field(default_factory=list)
    """Lines that are not an entry (half-written, or damaged)."""
    entries: int = 0
    """Entries in the file, on every branch."""
    name: str | None = None
    """The session's name (the last `session_info` entry of the file; an empty one clears it)."""
    first_prompt: str | None = None
    """The first user text in the file, on any branch: what Pi's picker shows when it has no name."""

    @property
    def session_id(self) -> str | None:
        """The header's id (None: not a Pi session)."""
        value = self.header.get("id")
        return value if self.header.get("type") == "session" and isinstance(value, str) and value else None


def read_session(path: Path, pack: bool = False) -> SessionFile:
    """Parse the file and walk its active path (raises OSError when it cannot be read); with `pack`, a
    big file's long tool results are left on disk as each entry is parsed (`line_store`)."""
    out = SessionFile()
    by_id: dict[str, dict[str, Any]] = {}
    leaf: str | None = None
    with open_lines(path) as handle:
        store, offset = line_store(handle, path, pack, _result_texts), 0
        for number, raw in enumerate(handle, start=1):
            at, offset = offset, offset + len(raw)
            if not raw.strip():
                continue
            try:
                entry = parse(raw)
            except (ValueError, RecursionError):  # half-written, or nested too deeply to parse
                out.damaged.append(number)
                continue
            if not isinstance(entry, dict):
                out.damaged.append(number)
            elif entry.get("type") == "session" and not out.header:
                out.header = entry
            elif isinstance(entry.get("id"), str):
                _note_listing_facts(out, entry)
                if store is not None:
                    _leave_result(entry, store, at, line_size(raw))
                by_id[entry["id"]] = entry
                out.lines[entry["id"]] = number
                leaf = entry["id"]
            else:
                out.damaged.append(number)
    out.entries = len(by_id)
    seen: set[str] = set()
    while leaf is not None and leaf in by_id and leaf not in seen:
        seen.add(leaf)
        out.path.append(by_id[leaf])
        parent = by_id[leaf].get("parentId")
        leaf = parent if isinstance(parent, str) else None
    out.path.reverse()
    return out


def _note_listing_facts(out: SessionFile, entry: dict[str, Any]) -> None:
    """What Pi's picker shows of a session, gathered over every entry as it does (`buildSessionInfo`)."""
    if entry.get("type") == "session_info":
        name = entry.get("name")
        out.name = (name.strip() or None) if isinstance(name, str) else None
    message = entry.get("message") if entry.get("type") == "message" else None
    if out.first_prompt is None and isinstance(message, dict) and message.get("role") == "user":
        out.first_prompt = content_text(message.get("content")).strip() or None


def _result_texts(entry: dict[str, Any]) -> list[str]:
    """A tool result entry's text when its content is text blocks only (what `_leave_result` leaves)."""
    message = entry.get("message")
    if entry.get("type") != "message" or not isinstance(message, dict) or message.get("role") != "toolResult":
        return []
    content = message.get("content")
    if not isinstance(content, list) or not all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        return []
    return [content_text(content)]


def _leave_result(entry: dict[str, Any], store: TextStore, offset: int, size: int) -> None:
    """Swap a long tool result's content (text blocks only) for its text left on disk, in place:
    `_add_result` takes it as the result's body as it is."""
    for text in _result_texts(entry):
        body = store.body(text, offset, size, 0)
        if isinstance(body, LineText):
            entry["message"]["content"] = body


def context_entries(path: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries whose messages the model gets, in order: a compaction's summary first, then what it kept."""
    last = max((n for n, entry in enumerate(path) if entry.get("type") == "compaction"), default=None)
    if last is None:
        return path
    compaction = path[last]
    first_kept = compaction.get("firstKeptEntryId")
    start = next((n for n, entry in enumerate(path[:last]) if entry.get("id") == first_kept), last)
    return [compaction, *path[start:last], *path[last + 1 :]]


def conversation(session: SessionFile) -> Converted:
    """The session's messages as the client sends them when it resumes."""
    out = Converted()
    pending: list[tuple[str, str]] = []
    """Calls of the last reply still waiting for their result: (call id, tool name)."""
    for entry in context_entries(session.path):
        kind = entry.get("type")
        entry_id = str(entry.get("id"))
        line = session.lines.get(entry_id)
        stamp = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        raw = entry.get("message")
        message: dict[str, Any] = raw if isinstance(raw, dict) else {}
        role = message.get("role") if kind == "message" else kind
        if role == "toolResult":
            call_id = str(message.get("toolCallId") or "")
            pending = [call for call in pending if call[0] != call_id]
            _add_result(out, message, entry_id, line, stamp)
            continue
        if role not in ("assistant", "user", "bashExecution", "compaction", "branch_summary", "custom_message"):
            continue  # settings, labels, names, an extension's own data: never sent
        if role == "bashExecution" and message.get("excludeFromContext"):
            continue
        if role == "assistant" and message.get("stopReason") in DROPPED_STOPS:
            continue
        _close_calls(out, pending, entry_id, line, stamp)
        pending = []
        if role == "assistant":
            pending = _add_reply(out, message, entry_id, line, stamp)
        elif role == "user":
            _add_user(out, message.get("content"), entry_id, line, stamp)
        elif role == "bashExecution":
            out.add(entry_id, "", Role.USER, Kind.TEXT, bash_text(message), line, stamp)
        elif role == "compaction":
            text = COMPACTION_PREFIX + str(entry.get("summary") or "") + COMPACTION_SUFFIX
            out.add(entry_id, "", Role.USER, Kind.SUMMARY, text, line, stamp)
        elif role == "branch_summary" and entry.get("summary"):
            text = BRANCH_PREFIX + str(entry["summary"]) + BRANCH_SUFFIX
            out.add(entry_id, "", Role.USER, Kind.SUMMARY, text, line, stamp)
        elif role == "custom_message":
            text = content_text(entry.get("content"))
            if text:
                out.add(entry_id, "", Role.USER, Kind.TEXT, text, line, stamp, injected=True)
    _close_calls(out, pending, "end", None, None)
    return out


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text blocks of a list."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        block["text"]
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


def bash_text(message: dict[str, Any]) -> str:
    """A `!command` the user ran, as Pi words it for the model (`bashExecutionToText`)."""
    text = f"Ran `{message.get('command') or ''}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif isinstance(code, int) and code != 0:
        text += f"\n\nCommand exited with code {code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


def _add_user(out: Converted, content: Any, entry_id: str, line: int | None, stamp: str | None) -> None:
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        return
    for number, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "image":
            out.add(entry_id, f":image{number}", Role.USER, Kind.IMAGE, str(block.get("mimeType") or ""), line, stamp)
        elif block.get("type") == "text" and isinstance(block.get("text"), str) and block["text"]:
            suffix = "" if len(blocks) == 1 else f":text{number}"
            out.add(entry_id, suffix, Role.USER, Kind.TEXT, block["text"], line, stamp)
            out.first_prompt = out.first_prompt or block["text"].strip() or None


def _add_reply(
    out: Converted, message: dict[str, Any], entry_id: str, line: int | None, stamp: str | None
) -> list[tuple[str, str]]:
    """A reply's blocks in order (thinking, text, calls); the calls it leaves waiting for results."""
    first = len(out.messages)
    calls: list[tuple[str, str]] = []
    blocks = message.get("content")
    for number, block in enumerate(blocks if isinstance(blocks, list) else []):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "thinking" and isinstance(block.get("thinking"), str) and block["thinking"].strip():
            out.add(entry_id, f":thinking{number}", Role.ASSISTANT, Kind.REASONING, block["thinking"], line, stamp)
        elif kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            out.add(entry_id, f":text{number}", Role.ASSISTANT, Kind.TEXT, block["text"], line, stamp)
        elif kind == "toolCall":
            call_id, name = str(block.get("id") or ""), str(block.get("name") or "tool")
            arguments = block.get("arguments")
            text = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
            out.add(
                entry_id,
                f":call{number}",
                Role.ASSISTANT,
                Kind.TOOL_CALL,
                text,
                line,
                stamp,
                tool_name=name,
                call_id=call_id,
            )
            calls.append((call_id, name))
    close_reply(out, message.get("model"), _usage(message), first)
    return calls


def _add_result(out: Converted, message: dict[str, Any], entry_id: str, line: int | None, stamp: str | None) -> None:
    content = message.get("content")
    text: str | LineText
    if isinstance(content, LineText):
        text = content  # a long one a big file's reader left on disk (`_leave_result`) is the body
    else:
        text = content_text(content)
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "image" for b in content):
            text = (text + "\n" if text else "") + "[image]"
    out.add(
        entry_id,
        "",
        Role.TOOL,
        Kind.TOOL_RESULT,
        text,
        line,
        stamp,
        tool_name=str(message.get("toolName") or "tool"),
        call_id=str(message.get("toolCallId") or ""),
        is_error=bool(message.get("isError")),
    )


def _close_calls(
    out: Converted, pending: list[tuple[str, str]], entry_id: str, line: int | None, stamp: str | None
) -> None:
    """The result Pi makes up for each call left unanswered, as it sends it."""
    for number, (call_id, name) in enumerate(pending):
        out.add(
            entry_id,
            f":missing{number}",
            Role.TOOL,
            Kind.TOOL_RESULT,
            NO_RESULT,
            line,
            stamp,
            tool_name=name,
            call_id=call_id,
            is_error=True,
        )


def _usage(message: dict[str, Any]) -> Usage | None:
    """The figures the client logged for a reply (`usage`: input, output, cacheRead, cacheWrite, totalTokens)."""
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None

    def number(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) and value >= 0 else 0

    return Usage(
        input_tokens=number("input"),
        cached_input_tokens=number("cacheRead"),
        cache_creation_tokens=number("cacheWrite"),
        output_tokens=number("output"),
        context_tokens=number("totalTokens"),
    )
