"""`smig plan`'s table on a session that drops most of itself: kept rows, the ends of dropped runs, a count."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest
from cli_runner import run_cli

from smig_tui.adapters.agents.claude.home import resolve_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.cli.output import JSON_BLOCK_CHARS, Output
from smig_tui.cli.plan import DROPPED_RUN_ENDS

REAL_CLAUDE = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "claude"
SESSION = "7acaa243-c5e2-484f-90ef-42ebd4b19117"
TIGHT = ["-t", "gpt-4", "--reserve", "7.9k", "--no-harness"]


@pytest.fixture
def claude_home(isolated_homes: dict[str, Path]) -> Path:
    """The real Claude Code fixture tree as the user's Claude home."""
    shutil.copytree(REAL_CLAUDE, isolated_homes["claude"], dirs_exist_ok=True)
    return isolated_homes["claude"]


def _row_indexes(stdout: str) -> list[int]:
    """The message numbers of the table's rows (the lines after the header)."""
    lines = stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if re.match(r"\s*#\s+message", line))
    return [int(m.group(1)) for line in lines[header + 1 :] if (m := re.match(r"\s*(\d+)\s", line))]


@pytest.mark.usefixtures("claude_home")
def test_default_table_cuts_dropped_runs_and_says_how_many() -> None:
    code, stdout, _ = run_cli(["plan", SESSION, *TIGHT, "--json"], lambda _paths: ClaudeSource(resolve_home()))
    items = json.loads(stdout)["items"]
    dropped = [item["index"] for item in items if not item["kept"]]
    kept = [item["index"] for item in items if item["kept"]]
    assert code == 0 and len(dropped) > 2 * DROPPED_RUN_ENDS + 1 and kept

    code, stdout, stderr = run_cli(["plan", SESSION, *TIGHT], lambda _paths: ClaudeSource(resolve_home()))
    assert code == 0 and "Traceback" not in stderr
    shown = _row_indexes(stdout)
    hidden = sum(int(n.replace(",", "")) for n in re.findall(r"… ([\d,]+) more dropped", stdout))
    assert set(kept) <= set(shown), "every kept message is listed"
    assert hidden > 0 and len(shown) + hidden == len(items), "each message is either shown or counted"
    assert shown == sorted(shown) and shown[0] == dropped[0], "rows stay in order, the first dropped one shows"

    code, stdout, _ = run_cli(["plan", SESSION, *TIGHT, "--all"], lambda _paths: ClaudeSource(resolve_home()))
    assert code == 0 and "more dropped" not in stdout
    assert _row_indexes(stdout) == [item["index"] for item in items]


class _CountingStream(io.StringIO):
    """A stdout that counts its write calls (each would be a system call when unbuffered)."""

    writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def test_json_output_is_written_in_blocks_and_unchanged() -> None:
    document = {"items": [{"index": i, "text": "x" * 20, "kept": i % 2 == 0} for i in range(20_000)]}
    stream = _CountingStream()
    Output(stdout=stream).json(document)
    text = stream.getvalue()
    assert json.loads(text) == document
    assert text == json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    assert stream.writes <= len(text) // JSON_BLOCK_CHARS + 2
