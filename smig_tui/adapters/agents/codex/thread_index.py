"""Provides the step that makes a rollout smig wrote a thread Codex's own index lists, through `codex app-server`.

What Codex 0.171.0 does (read in its source, `codex-rs/rollout` and `codex-rs/state`, and checked
against the pinned binary):

- It keeps an index of its threads in a SQLite database, `state_5.sqlite` (the number is its schema
  generation), in `CODEX_HOME`, or in `sqlite_home` / `CODEX_SQLITE_HOME` when set.
- The index is filled from the rollout files once, when the database is created
  (`metadata::backfill_sessions`, guarded by the `backfill_state` row, which then stays `complete`).
  Afterwards a thread becomes a row only when Codex itself writes it (`apply_rollout_items`) or finds
  a rollout on disk that its index lacks (`state_db::read_repair_rollout_path`, which extracts the
  row from the rollout with `extract_metadata_from_rollout`).
- `codex resume --last` and `codex exec resume --last` pick from the index alone while it exists
  (`RolloutRecorder::find_latest_thread_path`): a rollout written by another program after the
  database was made is not a candidate until Codex has found it once.
- The app server's `thread/read` looks a thread up by id, on disk when the index lacks it, and
  repairs the index with the row Codex derives from the rollout; `thread/list` with
  `useStateDbOnly` answers from the index only, in the order `--last` uses.

So smig never writes Codex's database: it asks Codex, through its public app-server protocol (JSON
lines on stdio), to read the new thread, which makes Codex add the row itself, with its own columns,
values and locking; then it asks which thread the folder's "continue the latest" now picks. With no
database yet there is nothing to do: Codex builds its index from every rollout when it first starts.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from smig_tui.adapters.agents.codex.home import CodexHome

BIN_ENV = "SMIG_CODEX_BIN"
"""Names the `codex` executable when it is not on PATH."""
ANSWER_TIMEOUT = 60.0
"""Seconds the app server may take to start and answer (it answers in well under one on a home of
thousands of threads; the limit only stops a hung process from hanging the commit)."""
INDEX_WAIT = 10.0
"""Seconds to wait for Codex to write the row it derived after answering the read."""
INDEX_POLL = 0.05
STATE_PREFIX = "state_"


def state_databases(home: CodexHome, env: Mapping[str, str]) -> list[Path]:
    """Codex's thread index databases that exist: `state_<n>.sqlite` in every folder Codex may keep it in."""
    folders = [home.root]
    if env.get("CODEX_SQLITE_HOME"):
        folders.append(Path(env["CODEX_SQLITE_HOME"]))
    configured = _configured_sqlite_home(home)
    if configured is not None:
        folders.append(configured)
    found = []
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        found += [
            folder / name
            for name in names
            if name.startswith(STATE_PREFIX) and name.endswith(".sqlite") and name[6:-7].isdigit()
        ]
    return found


def _configured_sqlite_home(home: CodexHome) -> Path | None:
    """`sqlite_home` of `$CODEX_HOME/config.toml`, when set."""
    try:
        with open(home.root / "config.toml", "rb") as handle:
            value = tomllib.load(handle).get("sqlite_home")
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return Path(os.path.expanduser(value)) if isinstance(value, str) and value else None


def find_codex(env: Mapping[str, str]) -> str | None:
    """The `codex` executable: `SMIG_CODEX_BIN`, else the one on PATH."""
    named = env.get(BIN_ENV)
    if named:
        return named if os.access(named, os.X_OK) else None
    return shutil.which("codex", path=env.get("PATH"))


@dataclass(frozen=True, slots=True)
class Indexed:
    """What Codex's app server answered."""

    listed: bool
    """The thread is in Codex's index now."""
    latest: str | None
    """The thread `codex resume --last` picks in the folder (None: none there)."""


class AppServerError(Exception):
    """The app server could not be run or did not answer; the message is one clause."""


def index_thread(binary: str, env: Mapping[str, str], thread_id: str, folder: str) -> Indexed:
    """Have Codex read `thread_id` (which adds it to its index) and say what `--last` picks in `folder`.

    Codex writes the row just after it answers the read, so the index is asked until it lists the
    thread (in well under a second) or `INDEX_WAIT` passes."""
    with AppServer(binary, env, cwd=folder if os.path.isdir(folder) else None) as server:
        read = server.request("thread/read", {"threadId": thread_id})
        if "error" in read:
            raise AppServerError(f"it could not read the thread ({_message(read)})")
        deadline = time.monotonic() + INDEX_WAIT
        while True:
            mine = server.request("thread/list", {"includedThreadIds": [thread_id], "useStateDbOnly": True})
            listed = any(row.get("id") == thread_id for row in _rows(mine))
            if listed or time.monotonic() > deadline:
                break
            time.sleep(INDEX_POLL)
        latest = server.request(
            "thread/list", {"cwd": folder, "sortKey": "updated_at", "limit": 1, "useStateDbOnly": True}
        )
    newest = [row.get("id") for row in _rows(latest)]
    return Indexed(listed=listed, latest=newest[0] if newest and isinstance(newest[0], str) else None)


def ask(
    binary: str,
    env: Mapping[str, str],
    requests: list[tuple[str, dict[str, Any]]],
    cwd: str | None = None,
) -> list[dict[str, Any]]:
    """Send `requests` one after the other to a fresh `codex app-server`; its answers, in order."""
    with AppServer(binary, env, cwd) as server:
        return [server.request(method, params) for method, params in requests]


class AppServer:
    """A `codex app-server` process spoken to over stdio, one request at a time, stopped on leaving.

    The server stops reading once its input ends, so the input stays open until the last answer."""

    def __init__(self, binary: str, env: Mapping[str, str], cwd: str | None = None) -> None:
        self._argv = [binary, "app-server"]
        self._env = dict(env)
        self._cwd = cwd
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._next = 0
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def __enter__(self) -> AppServer:
        try:
            self._process = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=self._env,
                cwd=self._cwd,
                text=True,
                encoding="utf-8",
            )
        except OSError as error:
            raise AppServerError(f"`codex app-server` did not start ({error.strerror or error})") from error
        assert self._process.stdout is not None
        self._reader = threading.Thread(target=_read_lines, args=(self._process.stdout, self._lines), daemon=True)
        self._reader.start()
        try:
            self.request("initialize", {"clientInfo": _CLIENT})
            self._send({"jsonrpc": "2.0", "method": "initialized"})
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        process = self._process
        if process is None:
            return
        self._process = None
        _stop(process)
        if self._reader is not None:
            self._reader.join(timeout=10)
        if process.stdout is not None:
            process.stdout.close()

    def request(self, method: str, params: dict[str, Any], timeout: float = ANSWER_TIMEOUT) -> dict[str, Any]:
        """Send one request; its answer (`result` or `error`), notifications in between skipped."""
        number = self._next
        self._next += 1
        self._send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AppServerError(f"`codex app-server` did not answer within {timeout:.0f} s") from None
            if line is None:
                raise AppServerError("`codex app-server` ended before it answered")
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and "method" not in message and message.get("id") == number:
                return message

    def _send(self, message: dict[str, Any]) -> None:
        if self._process is None or self._process.stdin is None:
            raise AppServerError("`codex app-server` is not running")
        try:
            self._process.stdin.write(json.dumps(message) + "\n")
            self._process.stdin.flush()
        except OSError as error:
            raise AppServerError(f"`codex app-server` stopped ({error.strerror or error})") from error


_CLIENT = {"name": "smig", "version": "1"}


def _read_lines(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put(None)


def _stop(process: subprocess.Popen[str]) -> None:
    """Close the server's input (it then exits) and make sure it is gone."""
    try:
        if process.stdin is not None:
            process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _rows(answer: dict[str, Any]) -> list[dict[str, Any]]:
    result = answer.get("result")
    data = result.get("data") if isinstance(result, dict) else None
    return [row for row in data if isinstance(row, dict)] if isinstance(data, list) else []


def _message(answer: dict[str, Any]) -> str:
    error = answer.get("error")
    text = error.get("message") if isinstance(error, dict) else None
    return text if isinstance(text, str) and text else "no reason given"
