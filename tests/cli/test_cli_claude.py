"""`smig list` and `smig show` on the Claude fixture home: data on stdout, diagnostics on stderr."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.services import Services

MAIN = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"
CORRUPT = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
MY_APP = "9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f"


ONCE = "smig: a skipped file is reported once until it changes; `smig doctor` lists them all\n"


def _run(argv: list[str]) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    ctx = Context(out=out)
    paths = resolve_paths()
    # Only the Claude reader: this file tests it, not whichever other readers exist.
    ctx.__dict__["services"] = Services(paths=paths, sources=[ClaudeSource(claude_home())])
    code = main(argv, ctx)
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()


def _fixture_files(home: Path) -> dict[str, bytes]:
    return {str(path): path.read_bytes() for path in sorted(home.rglob("*.jsonl"))}


def test_list_json_is_data_only_and_warnings_go_to_stderr(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = _run(["list", "--agent", "claude", "--json"])
    assert code == 0
    rows = json.loads(stdout)
    assert [row["id"] for row in rows] == [MY_APP, CORRUPT, MAIN]
    assert {row["agent"] for row in rows} == {"claude"}
    by_id = {row["id"]: row for row in rows}
    assert by_id[MY_APP]["cwd"] == "/home/user/my_app" and by_id[MY_APP]["project"] == "-home-user-my-app"
    assert by_id[MAIN]["title"] == "Verbose flag for the CLI" and by_id[MAIN]["context_tokens"] == 12504
    assert stderr == ""  # line damage is reported when a session is read, not on every listing


def test_list_warns_about_an_empty_file_on_stderr(fake_home: dict[str, Path]) -> None:
    empty = fake_home["claude"] / "projects" / "-home-user-proj" / "0e0e0e0e-0000-4000-8000-000000000000.jsonl"
    empty.write_bytes(b"")
    code, stdout, stderr = _run(["list", "--agent", "claude", "--json"])
    assert code == 0 and len(json.loads(stdout)) == 3
    assert stderr == f"smig: warning: {empty}: empty file; skipped\n" + ONCE
    assert _run(["list", "--agent", "claude"])[2] == ""  # once per version of the file


def test_list_all_shows_subagents(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = _run(["list", "--agent", "claude", "--json", "--all"])
    rows = json.loads(stdout)
    assert code == 0 and len(rows) == 5
    assert sorted(row["id"] for row in rows if row["is_subagent"]) == [
        "agent-4f3e2d1c",
        "agent-a1b2c3d",
    ]


def test_list_table_names_the_sessions(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = _run(["list", "--agent", "claude"])
    assert code == 0
    assert all(session[:8] in stdout for session in (MAIN, CORRUPT, MY_APP))
    assert "agent-a1b2c3d" not in stdout and "smig: warning" not in stdout


def test_show_prints_header_and_messages(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = _run(["show", MAIN[:8]])
    assert code == 0 and stderr == ""
    assert "title: Verbose flag for the CLI" in stdout
    assert "cwd: /home/user/proj" in stdout and "compactions: 1" in stdout
    assert "context: 12,504 tokens" in stdout
    assert "Now rename it to --debug" not in stdout  # the abandoned branch


def test_show_json_carries_messages_and_warnings(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = _run(["show", CORRUPT, "--json"])
    assert code == 0
    assert stderr.splitlines() == [
        f"smig: warning: {fake_home['claude'] / 'projects' / '-home-user-proj' / CORRUPT}.jsonl:4: "
        "corrupt JSON line skipped (Unterminated string starting at column 384)"
    ]
    document = json.loads(stdout)
    assert len(document["messages"]) == 5 and document["info"]["message_count"] == 5
    assert document["extra"] == {"gitBranch": "ci-fix", "slug": "brave-copper-lantern"}
    assert len(document["warnings"]) == 1 and document["warnings"][0].endswith(
        ":4: corrupt JSON line skipped (Unterminated string starting at column 384)"
    )


def test_show_unknown_id_is_one_sentence_on_stderr(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = _run(["show", "ffffffff"])
    assert code == 3 and stdout == ""
    assert stderr == "smig: error: No session matches 'ffffffff'. `smig list` shows the ids.\n"


def test_cli_reading_never_modifies_files(fake_home: dict[str, Path]) -> None:
    before = _fixture_files(fake_home["claude"])
    for argv in (
        ["list", "--agent", "claude", "--all"],
        ["show", MAIN],
        ["show", MY_APP, "--json"],
    ):
        assert _run(argv)[0] == 0
    assert _fixture_files(fake_home["claude"]) == before


def test_show_accepts_the_transcript_path(fake_home: dict[str, Path]) -> None:
    path = fake_home["claude"] / "projects" / "-home-user-my-app" / f"{MY_APP}.jsonl"
    code, stdout, stderr = _run(["show", str(path), "--json"])
    assert code == 0 and json.loads(stdout)["info"]["id"] == MY_APP
    assert stderr.count("truncated last line skipped") == 1


def test_a_process_that_ends_with_its_command_keeps_what_it_read_out_of_the_last_collections(
    fake_home: dict[str, Path],
) -> None:
    """`smig` and `python -m smig_tui` end with their command: what a one-session command leaves alive
    is frozen out of the passes that follow it and the interpreter's at exit (each walked the whole
    session). A test's run in its own process freezes nothing: its cycles stay collectable."""
    import gc
    import subprocess
    import sys
    import tomllib

    scripts = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    assert scripts["project"]["scripts"]["smig"] == "smig_tui.cli.main:entry"
    probe = (
        "import gc, runpy, sys\n"
        f"sys.argv = ['smig', 'plan', {MAIN!r}, '--target', 'claude-sonnet-5-5', '--json']\n"
        "try:\n    runpy.run_module('smig_tui', run_name='__main__')\n"
        "except SystemExit as end:\n    print(end.code, gc.get_freeze_count() > 1000, file=sys.stderr)\n"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert ran.stderr.strip().splitlines()[-1] == "0 True"
    assert _run(["plan", MAIN, "--target", "claude-sonnet-5-5", "--json"])[0] == 0
    assert gc.get_freeze_count() == 0


def test_one_session_commands_keep_the_collector_off_until_they_end(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`show`, `plan` read a session whole and end: a collection after the reader's own pause would only
    walk objects that stay alive anyway; `list` lives on as before, and the collector is back after."""
    import gc

    seen: list[bool] = []
    load = Services.load_session

    def loading(self: Services, *args: Any, **kwargs: Any) -> Any:
        session = load(self, *args, **kwargs)
        seen.append(gc.isenabled())  # the reader's pause has ended here
        return session

    monkeypatch.setattr(Services, "load_session", loading)
    assert gc.isenabled()
    assert _run(["show", MAIN, "--json"])[0] == 0
    assert _run(["plan", MAIN, "--target", "claude-sonnet-5-5", "--json"])[0] == 0
    assert seen == [False, False]
    assert gc.isenabled()
    with pytest.raises(SystemExit):
        _run(["show"])  # a usage error leaves it as it was
    assert gc.isenabled()
