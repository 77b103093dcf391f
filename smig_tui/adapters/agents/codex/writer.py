"""Provides the writer of a new Codex rollout that `codex resume ID` lists and continues.

The shape follows FORMATS.md 1.14-1.16: `session_meta` first (id = the UUIDv7 in the file name,
`source: "cli"` so the default picker shows it), then one turn per user message with
`task_started`, `turn_context`, `response_item` messages mirrored by `user_message` /
`agent_message` events (the picker's preview), a `token_count` and `task_complete`. Tool traffic is
text, so no call is ever left without its output. The thread's name goes in `session_index.jsonl`,
one appended line (Codex's own `thread/list` shows it as the thread's name, checked with 0.171.0); no
other line is ever touched. Codex's thread index (`state_5.sqlite`) is never written by smig: once
the commit is recorded, Codex's own app server is asked to read the thread, which makes Codex add it
to its index, so `codex resume --last` and its picker see it (`thread_index`).

Two facts checked against Codex 0.171: `model_provider` must be the provider the user's Codex runs
with (it refuses to resume a thread under another one), and `base_instructions`, when present,
replace Codex's own system prompt on resume, so none are written; lineage goes in `smig_lineage`.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.codex.home import CodexHome
from smig_tui.adapters.agents.codex.thread_index import (
    BIN_ENV,
    AppServerError,
    find_codex,
    index_thread,
    state_databases,
)
from smig_tui.adapters.agents.writer_base import PlainFileWriter
from smig_tui.core.encoding import utf8
from smig_tui.core.errors import SmigError
from smig_tui.core.handoff import to_turns
from smig_tui.core.models import Agent, Message, Role, Session
from smig_tui.core.native import ContinueLatest, Destination, Lineage, NativeOutput, PlannedFile, Turn, continue_fact
from smig_tui.core.plans import PLACEHOLDER_ID, SUMMARY_ID
from smig_tui.core.ports import NativeLayout, NativeRequest
from smig_tui.core.timeline import format_iso, monotonic_times

CODEX_VERSION = "0.171.0"
"""`cli_version` stamped when `$CODEX_HOME/version.json` does not name the installed one."""
DEFAULT_MODEL = "gpt-5.5"
ORIGINATOR = "smig"
LATEST = "codex resume --last"
"""What continues the newest thread of a folder in Codex."""
TURN_PREFIX = "smig-import-turn-"
"""Turn ids of imported history; like Codex's own importer, a prefix tools can recognise."""


def uuid7(moment: datetime, random_bytes: bytes | None = None) -> str:
    """A UUIDv7 whose embedded time is `moment` (Codex thread ids since late 2025)."""
    millis = int(moment.timestamp() * 1000) & ((1 << 48) - 1)
    rand = int.from_bytes(random_bytes or os.urandom(10), "big")
    rand_a = (rand >> 62) & 0xFFF
    rand_b = rand & ((1 << 62) - 1)
    value = (millis << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b
    return str(uuid.UUID(int=value))


def rollout_path(home: CodexHome, moment: datetime, thread_id: str) -> Path:
    """`sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl`: Codex names them in local time."""
    local = moment.astimezone()
    stamp = local.strftime("%Y-%m-%dT%H-%M-%S")
    return home.sessions / local.strftime("%Y/%m/%d") / f"rollout-{stamp}-{thread_id}.jsonl"


def resume_argv(thread_id: str) -> tuple[str, ...]:
    """The command line that continues the written rollout.

    Codex works in the directory it is started in, not the one the rollout records (checked with
    0.171), so it is run in the project folder, as the Claude one is.
    """
    return ("codex", "resume", thread_id)


def installed_version(home: CodexHome) -> str:
    """The Codex version recorded in `$CODEX_HOME/version.json`, else a known-good default."""
    try:
        data = json.loads((home.root / "version.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return CODEX_VERSION
    version = data.get("latest_version") if isinstance(data, dict) else None
    return version if isinstance(version, str) and version else CODEX_VERSION


def _config(home: CodexHome) -> dict[str, Any]:
    """`$CODEX_HOME/config.toml`, or nothing when it is missing or unreadable."""
    try:
        with open(home.root / "config.toml", "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def runs_in_codex(model: str) -> bool:
    """Tell whether Codex runs `model` itself (the GPT-5 family and the Codex models)."""
    name = model.lower()
    return (name.startswith("gpt-5") and "chat" not in name) or "codex" in name


def recorded_model(home: CodexHome, target: str | None) -> str:
    """The model a written rollout records: one the receiving Codex runs.

    The planning target when Codex runs it; else the `model` of the receiving home's config.toml;
    else Codex's default. Recording a model Codex does not run (a custom target like `tiny`) makes
    Codex warn on resume that the thread "was recorded with model 'tiny'".
    """
    if target and runs_in_codex(target):
        return target
    configured = _config(home).get("model")
    return configured if isinstance(configured, str) and configured else DEFAULT_MODEL


def configured_provider(home: CodexHome) -> str:
    """The `model_provider` set in `$CODEX_HOME/config.toml`, else `openai`.

    Codex refuses to resume a thread under a different provider than the one it records, so the
    written rollout must name the provider the user's Codex will run with.
    """
    provider = _config(home).get("model_provider")
    return provider if isinstance(provider, str) and provider else "openai"


class CodexWriter(PlainFileWriter):
    """Builds a Codex rollout from migrated turns; the service writes it (never over a file)."""

    agent = Agent("codex")

    def __init__(self, home: CodexHome, env: Mapping[str, str] | None = None) -> None:
        self._home = home
        self._env = os.environ if env is None else env
        self._index_lines: dict[str, str] = {}
        """The `session_index.jsonl` line of each rollout laid out, by path, appended once it reads back."""
        self._folders: dict[str, str] = {}
        """The project folder of each rollout laid out, by path."""

    def lay_out(self, request: NativeRequest) -> NativeLayout:
        """The rollout, the lineage note (and placeholder) as one model-visible preamble item."""
        preamble, rest = codex_preamble(request.note, request.messages)
        turns = to_turns(rest)
        planned = self.prepare(
            turns,
            request.folder,
            request.lineage,
            request.title,
            git_branch=request.git_branch,
            now=request.now,
            model=recorded_model(self._home, request.target),
            note=preamble,
        )
        if planned.native:
            self._index_lines[planned.path] = index_line(planned.native.session_id, request.title, request.now)
        self._folders[planned.path] = request.folder
        return NativeLayout((planned,), turns, preamble)

    def announce(self, planned: PlannedFile) -> None:
        """Name the thread in Codex's `session_index.jsonl` (one appended line)."""
        line = self._index_lines.pop(planned.path, None)
        if line is not None:
            append_session_index(self._home, line)

    def settle(self, planned: PlannedFile) -> ContinueLatest | None:
        """Have Codex add the thread to its index, when it keeps one, and say what `--last` picks."""
        output = planned.native
        if output is None:
            return None
        folder = self._folders.get(planned.path) or str(Path(planned.path).parent)
        if not state_databases(self._home, self._env):
            return continue_fact(output, LATEST, folder, output.session_id)  # its first start indexes every rollout
        binary = find_codex(self._env)
        if binary is None:
            why = f" (Codex lists only threads in its index, and smig found no `codex` to show it this one; {BIN_ENV} can name it)"
            return continue_fact(output, LATEST, folder, None, why)
        try:
            indexed = index_thread(binary, self._env, output.session_id, folder)
        except AppServerError as error:
            return continue_fact(
                output, LATEST, folder, None, f" (Codex's app server did not add it to its index: {error})"
            )
        if not indexed.listed:
            return continue_fact(output, LATEST, folder, indexed.latest, " (Codex did not add it to its index)")
        return continue_fact(output, LATEST, folder, indexed.latest, " (Codex knows of a newer thread there)")

    def read_back(self, output: NativeOutput) -> Session:
        """The rollout as `smig list` reads it."""
        from smig_tui.adapters.agents.codex.source import CodexSource
        from smig_tui.adapters.readback import read_listed

        return read_listed(CodexSource(self._home), output.path, "Codex")

    def prepare(
        self,
        turns: tuple[Turn, ...],
        cwd: str,
        lineage: Lineage,
        title: str,
        model: str | None = None,
        model_provider: str | None = None,
        git_branch: str | None = None,
        now: datetime | None = None,
        note: str | None = None,
    ) -> PlannedFile:
        """Lay out the rollout for `turns`, dated `now`, ready to be written.

        The lineage `note` becomes a model-visible user item with no `user_message` event, the way
        Codex itself carries AGENTS.md: the model reads it, while the picker's preview stays the
        conversation's own first prompt, so several migrated sessions remain tellable apart.
        """
        if not turns:
            raise SmigError("Nothing to write: the migrated conversation is empty.")
        now = now or datetime.now(UTC)
        thread_id = uuid7(now)
        times = monotonic_times([turn.timestamp for turn in turns], now)
        provider = model_provider or configured_provider(self._home)
        meta = self._meta(thread_id, now, cwd, lineage, title, provider, git_branch)
        lines = [_line(now, "session_meta", meta)]
        lines += _turn_lines(turns, times, cwd, model or recorded_model(self._home, None), note)
        path = rollout_path(self._home, now, thread_id)
        data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        native = NativeOutput("codex", str(path), thread_id, resume_argv(thread_id), cwd)
        # The file's mtime stays the time of writing: `codex resume --last` and the picker order
        # threads by it, and a user who just migrated means to continue the migration.
        return PlannedFile(Destination("codex"), str(path), data, None, False, native)

    def _meta(
        self,
        thread_id: str,
        now: datetime,
        cwd: str,
        lineage: Lineage,
        title: str,
        model_provider: str,
        git_branch: str | None,
    ) -> dict[str, Any]:
        """The `session_meta` payload, lineage included."""
        meta: dict[str, Any] = {
            "id": thread_id,
            "timestamp": format_iso(now),
            "cwd": cwd,
            "originator": ORIGINATOR,
            "cli_version": installed_version(self._home),
            "source": "cli",
            "model_provider": model_provider,
            "smig_lineage": {
                "source_agent": lineage.source_agent,
                "source_id": lineage.source_id,
                "source_path": lineage.source_path,
                "migration_id": lineage.migration_id,
                "strategy": lineage.strategy,
                "omitted": lineage.omitted,
                "omitted_tokens": lineage.omitted_tokens,
                "planning_target": lineage.target,
                "origin_cwd": lineage.origin_cwd,
                "title": title,
            },
        }
        if git_branch:
            meta["git"] = {"branch": git_branch}
        return meta


def _line(moment: datetime, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """One rollout line in Codex's envelope."""
    return {"timestamp": format_iso(moment), "type": kind, "payload": payload}


def _turn_lines(
    turns: tuple[Turn, ...], times: list[datetime], cwd: str, model: str, note: str | None
) -> list[dict[str, Any]]:
    """One Codex turn per user message, with the assistant turns that answered it."""
    lines: list[dict[str, Any]] = []
    turn_id: str | None = None
    last_agent: str | None = None
    number = 0
    for turn, moment in zip(turns, times, strict=True):
        if turn.role is Role.USER or turn_id is None:
            if turn_id is not None:
                lines += _close_turn(turn_id, last_agent, moment)
            number += 1
            turn_id, last_agent = f"{TURN_PREFIX}{number}", None
            lines += _open_turn(turn_id, moment, cwd, model)
            if note and number == 1:
                lines.append(_line(moment, "response_item", _message("user", "input_text", note)))
        if turn.role is Role.USER:
            lines.append(_line(moment, "response_item", _message("user", "input_text", turn.text)))
            lines.append(
                _line(
                    moment,
                    "event_msg",
                    {
                        "type": "user_message",
                        "message": turn.text,
                        "images": [],
                        "local_images": [],
                        "text_elements": [],
                    },
                )
            )
        else:
            lines.append(_line(moment, "response_item", _message("assistant", "output_text", turn.text)))
            lines.append(_line(moment, "event_msg", {"type": "agent_message", "message": turn.text, "phase": None}))
            last_agent = turn.text
    if turn_id is not None:
        lines += _close_turn(turn_id, last_agent, times[-1])
    return lines


def _open_turn(turn_id: str, moment: datetime, cwd: str, model: str) -> list[dict[str, Any]]:
    """`task_started` and the `turn_context` Codex needs to know the model and policies."""
    started = {
        "type": "task_started",
        "turn_id": turn_id,
        "started_at": int(moment.timestamp()),
        "model_context_window": None,
        "collaboration_mode_kind": "default",
    }
    context = {
        "turn_id": turn_id,
        "cwd": cwd,
        "approval_policy": "on-request",
        "sandbox_policy": {"type": "read-only"},
        "model": model,
        "summary": "auto",
    }
    return [_line(moment, "event_msg", started), _line(moment, "turn_context", context)]


def _close_turn(turn_id: str, last_agent: str | None, moment: datetime) -> list[dict[str, Any]]:
    """A zero `token_count` (no model call happened here) and `task_complete`."""
    zero = {
        "input_tokens": 0,
        "cached_input_tokens": 0,
        "output_tokens": 0,
        "reasoning_output_tokens": 0,
        "total_tokens": 0,
    }
    count = {
        "type": "token_count",
        "info": {"total_token_usage": zero, "last_token_usage": zero, "model_context_window": None},
        "rate_limits": None,
    }
    complete = {
        "type": "task_complete",
        "turn_id": turn_id,
        "last_agent_message": last_agent,
        "completed_at": int(moment.timestamp()),
    }
    return [_line(moment, "event_msg", count), _line(moment, "event_msg", complete)]


def _message(role: str, content_type: str, text: str) -> dict[str, Any]:
    """A `response_item` message payload."""
    return {"type": "message", "role": role, "content": [{"type": content_type, "text": text}]}


SESSION_INDEX = "session_index.jsonl"


def index_line(thread_id: str, title: str, now: datetime) -> str:
    """The `session_index.jsonl` line that names a thread (`{id, thread_name, updated_at}`)."""
    row = {"id": thread_id, "thread_name": title, "updated_at": format_iso(now)}
    return json.dumps(row, ensure_ascii=False) + "\n"


def append_session_index(home: CodexHome, line: str) -> None:
    """Append one line to Codex's `session_index.jsonl`, creating it if needed.

    One `write` on an `O_APPEND` descriptor, so a line Codex appends at the same moment is not
    interleaved; never follows a symlink, never writes to anything but a regular file, and starts
    on a new line when the last one was left unterminated. Other lines are never rewritten.
    """
    path = home.root / SESSION_INDEX
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags, 0o600)
    except OSError as error:
        raise SmigError(f"Cannot name the thread in {path} ({error.strerror or error}).") from error
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise SmigError(f"{path} is not a regular file, so smig did not add the thread's name to it.")
        data = utf8(line)
        if info.st_size and not _ends_with_newline(path):
            data = b"\n" + data
        os.write(descriptor, data)
    except OSError as error:
        raise SmigError(f"Cannot name the thread in {path} ({error.strerror or error}).") from error
    finally:
        os.close(descriptor)


def _ends_with_newline(path: Path) -> bool:
    """Tell whether a file's last byte is a newline."""
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def codex_preamble(note: str, messages: tuple[Message, ...]) -> tuple[str, tuple[Message, ...]]:
    """The model-visible text before the conversation in a Codex rollout, and the rest.

    The lineage note and the plan's placeholder (or summary) go in one user item without a
    `user_message` event, so Codex's preview and thread list show the conversation's own prompt,
    not "[smig: 162 earlier messages omitted …". A plan that is only a summary keeps it as a turn.
    """
    if messages and messages[0].id in (PLACEHOLDER_ID, SUMMARY_ID) and to_turns(messages[1:]):
        return f"{note}\n\n{messages[0].text}", messages[1:]
    return note, messages
