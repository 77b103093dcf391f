"""Provides the writer of a new OpenCode session that `opencode -s ID` resumes, through `opencode import`.

A descendant keeping OpenCode's storage is written the same way through its own `import`: the home
the writer is given says whose it is (`OpenCodeHome.variant`: command, version, agent, config).

OpenCode's public contract for bringing in a session is `opencode import FILE`, reading the shape
`opencode export` writes: `{info, messages: [{info, parts}]}`. Going through it, not the database,
leaves OpenCode's schema, its event log and its locking to OpenCode. Checked with OpenCode 1.18.33:
it runs offline, files the session under the project of the folder it runs in, honours
`OPENCODE_DB` and `XDG_DATA_HOME` as the reader does, and a re-import of an id already there
replaces nothing visible but reports success, so the writer picks a fresh id and checks it is free.
OpenCode resumes with the model the session's messages name, so they name the user's configured
default model, else the model of their most recent OpenCode session, else the plan's target; the
session's update time is the time of writing, so `opencode -c` and the picker put the migration first.

The import document is written first as a file smig owns (under its data folder, never over an
existing one); after `opencode import` the session is read back from the database with smig's own
reader and compared with the plan. If the import or the check fails, the imported session is
deleted again with `opencode session delete` (it is the one smig just created) and the error named.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import secrets
import signal
import sqlite3
import string
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from smig_tui.adapters.agents.opencode.database import OpenCodeDbError, read_only
from smig_tui.adapters.agents.opencode.home import OpenCodeHome, session_ref
from smig_tui.adapters.agents.opencode.variant import OPENCODE, Variant
from smig_tui.adapters.agents.writer_base import PlainFileWriter, opening_turns
from smig_tui.adapters.client_launch import bin_env, find_client
from smig_tui.core.errors import SmigError, WriteRefusedError
from smig_tui.core.handoff import to_turns
from smig_tui.core.models import Agent, Role, Session, SessionInfo
from smig_tui.core.native import ContinueLatest, Destination, Lineage, NativeOutput, PlannedFile, Turn, continue_fact
from smig_tui.core.ports import NativeLayout, NativeRequest
from smig_tui.core.timeline import monotonic_times

IMPORT_TIMEOUT = 120
"""Seconds `opencode import` may take (it starts OpenCode's runtime and migrates its database once)."""
BIN_ENV = bin_env(OPENCODE.binary)
"""Names the `opencode` executable when it is not on PATH."""
_ID_CHARS = string.ascii_letters + string.digits


class OpenCodeWriteError(SmigError):
    """`opencode import` failed or its result did not read back as planned."""


def opencode_id(prefix: str, millis: int, counter: int, descending: bool = False) -> str:
    """An id shaped like OpenCode's: prefix, 12 hex digits of time and counter, 14 random characters.

    Message and part ids ascend with time (OpenCode orders by them); session ids descend, so the
    newest sorts first.
    """
    value = (millis * 0x1000 + counter) & 0xFFFFFFFFFFFF
    if descending:
        value = ~value & 0xFFFFFFFFFFFF
    return f"{prefix}_{value:012x}{''.join(secrets.choice(_ID_CHARS) for _ in range(14))}"


def provider_of(model: str) -> str:
    """The OpenCode provider id that serves a model name (written on messages, shown in its picker)."""
    name = model.lower()
    if name.startswith("claude"):
        return "anthropic"
    if name.startswith(("gpt", "o1", "o3", "o4", "codex")):
        return "openai"
    if name.startswith("gemini"):
        return "google"
    return "opencode"


def configured_model(env: Mapping[str, str] | None = None, variant: Variant = OPENCODE) -> tuple[str, str] | None:
    """The (provider, model) OpenCode's (or the variant's) own config sets as default
    (`model: "provider/model"`), if any.

    OpenCode resumes a session with the model its last user message names, so a session written
    for a provider the user has not set up would not resume; the user's default always can.
    """
    found = _configured(env, variant)
    return None if found is None else (found[0], found[1])


def _config_folder(env: Mapping[str, str], variant: Variant) -> Path:
    if variant.config_dir_env and env.get(variant.config_dir_env):
        return Path(env[variant.config_dir_env])
    xdg = env.get("XDG_CONFIG_HOME")
    return (Path(xdg) if xdg else Path(env.get("HOME") or Path.home()) / ".config") / variant.folder


def _configured(env: Mapping[str, str] | None, variant: Variant) -> tuple[str, str, Path] | None:
    """The configured (provider, model) and the config file that sets it."""
    env = os.environ if env is None else env
    folder = _config_folder(env, variant)
    candidates = [Path(env[variant.config_env])] if env.get(variant.config_env) else []
    candidates += [folder / name for name in variant.config_files if not name.endswith(".jsonc")]
    for candidate in candidates:
        try:
            config = json.loads(candidate.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        model = config.get("model") if isinstance(config, dict) else None
        if isinstance(model, str) and "/" in model:
            provider, _, name = model.partition("/")
            return provider, name, candidate
    return None


def resume_argv(session_id: str, variant: Variant = OPENCODE) -> tuple[str, ...]:
    """The command line that continues the written session in OpenCode's TUI (`-s`, `--session` in
    1.18.33; the same in its descendants), run in its project folder."""
    return (variant.binary, "-s", session_id)


def find_binary(env: Mapping[str, str] | None = None, variant: Variant = OPENCODE) -> str | None:
    """The `opencode` executable: `SMIG_OPENCODE_BIN`, else the one on PATH (as "continue now" finds it)."""
    return find_client(variant.binary, env)


def _needs_binary(variant: Variant) -> str:
    article = "an" if variant.name[:1] in "AEIOU" else "a"
    return (
        f"Writing {article} {variant.name} session needs the `{variant.binary}` command (not found on PATH; "
        f"{bin_env(variant.binary)} can name it)"
    )


class OpenCodeWriter(PlainFileWriter):
    """Builds the import document for migrated turns and has OpenCode import it."""

    imports = True
    """`opencode import` writes OpenCode's database: installed after every file-only session read back."""

    def __init__(self, home: OpenCodeHome, imports_dir: Path) -> None:
        self._home = home
        self._imports_dir = imports_dir
        self._variant = home.variant

    @property
    def agent(self) -> Agent:
        """The agent it writes (OpenCode, or the descendant whose home it was given)."""
        return Agent(self._variant.agent)

    def unavailable(self) -> str | None:
        """OpenCode writes its own database: smig needs its `opencode` command."""
        if find_binary(variant=self._variant) is None:
            return _needs_binary(self._variant) + "."
        return None

    def lay_out(self, request: NativeRequest) -> NativeLayout:
        """The import document, the lineage note leading the first user turn."""
        turns = to_turns(request.messages, note=request.note)
        planned = self.prepare(
            turns, request.folder, request.lineage, request.title, model=request.target, now=request.now
        )
        return NativeLayout((planned,), turns)

    def install(self, planned: PlannedFile) -> None:
        """Have OpenCode import the written document (its database is OpenCode's to write)."""
        self.import_session(planned)

    def uninstall(self, planned: PlannedFile) -> None:
        """Delete the session this commit imported; quiet when it cannot."""
        if planned.native is not None:
            with contextlib.suppress(SmigError):
                self.delete_session(planned.native.session_id)

    def settle(self, planned: PlannedFile) -> ContinueLatest | None:
        """`opencode -c` continues the project's most recently updated session (not a task's sub-session)."""
        output = planned.native
        if output is None:
            return None
        folder = str(json.loads(planned.data)["info"]["directory"])
        latest = self._variant.latest_command
        same = "directory" if self._variant.continues_folder else "project_id"
        try:
            with read_only(self._home.database, name=self._variant.name) as connection:
                row = connection.execute(
                    f"SELECT id FROM session WHERE parent_id IS NULL AND {same} = "
                    f"(SELECT {same} FROM session WHERE id = ?) ORDER BY time_updated DESC, id LIMIT 1",
                    (output.session_id,),
                ).fetchone()
        except (OpenCodeDbError, sqlite3.Error) as error:
            return continue_fact(output, latest, folder, None, f" (its database could not be read: {error})")
        picks = row[0] if row and isinstance(row[0], str) else None
        fact = continue_fact(output, latest, folder, picks, " (updated after the migration was imported)")
        lineage = json.loads(planned.data).get("smigLineage") or {}
        if not lineage.get("model") or lineage.get("modelConfigured"):
            return fact  # the user's own default model: nothing to point out
        return replace(fact, sentence=f"{fact.sentence} {self._variant.name} resumes it on {lineage['model']}.")

    def read_back(self, output: NativeOutput) -> Session:
        """The imported session, read from OpenCode's database as `smig list` reads it."""
        from smig_tui.adapters.agents.opencode.source import OpenCodeSource

        written = SessionInfo(id=output.session_id, agent=self.agent, path=output.path)
        return OpenCodeSource(self._home).load(written, lambda _warning: None)

    def prepare(
        self,
        turns: tuple[Turn, ...],
        cwd: str,
        lineage: Lineage,
        title: str,
        model: str | None = None,
        now: datetime | None = None,
    ) -> PlannedFile:
        """Lay out the import document for `turns` in `cwd`, ready to be written and imported."""
        turns = opening_turns(turns, lineage)
        now = now or datetime.now(UTC)
        millis = int(now.timestamp() * 1000)
        session_id = opencode_id("ses", millis, 0, descending=True)
        provider, model_id, chosen = self.chosen_model(model)
        times = [int(moment.timestamp() * 1000) for moment in monotonic_times([t.timestamp for t in turns], now)]
        messages = []
        parent: str | None = None
        for number, (turn, created) in enumerate(zip(turns, times, strict=True), start=1):
            message_id = opencode_id("msg", millis, 2 * number)
            part = {
                "id": opencode_id("prt", millis, 2 * number + 1),
                "sessionID": session_id,
                "messageID": message_id,
                "type": "text",
                "text": turn.text,
            }
            if turn.role is Role.USER:
                info: dict[str, Any] = {
                    "id": message_id,
                    "sessionID": session_id,
                    "role": "user",
                    "time": {"created": created},
                    "agent": self._variant.mode,
                    "model": {"providerID": provider, "modelID": model_id},
                }
                parent = message_id
            else:
                info = {
                    "id": message_id,
                    "sessionID": session_id,
                    "role": "assistant",
                    "parentID": parent,
                    "mode": self._variant.mode,
                    "agent": self._variant.mode,
                    "path": {"cwd": cwd, "root": cwd},
                    "cost": 0,
                    "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                    "modelID": model_id,
                    "providerID": provider,
                    "time": {"created": created, "completed": created},
                    "finish": "stop",
                }
            messages.append({"info": info, "parts": [part]})
        document = {
            "info": {
                "id": session_id,
                "slug": f"smig-{lineage.migration_id[-8:]}",
                "projectID": "global",
                "directory": cwd,
                "title": title,
                "version": self._variant.version,
                "model": {"id": model_id, "providerID": provider},
                "time": {"created": times[0], "updated": max(times[-1], millis)},
            },
            "messages": messages,
            "smigLineage": {
                "sourceAgent": lineage.source_agent,
                "sourceId": lineage.source_id,
                "migrationId": lineage.migration_id,
                "strategy": lineage.strategy,
                "omitted": lineage.omitted,
                "planningTarget": lineage.target,
                "model": chosen,
                "modelConfigured": configured_model(variant=self._variant) == (provider, model_id),
            },
        }
        path = self._imports_dir / f"{session_id}.json"
        data = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
        agent = self._variant.agent
        native = NativeOutput(
            agent, session_ref(self._home.database, session_id), session_id, resume_argv(session_id, self._variant), cwd
        )
        return PlannedFile(Destination(agent), str(path), data, None, False, native)

    def chosen_model(self, target: str | None) -> tuple[str, str, str]:
        """The (provider, model) the session names, which its client resumes it with, and a sentence
        saying which it is and why: the user's configured default, else the model of their newest
        session, else the client's own default with no model configured, else the plan's target."""
        name, variant = self._variant.name, self._variant
        folder = _config_folder(os.environ, variant)
        configured = _configured(None, variant)
        if configured is not None:
            provider, model_id, path = configured
            return provider, model_id, f"{provider}/{model_id}, the default model in {path}"
        recent = self.recent_model()
        if recent is not None:
            return *recent, f"{recent[0]}/{recent[1]}, the model of the newest {name} session (no `model` in {folder})"
        if variant.default_model is not None:
            provider, model_id = variant.default_model
            why = f"{name}'s own default, as no `model` is set in {folder} and no {name} session ran yet"
            return provider, model_id, f"{provider}/{model_id}, {why}"
        provider, model_id = provider_of(target or ""), target or "claude-sonnet-4-5"
        why = f"the plan's target, as no `model` is set in {folder} and no {name} session ran yet"
        return provider, model_id, f"{provider}/{model_id}, {why}"

    def import_session(self, planned: PlannedFile) -> None:
        """Have OpenCode import a written document; the session must not exist yet."""
        native = planned.native
        name = self._variant.name
        if native is None:
            raise OpenCodeWriteError(f"{planned.path} is not an {name} import document.")
        binary = find_binary(variant=self._variant)
        if binary is None:
            raise WriteRefusedError(_needs_binary(self._variant) + "; the migration was not written.")
        if self.exists(native.session_id):
            raise WriteRefusedError(f"{name} already has a session {native.session_id}; nothing was written.")
        folder = json.loads(planned.data)["info"]["directory"]
        run_in = folder if os.path.isdir(folder) else str(Path.home())
        result = self._run([binary, "import", planned.path], run_in)
        if result.returncode != 0 or not self.exists(native.session_id):
            reason = (result.stderr or result.stdout or "").strip().splitlines()
            raise OpenCodeWriteError(
                f"`{self._variant.binary} import` did not create session {native.session_id} (exit {result.returncode}"
                + (f": {reason[-1]}" if reason else "")
                + ")."
            )

    def delete_session(self, session_id: str) -> None:
        """Remove a session this writer imported (after a failed check); quiet if it cannot."""
        binary = find_binary(variant=self._variant)
        if binary is not None and self.exists(session_id):
            self._run([binary, "session", "delete", session_id], str(Path.home()))

    def _run(self, command: list[str], cwd: str) -> subprocess.CompletedProcess[str]:
        """Run one of the client's commands with the variant's environment over the user's."""
        return _run(command, cwd, dict(self._variant.command_env))

    def recent_model(self) -> tuple[str, str] | None:
        """The (provider, model) of the user's most recently updated OpenCode session: one that runs."""
        if not self._home.database.is_file():
            return None
        try:
            with read_only(self._home.database, name=self._variant.name) as connection:
                row = connection.execute(
                    "SELECT model FROM session WHERE model IS NOT NULL ORDER BY time_updated DESC LIMIT 1"
                ).fetchone()
        except (OpenCodeDbError, sqlite3.Error):
            return None
        try:
            model = json.loads(row[0]) if row else None
        except ValueError:
            return None
        if isinstance(model, dict) and isinstance(model.get("providerID"), str) and isinstance(model.get("id"), str):
            return model["providerID"], model["id"]
        return None

    def exists(self, session_id: str) -> bool:
        """Whether OpenCode's database holds the session (read-only)."""
        if not self._home.database.is_file():
            return False
        try:
            with read_only(self._home.database, name=self._variant.name) as connection:
                row = connection.execute("SELECT 1 FROM session WHERE id = ?", (session_id,)).fetchone()
        except OpenCodeDbError as error:
            raise OpenCodeWriteError(str(error)) from error
        return row is not None


def _run(command: list[str], cwd: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run an `opencode` command quietly, with a time limit (and `extra_env` over the user's environment);
    a failure to start is one sentence."""
    try:
        return subprocess.run(
            command,
            cwd=cwd,
            env=os.environ | extra_env if extra_env else None,
            capture_output=True,
            text=True,
            timeout=IMPORT_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise OpenCodeWriteError(f"Could not run `{' '.join(command[:2])}` ({error}).") from error


def _die_with_parent() -> None:
    """In the child, before `opencode` starts: be killed when smig is. A commit cut short (SIGKILL)
    must not see its import go on after it, where the next run's recovery could not see it."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() == 1:  # the parent died before the request took effect
        os._exit(1)
