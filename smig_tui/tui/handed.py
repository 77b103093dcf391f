"""Provides `handed_work`: Textual's `work` for a thread worker that lets go of its arguments once begun.

A Textual worker keeps the call it runs, arguments and all, and a finished worker stays reachable from
its task's context and its thread's, which only a full cyclic collection or that thread's next worker
frees; the TUI keeps the collector paused or the session frozen. A plan worker so kept the session it
planned after another was opened: three 500 MB sessions opened in turn held all three (744 MB, 441,204
messages). A worker made by `handed_work` gets its arguments in a holder it empties as it begins, so a
finished one keeps an empty holder; Textual's description of it no longer spells out a whole session.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, Concatenate, ParamSpec, TypeVar

from textual import work
from textual.dom import DOMNode
from textual.worker import Worker

P = ParamSpec("P")
R = TypeVar("R")
N = TypeVar("N", bound=DOMNode)


class Handed:
    """A call's arguments, given up to the first to take them."""

    __slots__ = ("_call",)

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self._call: tuple[tuple[Any, ...], dict[str, Any]] | None = (args, kwargs)

    def take(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        call, self._call = self._call, None
        assert call is not None, "a worker's arguments are taken once"
        return call

    def __repr__(self) -> str:
        return "<arguments handed over>"


def handed_work(
    *, group: str, exclusive: bool = False, exit_on_error: bool = True, description: str | None = None
) -> Callable[[Callable[Concatenate[N, P], R]], Callable[Concatenate[N, P], Worker[R]]]:
    """`@work(thread=True, ...)` for a method whose arguments (a session, a plan) must not outlive its run."""

    def decorate(method: Callable[Concatenate[N, P], R]) -> Callable[Concatenate[N, P], Worker[R]]:
        @wraps(method)
        def run(node: N, handed: Handed) -> R:
            args, kwargs = handed.take()
            return method(node, *args, **kwargs)

        worker = work(
            thread=True, group=group, exclusive=exclusive, exit_on_error=exit_on_error, description=description
        )(run)

        @wraps(method)
        def start(node: N, /, *args: P.args, **kwargs: P.kwargs) -> Worker[R]:
            return worker(node, Handed(args, kwargs))

        return start

    return decorate
