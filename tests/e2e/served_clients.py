"""One long-lived `kilo serve` / `opencode serve` per test module, in a home of its own, for the matrix.

Kilo Code CLI and OpenCode are servers with a thin command line: `kilo run -s ID PROMPT` starts the
whole server in its process (9-13 s of CPU for Kilo 7.7.7 here, against 2 s for the same turn sent to
a running server), sends `POST /session/ID/message` to it, prints the reply and exits. Here the server
starts once and each resume is that same request (no agent, no model: what `run` sends without
`--agent` or `--model`), so the request the fake model sees is the one `run` makes;
`tests/e2e/test_kilo_real_client.py` and `test_opencode_real_client.py` still resume through `run` itself.

smig writes the migrated session into the served home's database (`KILO_DB` / `OPENCODE_DB`, which
both smig and the client's own `import` honour): a home that the client has served before and that
holds the sessions of the earlier cases, lived in as a user's is.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from client_runs import CLIENT_TIMEOUT

LISTENING = " server listening on "
"""What `kilo serve` and `opencode serve` print once they accept requests, then their URL."""


class ServedClient:
    """A client's server (`BINARY serve`) on a free local port, its home a temp folder it owns."""

    def __init__(self, name: str, binary: str, home: Path, env: dict[str, str], database: Path) -> None:
        self.name, self.home, self.database = name, home, database
        self.process = subprocess.Popen(
            # --port 0: the client's default port when free (4096), else one the system picks; it prints which
            [binary, "serve", "--port", "0", "--hostname", "127.0.0.1"],
            cwd=home,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output: list[str] = []
        lines: queue.Queue[str | None] = queue.Queue()
        self.reader = threading.Thread(target=self._drain, args=(lines,), daemon=True)
        self.reader.start()
        self.url = self._listening(lines)

    def _drain(self, lines: queue.Queue[str | None]) -> None:
        """Read the server's output to its end (a full pipe would stop it), handing each line on."""
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)
            lines.put(line)
        lines.put(None)

    def _listening(self, lines: queue.Queue[str | None]) -> str:
        """The URL the server prints once it listens; fails the test when it exits or stays silent first."""
        while True:
            try:
                line = lines.get(timeout=CLIENT_TIMEOUT)
            except queue.Empty:
                self.close()
                raise AssertionError(f"{self.name} serve did not listen in {CLIENT_TIMEOUT} s") from None
            if line is None:
                raise AssertionError(f"{self.name} serve exited: {''.join(self.output)[-2000:]}")
            if LISTENING in line:
                return line.split(LISTENING, 1)[1].strip()

    def prompt(self, session_id: str, directory: Path, text: str) -> dict[str, Any]:
        """Send `text` to the session as `NAME run -s SESSION_ID TEXT` does from `directory`; the reply.

        The folder goes in the header `run` sends it in; the server's `/path` must name it back first."""
        where = {f"x-{self.name}-directory": str(directory)}
        assert self._call("GET", "/path", where)["directory"] == str(directory), "the server ignored the folder"
        parts = {"parts": [{"type": "text", "text": text}]}
        reply = self._call("POST", f"/session/{session_id}/message", where, parts)
        info = reply.get("info", {})
        assert info.get("role") == "assistant" and not info.get("error"), (reply, "".join(self.output)[-2000:])
        return reply

    def _call(self, method: str, path: str, headers: dict[str, str], body: Any = None) -> dict[str, Any]:
        """One request to the server; its JSON reply."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, headers={"content-type": "application/json"} | headers, method=method
        )
        with urllib.request.urlopen(request, timeout=CLIENT_TIMEOUT) as response:
            reply: dict[str, Any] = json.loads(response.read())
        return reply

    def close(self) -> None:
        """Stop the server and remove its home."""
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.reader.join(timeout=30)  # the output's end: the server and whatever it started are gone
        assert self.process.stdout is not None
        self.process.stdout.close()
        shutil.rmtree(self.home, ignore_errors=True)


class ServedClients:
    """The servers a test module started, one per client, stopped when the module's fake servers stop."""

    def __init__(self) -> None:
        self.running: dict[str, ServedClient] = {}

    def database_env(
        self, name: str, variable: str, own_database: Path, start: Callable[[Path], ServedClient]
    ) -> dict[str, str] | None:
        """`variable` naming the database of the module's server of `name` (started by `start`, given a new
        home, the first time), for smig to write into; None when the test's home already holds a database
        of the client's (`own_database`: the agent is the source too), which smig then writes into."""
        if own_database.exists():
            return None
        if name not in self.running:
            home = Path(tempfile.mkdtemp(prefix=f"smig-{name}-served-"))
            try:
                self.running[name] = start(home)
            except BaseException:
                shutil.rmtree(home, ignore_errors=True)
                raise
        return {variable: str(self.running[name].database)}

    def resumed(self, name: str, variable: str, session_id: str, directory: Path, text: str) -> bool:
        """Send `text` to the session through the module's server of `name` when smig wrote into its database
        in this test (`variable` names it): True; else False, and the caller runs the client itself."""
        served = self.running.get(name)
        if served is None or os.environ.get(variable) != str(served.database):
            return False
        served.prompt(session_id, directory, text)
        return True

    def close(self) -> None:
        for served in self.running.values():
            served.close()
        self.running.clear()
