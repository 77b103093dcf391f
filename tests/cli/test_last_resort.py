"""The last-resort handler: an error nobody foresaw is one line naming a private crash log (CLI, TUI
and MCP), and the errors the system gives (full disk, name too long) are one sentence each."""

from __future__ import annotations

import errno
import io
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.services import Services

SESSION = "01a20305-2ac0-7f6a-87b8-c9d0e1f2a3b4"
LOG_LINE = re.compile(r"Unexpected ValueError \(planted (\w+) bug\); the details are in (/\S+\.log)\.$")


def _run(*argv: str) -> tuple[int, str, str]:
    ctx = Context(out=Output(stdout=io.StringIO(), stderr=io.StringIO()))
    code = main(list(argv), ctx)
    return code, ctx.out.stdout.getvalue(), ctx.out.stderr.getvalue()  # type: ignore[attr-defined]


def _planted(where: str) -> Any:
    def boom(*_: object, **__: object) -> Any:
        raise ValueError(f"planted {where} bug")

    return boom


def _assert_logged(line: str, isolated_homes: dict[str, Path], where: str) -> None:
    """The line names a 0600 log under smig's cache holding the whole traceback."""
    match = LOG_LINE.search(line)
    assert match and match.group(1) == where, line
    log = Path(match.group(2))
    assert log.parent == isolated_homes["smig"] / "cache" / "crashes"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    text = log.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text and f"ValueError: planted {where} bug" in text


def test_cli_turns_an_unforeseen_error_into_one_line_and_a_log(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Services, "iter_sessions", _planted("cli"))
    code, stdout, stderr = _run("list")
    assert code == 1 and stdout == ""
    [line] = stderr.splitlines()
    assert line.startswith("smig: error: ") and "Traceback" not in stderr
    _assert_logged(line, fake_home, "cli")


def test_a_full_disk_at_commit_is_one_sentence_and_leaves_nothing_behind(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    real_fsync = os.fsync
    records = str(fake_home["smig"] / "data" / "migrations")

    def fsync_until_full(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").startswith(records):  # the native session is written by now
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    before = {str(p) for p in fake_home["home"].rglob("*")} | {str(p) for p in fake_home["smig"].rglob("*")}
    monkeypatch.setattr(os, "fsync", fsync_until_full)
    code, _, stderr = _run("migrate", SESSION, "--target", "gpt-4o", "--to", "claude")
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert code == 1
    errors = [line for line in stderr.splitlines() if line.startswith("smig: error: ")]
    assert len(errors) == 1 and errors[0].endswith(": no space left on device.") and "Cannot write " in errors[0]
    after = {str(p) for p in fake_home["home"].rglob("*")} | {str(p) for p in fake_home["smig"].rglob("*")}
    written = {path for path in after - before if path.endswith((".jsonl", ".json")) and "cache" not in path}
    assert written == set()


def test_a_5000_character_path_is_one_sentence(fake_home: dict[str, Path]) -> None:
    code, _, stderr = _run("memory", "sync", "--project", "/" + "p" * 5000, "--dry-run")
    assert code in (1, 3, 4)
    [line] = stderr.splitlines()
    assert line.startswith("smig: error: ") and len(line) < 400


async def test_tui_ends_with_one_line_and_a_log_instead_of_a_traceback(fake_home: dict[str, Path]) -> None:
    from smig_tui.services import build_services
    from smig_tui.tui.app import SmigApp

    app = SmigApp(services=build_services(), here="/home/user/proj")
    app.action_toggle_theme = _planted("tui")  # type: ignore[method-assign]
    with pytest.raises(ValueError, match="planted tui bug"):  # the test pilot re-raises what ended the app
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("ctrl+t")
            await pilot.pause()
    assert app.return_code == 1 and app.crash_line is not None
    _assert_logged(app.crash_line, fake_home, "tui")


async def test_tui_worker_errors_are_a_notice_naming_the_log(fake_home: dict[str, Path]) -> None:
    from smig_tui.services import build_services
    from smig_tui.tui.app import SmigApp

    app = SmigApp(services=build_services(), here="/home/user/proj")
    async with app.run_test(size=(100, 30)) as pilot:
        try:
            _planted("worker")()
        except ValueError as error:
            app.report(error)
        await pilot.pause()
        [notice] = list(app._notifications)
    _assert_logged(notice.message, fake_home, "worker")


def test_mcp_tools_turn_an_unforeseen_error_into_a_tool_error_naming_the_log(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from smig_tui.mcp.server import SmigToolRunner
    from smig_tui.mcp.tools import SmigTools

    monkeypatch.setattr(SmigTools, "list_sessions", _planted("mcp"))
    result = SmigToolRunner()("list_sessions", {})
    assert result["isError"] is True
    _assert_logged(result["content"][0]["text"], fake_home, "mcp")


PLANTED_BUG = """
import sys
from smig_tui.services import Services

def boom(*args, **kwargs):
    raise ValueError("planted nobody bug")

Services.iter_sessions = boom
from smig_tui.cli.main import main
raise SystemExit(main(["list"]))
"""


def test_as_a_non_root_user_the_log_is_private_and_an_unwritable_cache_still_gives_one_line(
    fake_home: dict[str, Path],
) -> None:
    import shutil
    import subprocess
    import sys
    import tempfile

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run a command as nobody")
    shared = Path(tempfile.mkdtemp(prefix="smig-nonroot-"))
    try:
        shared.chmod(0o755)
        writable, locked = shared / "writable", shared / "locked"
        writable.mkdir()
        subprocess.run(["chown", "nobody", str(writable)], check=True)
        (locked / "cache").mkdir(parents=True, mode=0o755)  # root's: nobody cannot make crashes/ in it
        lines = {}
        for name, smig_home in (("writable", writable), ("locked", locked)):
            env = {
                "HOME": str(smig_home),
                "SMIG_TUI_HOME": str(smig_home),
                "CODEX_HOME": str(smig_home / "c"),
                "CLAUDE_CONFIG_DIR": str(smig_home / "cl"),
                "PATH": "/usr/bin:/bin",
                **{key: os.environ[key] for key in ("TIKTOKEN_CACHE_DIR",) if key in os.environ},
                "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
            }
            done = subprocess.run(
                ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable, "-c", PLANTED_BUG],
                env=env,
                capture_output=True,
                text=True,
                timeout=600,  # a hang guard only: a busy machine is slow, never this slow
                check=False,
            )
            assert done.returncode == 1 and "Traceback" not in done.stderr
            [lines[name]] = done.stderr.splitlines()
        match = LOG_LINE.search(lines["writable"])
        assert match and match.group(1) == "nobody"
        log = Path(match.group(2))
        assert log.parent == writable / "cache" / "crashes"
        nobody = __import__("pwd").getpwnam("nobody").pw_uid
        assert (log.stat().st_uid, stat.S_IMODE(log.stat().st_mode)) == (nobody, 0o600)
        assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
        assert lines["locked"] == (
            "smig: error: Unexpected ValueError (planted nobody bug); no log could be written (Permission denied)."
        )
    finally:
        shutil.rmtree(shared, ignore_errors=True)
