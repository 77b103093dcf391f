"""`smig list` and `smig show` on the Codex fixture home: data on stdout, diagnostics on stderr."""

from __future__ import annotations

import io
import json
from pathlib import Path

from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.adapters.paths import resolve_paths
from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output
from smig_tui.services import Services

MAIN = "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"
CORRUPT = "01a20244-e800-7e5f-86a7-b8c9d0e1f2a3"


ONCE = "smig: a skipped file is reported once until it changes; `smig doctor` lists them all\n"


def _run(argv: list[str]) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    ctx = Context(out=out)
    paths = resolve_paths()
    # Only the Codex reader: this file tests it, not whichever other readers exist.
    ctx.__dict__["services"] = Services(paths=paths, sources=[CodexSource(codex_home())])
    code = main(argv, ctx)
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()


def test_list_json_is_data_only(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = _run(["list", "--json"])
    assert code == 0 and stderr == ""
    rows = json.loads(stdout)
    assert [row["id"][:8] for row in rows] == [
        "01a20305",
        "01a20244",
        "01a1fd63",
        "01a1f866",
        "5b7e0d2a",
    ]
    main_row = next(row for row in rows if row["id"] == MAIN)
    assert main_row["title"] == "Add --verbose flag to the CLI"
    assert main_row["agent"] == "codex" and main_row["context_tokens"] == 10570


def test_list_all_includes_exec_and_subagents(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = _run(["list", "--json", "--all"])
    rows = json.loads(stdout)
    assert code == 0 and len(rows) == 7
    assert sum(row["is_subagent"] for row in rows) == 2


def test_list_warnings_go_to_stderr(fake_home: dict[str, Path]) -> None:
    day = fake_home["codex"] / "sessions" / "2026" / "11" / "25"
    day.mkdir(parents=True)
    empty = day / "rollout-2026-11-25T10-00-00-0199aaaa-0000-7000-8000-000000000009.jsonl"
    empty.write_bytes(b"")
    code, stdout, stderr = _run(["list", "--json"])
    assert code == 0 and len(json.loads(stdout)) == 5
    assert stderr == f"smig: warning: {empty}: empty rollout file; skipped\n" + ONCE


def test_show_prints_header_and_messages(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = _run(["show", MAIN[:13]])
    assert code == 0 and stderr == ""
    assert "title: Add --verbose flag to the CLI" in stdout
    assert "compactions: 1" in stdout
    assert "messages: 20" in stdout and "model: gpt-5.5" in stdout
    assert "apply_patch" in stdout and "reasoning" in stdout  # table rows (wrapped to the console width)


def test_show_json_reports_the_corrupt_line_on_stderr(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = _run(["show", CORRUPT, "--json"])
    assert code == 0
    data = json.loads(stdout)
    assert [m["role"] for m in data["messages"]] == ["user", "assistant"]
    assert len(data["warnings"]) == 1 and data["warnings"][0].endswith(
        "jsonl:5: corrupt JSON line skipped (Unterminated string starting at column 99)"
    )
    assert stderr.startswith("smig: warning: ") and ".jsonl:5: corrupt JSON line skipped" in stderr


def test_show_unknown_id_is_a_one_line_error(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = _run(["show", "ffffffff"])
    assert (code, stdout) == (3, "")
    assert stderr == "smig: error: No session matches 'ffffffff'. `smig list` shows the ids.\n"
