"""Fuzz: seeded damaged variants of real Codex and Claude Code sessions through every front door.

Each case puts one variant in fresh agent homes and runs `list`, `show`, `plan`, `migrate` and
`export` (the real CLI, in-process) and the MCP tool functions on it. Whatever the damage: no
traceback and no crash log (the last-resort handler would have written one), no hang (a per-case
timer interrupts a stuck call; nothing sleeps), at most one error line, every warning names its file
(and its line, for damage inside the file), and the damaged source is left byte for byte as it was.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import signal
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from damage import Variant, variants

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.core.errors import SmigError
from smig_tui.services import Services, build_services

CASES = variants()
CASE_SECONDS = 600
"""A call still running after this long is a hang: a hang guard only (the slowest case takes well under a
second idle; a loaded 2-core machine may make it many times that, never this)."""
TARGET = "gpt-4o"
WARNING = re.compile(r"^smig: warning: (?P<path>/.+?\.jsonl)(?::(?P<line>\d+))?: (?P<message>.+)$")
FILE_LEVEL = (
    "named like a session",
    "cannot read",
    "cannot stat",
    "empty file",
    "empty rollout file",
    "not a Codex rollout",
    "not a regular file",
)
"""Warnings about a whole file, which have no line to name."""
OTHER_STDERR = re.compile(
    r"^smig: (\d+ more warnings? not shown; .*|redacted \d+ secrets? .*|dry run: .*|wrote .*"
    r"|no sessions found under .*|a skipped file is reported once until it changes; .*"
    r"|tiktoken could not load .*; counts are estimates\. .*)$"
)  # offline, without its file


class Hang(BaseException):
    """A call ran past CASE_SECONDS (a BaseException, so no `except Exception` in smig can swallow it)."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Interrupt the current call with Hang after `seconds` (a timer signal: the test never sleeps)."""

    def expire(_signum: int, _frame: Any) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _place(variant: Variant, homes: dict[str, Path]) -> Path:
    """Put the variant where its agent keeps sessions and return its path."""
    if variant.agent == "claude":
        folder = homes["claude"] / "projects" / "-home-user-fuzz"
    else:
        folder = homes["codex"] / "sessions" / "2026" / "01" / "01"
    folder.mkdir(parents=True)
    path = folder / variant.file_name
    if variant.kind == "fifo":
        os.mkfifo(path)
    elif variant.kind == "dangling":
        path.symlink_to(folder / "gone.jsonl")
    elif variant.kind == "loop":
        path.symlink_to(path)
    elif variant.kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(variant.data)
    return path


def _cli(*argv: str) -> tuple[int, str, list[str]]:
    ctx = Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO()))
    code = main(list(argv), ctx)
    return code, ctx.out.stdout.getvalue(), ctx.out.stderr.getvalue().splitlines()  # type: ignore[attr-defined]


def _check_stderr(lines: list[str], home: Path, what: str) -> None:
    """Warnings name their file (and line); besides them at most one error, never an unexpected one."""
    errors = [line for line in lines if line.startswith("smig: error: ")]
    assert len(errors) <= 1, f"{what}: {errors}"
    for error in errors:
        assert not error.startswith("smig: error: Unexpected "), f"{what}: {error}"
    for line in lines:
        assert "Traceback" not in line, f"{what}: {line}"
        if line in errors or OTHER_STDERR.match(line) or line.startswith("smig: cleaned up migration "):
            continue
        match = WARNING.match(line)
        assert match, f"{what}: stderr line is neither a warning naming its file nor an error: {line!r}"
        assert match["path"].startswith(str(home)), f"{what}: {line}"
        if match["line"] is None:
            assert any(words in match["message"] for words in FILE_LEVEL), f"{what}: no line number: {line}"


def _mcp_calls(services: Services, path: Path, workspace: str) -> list[tuple[str, Callable[[], Any]]]:
    """The MCP tool functions on this case's session, as the server's wrapper would call them."""
    pytest.importorskip("pydantic")
    from smig_tui.mcp.tools import SmigTools

    tools = SmigTools(services)

    def session_id() -> str:
        return services.find_session(str(path)).id

    def commit_and_read_back() -> Any:
        result = tools.commit_migration(session_id(), TARGET, "truncate", ["store"])
        tools.get_handoff(workspace)
        return tools.recall_omitted(result["migration_id"], "")

    return [
        ("list_sessions", lambda: tools.list_sessions(limit=50)),
        ("preview_migration", lambda: tools.preview_migration(session_id(), TARGET)),
        ("commit_migration+get_handoff+recall_omitted", commit_and_read_back),
    ]


def _vanishing(variant: Variant, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the session disappear between finding and reading it, or right after reading it."""
    original = Services.load_session

    def load_session(self: Services, info: Any, *args: Any, **kwargs: Any) -> Any:
        if variant.kind == "vanish-before-read":
            path.unlink(missing_ok=True)
            return original(self, info, *args, **kwargs)
        session = original(self, info, *args, **kwargs)
        path.unlink(missing_ok=True)
        return session

    monkeypatch.setattr(Services, "load_session", load_session)


def _fingerprint(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else None


@pytest.mark.parametrize("variant", CASES, ids=[case.case_id for case in CASES])
def test_damaged_session_through_every_front_door(
    variant: Variant, isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _place(variant, isolated_homes)
    before = _fingerprint(path)
    if variant.kind.startswith("vanish"):
        _vanishing(variant, path, monkeypatch)
    out = isolated_homes["home"] / "out"
    out.mkdir()
    ref = str(path)
    commands = [
        ("list", "--all"),
        ("list", "--all", "--json"),
        ("show", ref),
        ("show", ref, "--json"),
        ("show", ref, "--full"),
        ("plan", ref, "--target", TARGET),
        ("plan", ref, "--target", TARGET, "--json"),
        ("plan", ref, "--target", "tiny-fuzz", "--strategy", "tools-first"),
        (
            "migrate",
            ref,
            "--target",
            TARGET,
            "--to",
            "claude",
            "--to",
            "codex",
            "--to",
            "json",
            "--out",
            str(out / "m.json"),
        ),
        ("export", ref, "--format", "markdown"),
        ("export", ref, "--format", "openai", "--out", str(out / "e.json")),
    ]
    config = isolated_homes["smig"] / "config"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(
        '[models."tiny-fuzz"]\ncontext_window = 600\nmax_output = 100\n', encoding="utf-8"
    )
    with deadline(CASE_SECONDS):
        for argv in commands:
            if variant.kind.startswith("vanish") and not path.exists():
                path.write_bytes(variant.data)  # back for the next command, to vanish again
            code, _, stderr = _cli(*argv)
            _check_stderr(stderr, isolated_homes["home"], f"{variant.case_id} {argv[0]}")
            assert code in (0, 1, 3, 4), f"{variant.case_id} {argv}: exit {code}: {stderr}"
        if variant.kind.startswith("vanish") and not path.exists():
            path.write_bytes(variant.data)
        services = build_services()
        for name, call in _mcp_calls(services, path, "/home/user/fuzz"):
            try:
                call()
            except SmigError:
                pass  # the server's wrapper sends this one sentence as the tool's error text
            except Exception as error:  # the wrapper's last resort would have logged a crash
                pytest.fail(f"{variant.case_id} {name}: {type(error).__name__}: {error}")
            if variant.kind.startswith("vanish") and not path.exists():
                path.write_bytes(variant.data)
    crashes = isolated_homes["smig"] / "cache" / "crashes"
    assert not crashes.exists() or list(crashes.iterdir()) == [], f"{variant.case_id}: crash logs written"
    if not variant.kind.startswith("vanish"):
        assert _fingerprint(path) == before, f"{variant.case_id}: the source session changed"


def test_the_suite_covers_enough_damage() -> None:
    kinds = {case.kind for case in CASES}
    assert len(CASES) >= 300
    assert {
        "truncate",
        "bitflip",
        "utf8",
        "nul",
        "deep-line",
        "deep-value",
        "wrong-type",
        "cycle",
        "fifo",
        "dangling",
        "loop",
        "folder",
        "vanish-before-read",
        "vanish-after-read",
    } <= kinds
    assert {case.agent for case in CASES} == {"claude", "codex"}
    assert all(sum(case.agent == agent for case in CASES) >= 100 for agent in ("claude", "codex"))


def test_a_unix_socket_named_like_a_session_is_a_notice(isolated_homes: dict[str, Path]) -> None:
    folder = isolated_homes["claude"] / "projects" / "-home-user-fuzz"
    folder.mkdir(parents=True)
    here = os.getcwd()
    os.chdir(folder)  # a socket's address is capped at 108 bytes: bind by relative name
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind("s.jsonl")
            with deadline(CASE_SECONDS):
                code, _, stderr = _cli("list")
    finally:
        os.chdir(here)
    assert code == 0
    assert stderr[0] == f"smig: warning: {folder / 's.jsonl'}: named like a session but it is a socket; skipped"
