"""At 80 columns (issue 29), every CLI table prints every number and id whole, checked against the command's
own `--json`: `smig models`, `history`, `list`, `plan`, `search` and `show`'s header, with stdout a
StringIO (not a terminal), a pipe (`smig models | less`), and a real terminal of 80 columns (a pty)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from cli_runner import smig

from smig_tui.cli.table import cell_width
from smig_tui.core.words import size_text

CODEX = "01a20305-2ac0-7f6a-87b8-c9d0e1f2a3b4"
CLAUDE = "5f0c2a9e-8b1d-4c3e-9f6a-1d2e3f4a5b6c"


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def whole(figure: str, line: str) -> bool:
    """`figure` is in `line` as a whole cell: not cut, not the end or start of a longer figure (a comma
    and a space after it part two agents' windows in one cell)."""
    return re.search(rf"(?<![\w,.:-]){re.escape(figure)}(?![\w.…-]|,\S)", line) is not None


def fits(lines: list[str], width: int = 80) -> None:
    too_wide = [line for line in lines if cell_width(line) > width]
    assert not too_wide, too_wide


def test_models_prints_every_window_whole(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = smig("models")
    rows = json.loads(smig("models", "--json")[1])
    lines = stdout.splitlines()
    assert code == 0 and len(lines) == len(rows) + 1 and "…" not in stdout
    header = lines[0].split("  ")
    assert {"model", "window", "usable in agent"} <= {cell.strip() for cell in header if cell}
    fits(lines)
    for row, line in zip(rows, lines[1:], strict=True):
        assert line.startswith(row["name"] + " ")
        assert whole(f"{row['context_window']:,}", line), line
        for agent in row["agents"]:
            assert whole(f"{agent['agent']} {agent['usable']:,}", line), line


def test_models_lays_out_for_the_width_it_is_given(fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    wide = smig("models")[1].splitlines()
    assert {"status", "input cap", "max out", "calib."} <= {c.strip() for c in wide[0].split("  ") if c}
    monkeypatch.setenv("COLUMNS", "60")
    narrow = smig("models")[1].splitlines()  # the figures alone are wider than 60: printed whole all the same
    assert all(whole(row.split()[0], line) for row, line in zip(wide[1:], narrow[1:], strict=True))
    assert all(
        whole(f"{r['context_window']:,}", line)
        for r, line in zip(json.loads(smig("models", "--json")[1]), narrow[1:], strict=True)
    )


def test_list_prints_ids_sizes_and_context_whole(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = smig("list")
    listed = json.loads(smig("list", "--json")[1])
    every_id = [row["id"] for row in json.loads(smig("list", "--all", "--json")[1])]
    lines = stdout.splitlines()
    assert code == 0 and len(lines) == len(listed) + 1
    fits(lines)
    assert lines[0].split()[:5] == ["agent", "id", "updated", "size", "context"]
    for row, line in zip(listed, lines[1:], strict=True):
        agent, shown = line.split()[:2]
        assert agent == row["agent"] and row["id"].startswith(shown) and len(shown) >= 8
        assert [other for other in every_id if other.startswith(shown)] == [row["id"]]  # `smig show` takes it
        assert whole(size_text(row["size"]), line)
        if row["context_tokens"] is not None:
            assert whole(f"{row['context_tokens']:,}", line)
    shown = lines[1].split()[1]
    assert smig("show", shown, "--json")[0] == 0


def test_a_listing_wider_than_needed_keeps_the_folder_and_the_model(
    fake_home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    lines = smig("list")[1].splitlines()
    assert lines[0].split() == ["agent", "id", "updated", "size", "context", "model", "cwd", "title"]
    assert any("claude-sonnet-4-5-20250929" in line and "/home/user/proj" in line for line in lines)


@pytest.mark.usefixtures("exact_tokens")
def test_plan_prints_every_row_number_token_count_and_reason_whole(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = smig("plan", CLAUDE, "-t", "gpt-4", "--all")
    plan = json.loads(smig("plan", CLAUDE, "-t", "gpt-4", "--all", "--json")[1])
    lines = stdout.splitlines()
    start = next(n for n, line in enumerate(lines) if line.split()[:3] == ["#", "message", "tokens"])
    table = lines[start + 1 :]
    assert code == 0 and len(table) == len(plan["items"])
    fits(lines[start:])
    for item, line in zip(plan["items"], table, strict=True):
        tokens = f"{item['tokens']:,}"
        if item["original_tokens"] is not None:
            tokens = f"{item['original_tokens']:,}>{tokens}"
        fate = f"{'keep' if item['kept'] else 'drop'} {item['reason']}"
        assert line.split()[0] == str(item["index"]) and whole(tokens, line) and f"  {fate}" in line, line
    assert any("drop injected harness context" in line for line in table)  # the reason issue 29 saw cut


def test_history_prints_ids_targets_and_tokens_whole(fake_home: dict[str, Path]) -> None:
    for session, target in ((CODEX, "gpt-4o-mini"), (CLAUDE, "claude-sonnet-4-5-20250929"), (CODEX, "gpt-5.5")):
        assert smig("migrate", session, "-t", target)[0] == 0
    code, stdout, _ = smig("history")
    records = json.loads(smig("history", "--json")[1])
    lines = stdout.splitlines()
    assert code == 0 and len(lines) == len(records) + 1 == 4
    fits(lines)
    assert lines[0].split()[:5] == ["id", "created", "source", "target", "tokens"]
    for record, line in zip(records, lines[1:], strict=True):
        shown, _, source = line.split()[:3]
        assert record["id"].startswith(shown) and [r["id"] for r in records if r["id"].startswith(shown)] == [
            record["id"]
        ]
        assert f"{record['source']['agent']}:{record['source']['id']}".startswith(source) and whole(
            record["target"], line
        )
        assert f"{record['tokens_before']:,} → {record['tokens_after']:,}" in line
        assert smig("history", "show", shown)[1].splitlines()[0].endswith(record["id"])


def test_search_headings_keep_session_and_message_ids_whole(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = smig("search", "verbose", "flag")
    hits = json.loads(smig("search", "verbose", "flag", "--json")[1])
    headings = stdout.splitlines()[::2]
    assert code == 0 and len(headings) == len(hits) > 0
    for hit, line in zip(hits, headings, strict=True):
        assert line.split()[:2] == [hit["agent"], hit["session_id"]] and whole(f"#{hit['message_id']}", line)
        figures = len(
            f"{hit['agent']}  {hit['session_id']}  2026-01-01 00:00  {hit['role']}/{hit['kind']}  #{hit['message_id']}"
        )
        assert cell_width(line) <= max(80, figures + 11)  # a title is cut or left out, the ids never


def test_show_header_and_rows_are_whole(fake_home: dict[str, Path]) -> None:
    code, stdout, _ = smig("show", CLAUDE)
    session = json.loads(smig("show", CLAUDE, "--json")[1])
    lines = stdout.splitlines()
    facts = dict(line.split(": ", 1) for line in lines[: lines.index("")])
    assert (
        code == 0 and facts["         id"] == session["info"]["id"] and facts["       path"] == session["info"]["path"]
    )
    assert facts["   messages"] == str(len(session["messages"]))
    table = lines[lines.index("") + 1 :]
    assert table[0].split()[:3] == ["#", "role", "kind"]
    numbered = [line for line in table[1:] if line[:4].strip().isdigit()]
    assert [int(line.split()[0]) for line in numbered] == [m["index"] for m in session["messages"]]
    fits(table)


def _run_smig(argv: list[str], env: dict[str, str], **streams: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "smig_tui", *argv], env=env, check=False, timeout=600, **streams)  # type: ignore[call-overload,no-any-return]


def _terminal(columns: int) -> tuple[int, int]:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    return leader, follower


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def test_piped_output_is_laid_out_for_the_terminal_it_lands_on(fake_home: dict[str, Path]) -> None:
    """`smig models | less`: stdout is a pipe, stderr still the user's 100-column terminal; no COLUMNS."""
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    leader, follower = _terminal(100)
    try:
        done = _run_smig(["models"], env, stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL)
    finally:
        os.close(follower)
        os.close(leader)
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 0 and max(cell_width(line) for line in lines) <= 100
    assert max(cell_width(line) for line in lines) > 80  # it used the 100 columns, not the fallback
    nothing = _run_smig(["models"], env, capture_output=True, stdin=subprocess.DEVNULL)  # no terminal at all: 80
    assert max(cell_width(line) for line in nothing.stdout.decode().splitlines()) <= 80


def test_a_real_80_column_terminal_gets_every_figure_whole(fake_home: dict[str, Path]) -> None:
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    rows = json.loads(smig("models", "--json")[1])
    leader, follower = _terminal(80)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "smig_tui", "models"], env=env, stdout=follower, stderr=follower, stdin=follower
        )
        os.close(follower)
        output = _read_all(leader).decode()
        assert process.wait(timeout=600) == 0
    finally:
        os.close(leader)
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in output.replace("\r\n", "\n").splitlines()]
    table = [line for line in lines if line.split() and line.split()[0] in {row["name"] for row in rows}]
    assert len(table) == len(rows) and max(cell_width(line) for line in table) <= 80
    for row, line in zip(rows, table, strict=True):
        assert whole(f"{row['context_window']:,}", line)
    assert lines[0].startswith("\x1b[1m") is False and "\x1b[1m" in output  # the header is bold on a terminal


def test_a_prefix_listed_for_one_agent_is_unique_among_every_agents_ids(
    fake_home: dict[str, Path], isolated_homes: dict[str, Path]
) -> None:
    """`show` and `plan` resolve a prefix across all agents, so `list --agent` makes it unique across them
    too: here a Claude Code session whose id shares 14 characters with a Codex thread's."""
    codex_id = "01a1f866-0d00-7a1b-82c3-d4e5f6a7b8c9"
    claude_id = "01a1f866-0d00-4a6b-8c7d-9e0f1a2b3c4d"
    source = next(fake_home["claude"].rglob("7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"))
    twin = source.with_name(f"{claude_id}.jsonl")
    twin.write_text(source.read_text(encoding="utf-8").replace(source.stem, claude_id), encoding="utf-8")
    cache = isolated_homes["smig"] / "cache" / "listing-codex.json"
    for run in ("no listing cache of the other agent", "its listing cache"):
        for agent, wanted in (("claude", claude_id), ("codex", codex_id)):
            lines = smig("list", "--agent", agent)[1].splitlines()
            [shown] = [line.split()[1] for line in lines[1:] if wanted.startswith(line.split()[1])]
            assert shown == wanted[:15], run  # one character past the 14 the two share
            code, stdout, stderr = smig("show", shown, "--json")
            assert code == 0 and json.loads(stdout)["info"]["id"] == wanted, stderr
        assert cache.is_file(), "the listing of every agent wrote the Codex listing cache"
