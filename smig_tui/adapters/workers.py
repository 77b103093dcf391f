"""Provides smig's one way of running Python work in other processes: a plain `python -c` worker.

Three jobs use a second core: the tail of a huge session read while this process reads its head
(`Aside`, one call whose parts stream back as they are made), an export's texts redacted and a
search refresh's sessions read (`Workers`, calls answered in the order asked). Each worker is a
plain subprocess, not `multiprocessing`: spawning re-runs the caller's `__main__`, which a script
using smig as a library may not guard; this worker imports only the called function's module. Calls
and results travel as pickles over its stdin and stdout; its stderr is dropped, so nothing it prints
reaches a terminal, the TUI or MCP's stdio. A worker that cannot start, fails or dies never changes
a result: the caller does that work itself (`WorkerLost`).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from queue import SimpleQueue
from typing import Any

_UNREADABLE = (EOFError, OSError, ValueError, TypeError, AttributeError, ImportError, pickle.UnpicklingError)


class WorkerLost(Exception):
    """A call a worker did not answer: it failed there, or the worker died or never started."""


class _Process:
    """One worker process: sends it calls, reads its replies (`part`, then `done` or `failed`)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-c", _WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=None if env is None else {**os.environ, **env},
        )
        self._send(list(sys.path))

    def _send(self, request: object) -> None:
        assert self.process is not None and self.process.stdin is not None
        pickle.dump(request, self.process.stdin, pickle.HIGHEST_PROTOCOL)
        self.process.stdin.flush()

    def call(self, function: Callable[..., Any], args: tuple[Any, ...], stream: bool) -> None:
        self._send((function.__module__, function.__qualname__, args, stream))

    def end_calls(self) -> None:
        """No more calls: the worker ends once it has answered those it has."""
        stdin = None if self.process is None else self.process.stdin
        if stdin is not None and not stdin.closed:
            stdin.close()

    def reply(self) -> tuple[str, Any]:
        """The worker's next reply; ("lost", None) when it died or sent something unreadable."""
        stdout = None if self.process is None else self.process.stdout
        if stdout is None:
            return "lost", None
        try:
            tag, value = pickle.load(stdout)
        except _UNREADABLE:
            return "lost", None
        return str(tag), value

    def kill(self) -> None:
        """Stop the worker now (from any thread); its caller then reads it as lost."""
        process = self.process
        if process is not None and process.poll() is None:
            process.kill()

    def close(self, wait: bool = False) -> None:
        """Reap the worker: let it finish the calls it has when `wait`, else stop it now."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.stdin is not None and not process.stdin.closed:
            with contextlib.suppress(OSError):
                process.stdin.close()
        if not wait and process.poll() is None:
            process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def _start(env: Mapping[str, str] | None = None) -> _Process | None:
    try:
        return _Process(env)
    except (OSError, ValueError, TypeError, pickle.PicklingError):
        return None


class Aside:
    """A generator function running in another Python process, its parts read back as it makes them.

    The worker pickles each part as it is made and a thread of its own sends it, so the caller can
    replay the first parts while the worker reads on; the caller unpickles one part at a time.
    """

    def __init__(self, function: Callable[..., Iterable[Any]], *args: Any) -> None:
        self.finished = False
        """Whether the worker ran to the end (known once `parts` is exhausted)."""
        self._worker = _start()
        if self._worker is not None:
            try:
                self._worker.call(function, args, stream=True)
                self._worker.end_calls()
            except (OSError, ValueError, TypeError, AttributeError, pickle.PicklingError):
                self.close()

    def parts(self) -> Iterator[Any]:
        """The worker's parts in order, each as soon as it is sent.

        The parts stop early, without an error, when the worker could not start, failed or died
        (`finished` stays False): the caller reads on itself from where the last part ended.
        """
        try:
            while self._worker is not None:
                tag, part = self._worker.reply()
                if tag != "part":
                    self.finished = tag == "done"
                    return
                yield part
        finally:
            self.close()

    def close(self) -> None:
        """Stop the worker if it is still running (done, failed, or no longer wanted) and reap it."""
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close()


class Call:
    """A call given to a worker; `result` waits for its answer."""

    def __init__(self, worker: _Worker) -> None:
        self._worker = worker
        self._answered = False
        self._value: Any = None
        self._lost = False

    def answer(self, tag: str, value: Any) -> None:
        self._answered, self._value, self._lost = True, value, tag != "done"

    def result(self) -> Any:
        """The function's return value, or `WorkerLost` (the caller then does the work itself)."""
        while not self._answered:
            self._worker.read_next()
        if self._lost:
            raise WorkerLost
        return self._value


class _Worker:
    """A worker process for many calls: a thread of ours writes them to it, so asking never waits
    while it works; its answers come in the order asked."""

    def __init__(self, process: _Process) -> None:
        self.process = process
        self.waiting: deque[Call] = deque()
        self.alive = True
        self._calls: SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = SimpleQueue()
        self._writer = threading.Thread(target=self._write, daemon=True)
        self._writer.start()

    def _write(self) -> None:
        while (call := self._calls.get()) is not None:
            try:
                self.process.call(*call, stream=False)
            except (OSError, ValueError, TypeError, AttributeError, pickle.PicklingError):
                self.process.kill()  # a call it cannot send: reading its answers finds it lost
                return
        with contextlib.suppress(OSError):
            self.process.end_calls()

    def submit(self, function: Callable[..., Any], args: tuple[Any, ...]) -> Call:
        call = Call(self)
        self.waiting.append(call)
        self._calls.put((function, args))
        return call

    def read_next(self) -> None:
        """Read the answer to the oldest call waiting; a dead worker loses every call it holds."""
        call = self.waiting.popleft()
        tag, value = self.process.reply() if self.alive else ("lost", None)
        if tag == "part":  # a call asked without `stream` never sends parts
            tag = "lost"
        if tag == "lost":
            self.alive = False
        call.answer(tag, value)

    def close(self) -> None:
        """Let the worker end once its calls are answered; stop it now if some never will be read
        (first, so that our writer, perhaps waiting for it to take the next call, is let go)."""
        abandoned = bool(self.waiting) or not self.alive
        if abandoned:
            self.process.kill()
        self._calls.put(None)
        self._writer.join()
        self.process.close(wait=not abandoned)


class Workers:
    """Up to `count` worker processes taking calls in turn (started when created; those that cannot
    start are left out). Reading answers in the order asked keeps each worker's answers in order.

    A worker runs each call with the cyclic collector paused, as the readers pause it while they
    build: a call reads a session, or redacts a batch, and what it makes stays until it answers.
    With the collector on, the search index's cold build spent 1.2 s of its workers' 20 s of CPU in
    collections walking those objects; the collector is back after each call, for any cycles it left."""

    def __init__(self, count: int, env: Mapping[str, str] | None = None) -> None:
        """Start the workers, with `env` added to this process's environment when given."""
        self._workers: list[_Worker] = []
        for _ in range(count):
            process = _start(env)
            if process is None:
                break
            self._workers.append(_Worker(process))
        self._turn = 0

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def submit(self, function: Callable[..., Any], *args: Any) -> Call | None:
        """Give the next worker alive a call to `function` (importable by its module and name, its
        arguments picklable); None when no worker is alive, so the caller does it itself."""
        alive = [worker for worker in self._workers if worker.alive]
        if not alive:
            return None
        self._turn += 1
        return alive[self._turn % len(alive)].submit(function, args)

    def close(self) -> None:
        """End every worker (those with answers never read are stopped) and reap them."""
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.close()


_WORKER = """
import gc, importlib, pickle, queue, sys, threading
source = sys.stdin.buffer
sys.path[:] = pickle.load(source)
out = sys.stdout.buffer
made = queue.SimpleQueue()

def send():
    while (blob := made.get()) is not None:
        out.write(blob)
        out.flush()

def answer(tag, value=None):
    made.put(pickle.dumps((tag, value), pickle.HIGHEST_PROTOCOL))

sender = threading.Thread(target=send)
sender.start()
while True:
    try:
        module, name, args, stream = pickle.load(source)
    except EOFError:
        break
    try:
        function = importlib.import_module(module)
        for part in name.split("."):
            function = getattr(function, part)
        gc.disable()  # a call's objects form no cycles and live until it answers (see `Workers`)
        if stream:
            for part in function(*args):
                answer("part", part)
            answer("done")
        else:
            answer("done", function(*args))
    except Exception:
        answer("failed")
    gc.enable()
made.put(None)
sender.join()
"""
"""The worker's program: read sys.path, then each call in turn; answer it (a streamed call: each
part as it is made, then whether it ran to the end). Sending is a thread's, so a caller still busy
with an earlier answer never holds up the work (a blocked write releases the GIL)."""
