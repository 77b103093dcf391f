"""The CLI on OpenCode sessions: list, show and plan the recorded real session (in-process)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_cli
from opencode_builders import RECORDED_CWD, SESSION_ID, install_database

from smig_tui.adapters.agents.opencode.home import resolve_home
from smig_tui.adapters.agents.opencode.source import OpenCodeSource
from smig_tui.adapters.paths import Paths


def _source(_: Paths) -> OpenCodeSource:
    return OpenCodeSource(resolve_home())


def test_list_show_and_plan_an_opencode_session(isolated_homes: dict[str, Path]) -> None:
    install_database(isolated_homes["home"] / ".local" / "share" / "opencode")
    code, out, err = run_cli(["list", "--agent", "opencode", "--json"], _source)
    assert code == 0, err
    [listed] = json.loads(out)
    assert listed["id"] == SESSION_ID and listed["agent"] == "opencode" and listed["cwd"] == RECORDED_CWD
    code, out, err = run_cli(["show", SESSION_ID[:12]], _source)
    assert code == 0, err
    assert "agent: opencode" in out and "1.18.33" in out and "UNICODE-REPLY" in out
    code, by_path, err = run_cli(["show", listed["path"]], _source)  # the `<database>#<id>` path works too
    assert code == 0 and by_path == out, err
    code, out, err = run_cli(["plan", SESSION_ID, "--target", "gpt-5.5", "--strategy", "truncate"], _source)
    assert code == 0, err
    assert "fits as-is" in out and "keeps 11 messages" in out


def test_a_damaged_database_is_one_line_not_a_traceback(isolated_homes: dict[str, Path]) -> None:
    database = install_database(isolated_homes["home"] / ".local" / "share" / "opencode", wal=False)
    database.write_bytes(b"\0garbage" * 512)
    code, out, err = run_cli(["list", "--agent", "opencode"], _source)
    assert code == 0
    assert "Traceback" not in err and err.count("OpenCode database") == 1
