"""Runs a program in a pseudo-terminal and reads its screen, for the real clients' interactive UIs.

The program is the session leader of a new pty (its controlling terminal, as in a real terminal);
`pyte` keeps the screen and answers the terminal queries the clients send on start (cursor position,
device attributes), which a real terminal answers and without which some of them wait. Reading waits
on the pty with `poll` until a condition holds, up to a generous limit that only a hung client
reaches; nothing sleeps.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pyte

LIMIT = 240
"""Seconds a client may take to reach a state before the test fails (only a hung client gets there)."""
_LEADER = (
    "import fcntl, os, sys, termios\n"
    "os.setsid()\n"
    "fcntl.ioctl(0, termios.TIOCSCTTY, 0)\n"
    "os.execvp(sys.argv[1], sys.argv[1:])\n"
)
"""Makes the pty the controlling terminal of a new session, then runs the program (no fork in the test
process, which has threads)."""


class _Screen(pyte.Screen):
    """pyte's screen, also taking the private SGR (`CSI ? … m`) Gemini CLI sends, which pyte 0.8.2 cannot."""

    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        if not private:
            super().select_graphic_rendition(*attrs)


class GaveUp(AssertionError):
    """The program did not reach a state in time (it is still running)."""


class Terminal:
    """A program in a `columns`×`lines` pseudo-terminal; its screen as text."""

    def __init__(
        self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], columns: int = 120, lines: int = 40
    ) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        self.process = subprocess.Popen(
            [sys.executable, "-c", _LEADER, *argv],
            cwd=cwd,
            env=dict(env) | {"TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(lines)},
            stdin=slave,
            stdout=slave,
            stderr=slave,
            close_fds=True,
        )
        os.close(slave)
        self.screen = _Screen(columns, lines)
        self.screen.write_process_input = self._answer
        self.stream = pyte.ByteStream(self.screen)
        self.output = bytearray()
        """Everything the program wrote, escape sequences included."""

    def _answer(self, reply: str) -> None:
        """What the terminal says back to a query (pyte calls this)."""
        with contextlib.suppress(OSError):
            os.write(self.master, reply.encode())

    def text(self) -> str:
        """The screen now, one line per row."""
        return "\n".join(line.rstrip() for line in self.screen.display)

    def type(self, keys: str) -> None:
        """Send keys as a user types them (`\\r` is Enter)."""
        os.write(self.master, keys.encode())

    def wait_for(self, condition: Callable[[], bool], what: str, limit: float = LIMIT) -> None:
        """Read the program's output until `condition()` holds; fail, showing the screen, if it exits first."""
        deadline = time.monotonic() + limit
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                raise GaveUp(f"gave up waiting for {what}; the screen:\n{self.text()}")
            # poll, not select: a long test run can hand the pty a descriptor above select's 1024
            poller = select.poll()
            poller.register(self.master, select.POLLIN)
            if not poller.poll(min(left, 1.0) * 1000):
                continue
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:  # EIO: the program has closed the terminal (it exited)
                data = b""
            if not data:
                if condition():
                    return
                tail = self.output[-3000:].decode("utf-8", "replace")
                raise AssertionError(
                    f"the program exited ({self.process.wait()}) before {what}; the screen:\n{self.text()}\n"
                    f"its last output:\n{tail}"
                )
            self.output += data
            self.stream.feed(data)

    def type_until(self, keys: str, condition: Callable[[], bool], what: str, attempt: float = 5.0) -> None:
        """Type `keys` until `condition` holds, again each time `attempt` seconds pass without it: Codex
        0.171 reads and drops what is typed before its input loop runs, and shows no sign of when it does."""
        deadline = time.monotonic() + LIMIT
        while True:
            self.type(keys)
            try:
                self.wait_for(condition, what, limit=min(attempt, max(deadline - time.monotonic(), 0.0)))
                return
            except GaveUp:
                if time.monotonic() >= deadline:
                    raise

    def prints(self, text: str) -> Callable[[], bool]:
        """A condition: the program has written `text` (it may be off the screen again)."""
        return lambda: text.encode() in self.output

    def shows(self, text: str) -> Callable[[], bool]:
        """A condition: `text` is on the screen."""
        return lambda: text in self.text()

    def close(self) -> int | None:
        """Stop the program and everything it started (its session), and return its exit status."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)
        os.close(self.master)
        return self.process.returncode
