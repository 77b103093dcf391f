"""Runs the CLI in-process against one agent's reader, so a test sees only the reader it tests."""

from __future__ import annotations

import io
from collections.abc import Callable

from smig_tui.adapters.paths import Paths, resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.ports import SessionSource
from smig_tui.services import Services


def run_cli(argv: list[str], source: Callable[[Paths], SessionSource]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `smig ARGV` with `source` as the only reader."""
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    ctx = Context(out=out)
    paths = resolve_paths()
    ctx.__dict__["services"] = Services(paths=paths, sources=[source(paths)])
    code = main(argv, ctx)
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()


def smig(*argv: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `smig ARGV` in-process, with every agent's reader (stdout not a terminal)."""
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(argv), Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()
