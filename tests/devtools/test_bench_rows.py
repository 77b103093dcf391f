"""The benchmark's rows of commands on big sessions run on a tiny corpus: every agent's, every export
format, every destination, peak RSS and the parse floor on each, and the peers' columns (a stand-in
aichat here; the real one is not installable offline). Figures are not judged: they are a busy
machine's; only that each row was measured, or says why not."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from smig_devtools import bench_agents, bench_commands
from smig_devtools.bench import ensure_corpus
from smig_devtools.corpus import KB, Manifest, SessionEntry
from smig_devtools.floor import parse_file
from smig_tui.core.export import ExportFormat

COMMANDS = ["smig show (table)", "smig show --json"] + [
    f"smig export --format {f}" for f in bench_commands.EXPORT_FORMATS
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Manifest]:
    work = tmp_path_factory.mktemp("bench") / "work"
    params = {"sessions": 6, "total_bytes": 600 * KB, "huge": 2, "huge_bytes": 200 * KB, "seed": 1}
    return work, ensure_corpus(work, params, lambda _: None)


@pytest.fixture(autouse=True)
def no_clients(monkeypatch: pytest.MonkeyPatch) -> None:
    """No OpenCode or Kilo Code client and no peer: those rows say so (one test installs a stand-in)."""
    for name in ("SMIG_E2E_BIN", "SMIG_E2E_NEW_BIN", "SMIG_OPENCODE_BIN", "SMIG_KILO_BIN", bench_commands.PEERS_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")


@pytest.fixture(autouse=True)
def generated_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The big sessions' homes are generated in this process: `in_child` keeps a 500 MB generation's
    1.3 GB peak out of the bench's process, which a tiny corpus does not have, and a fresh interpreter
    per home cost 0.2 s. Each row is still its own `smig` process; the corpus itself (`tiny`, made
    before this fixture) still goes through `in_child`."""
    from smig_devtools import bench

    monkeypatch.setattr(bench, "in_child", lambda function, *args, **options: function(*args, **options))


def measured(rows: list[Any], prefix: str) -> dict[str, Any]:
    """The rows whose measure starts with one of the commands, by command, each checked measured whole."""
    found = {}
    for row in rows:
        name = row.measure.split(", ")[0]
        if name.startswith(prefix) and not row.note.startswith("skipped:"):
            assert row.value is not None and row.value > 0, row
            assert row.rss is not None and row.rss > 0 and row.floor is not None and row.floor > 0, row
            found[name] = row
    return found


def test_every_export_format_has_a_row() -> None:
    assert set(bench_commands.EXPORT_FORMATS) == {f.value for f in ExportFormat}


@pytest.mark.parametrize("agent", ["opencode", "kilo", "qwen", "copilot", "pi", "crush", "aider"])
def test_a_big_session_of_each_other_agent_gets_every_command_row(tiny: tuple[Path, Manifest], agent: str) -> None:
    work, manifest = tiny
    rows = bench_agents.agent_rows(work, manifest, (agent,))
    assert rows[0].measure.startswith("parse floor") and rows[0].measure.endswith(f" MB {agent}")
    assert rows[0].rss is not None and rows[0].floor == 1.0
    got = measured(rows, "smig ")
    assert set(got) == {"smig plan --json", *COMMANDS, f"smig migrate {agent} -> claude"}
    assert all(row.measure.endswith(f" MB {agent}") for row in rows)


def test_both_forms_of_a_gemini_session_get_every_command_row(tiny: tuple[Path, Manifest]) -> None:
    work, manifest = tiny
    rows = bench_agents.gemini_rows(work, manifest)
    for form in ("JSON lines", "one JSON document"):
        got = measured([row for row in rows if row.measure.endswith(f"({form})")], "smig ")
        assert set(got) == {"smig plan --json", *COMMANDS, "smig migrate gemini -> claude"}


def test_the_huge_session_rows_show_migrate_everywhere_and_export_every_format(tiny: tuple[Path, Manifest]) -> None:
    """`show` as a table and as JSON, `migrate` into every other agent (OpenCode and Kilo Code only with their
    client, which writes their database: here none, and the rows say so) and every export format."""
    work, manifest = tiny
    claude = max((e for e in manifest.sessions if e.agent == "claude"), key=lambda e: e.size)
    rows = bench_commands._rows_for(work, claude)
    assert rows[0].measure.startswith("parse floor") and rows[0].rss is not None
    got = measured(rows, "smig ")
    destinations = [d for d in bench_commands.DESTINATIONS if d not in ("claude", *bench_commands.CLIENT_WRITTEN)]
    for name in [*COMMANDS[:2], "smig plan --json", *(f"smig migrate claude -> {d}" for d in destinations)]:
        assert name in got, name
    for fmt in bench_commands.EXPORT_FORMATS:
        assert any(name.startswith(("smig export --format " + fmt, "smig export to Markdown")) for name in got)
    for client in bench_commands.CLIENT_WRITTEN:
        [row] = [row for row in rows if row.measure.startswith(f"smig migrate claude -> {client},")]
        assert row.value is None and f"`{client} import`" in row.note and "is not installed" in row.note


def test_aichat_runs_beside_the_openai_export_where_it_is_installed(
    tiny: tuple[Path, Manifest], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in aichat checks it was given the ported session as aichat reads one (`--session NAME --info`,
    its config folder's `sessions/NAME.yaml`) and prints it; the OpenAI export row reads as a ratio to it."""
    from smig_devtools.bench import _reset, corpus_env

    work, manifest = tiny
    codex = max((e for e in manifest.sessions if e.agent == "codex" and not e.compressed), key=lambda e: e.size)
    peers = tmp_path / "bin"
    peers.mkdir()
    seen = tmp_path / "seen.json"
    checker = tmp_path / "check.py"
    checker.write_text(
        "import json, os, sys\n"
        "assert sys.argv[1:] == ['--session', 'smig-port', '--info'], sys.argv\n"
        "port = json.load(open(os.path.join(os.environ['AICHAT_CONFIG_DIR'], 'sessions', 'smig-port.yaml')))\n"
        f"json.dump(port, open({str(seen)!r}, 'w'))\n"
    )
    (peers / "aichat").write_text(f'#!/bin/sh\nexec {sys.executable} {checker} "$@"\n')
    (peers / "aichat").chmod(0o755)
    monkeypatch.setenv(bench_commands.PEERS_ENV, str(peers))
    scratch = work / "smig-aichat"
    _reset(scratch)
    env = corpus_env(work, scratch / "smig")
    floor = bench_commands.floor_run(codex.path, env)
    rows = bench_commands.every_command_rows("codex", codex.path, "tiny codex", env, scratch, floor, ("show",), ())
    [openai] = [row for row in rows if row.measure.startswith("smig export --format openai")]
    assert openai.peer.endswith("x aichat") and "aichat --session --info on the same messages" in openai.note
    assert [row.peer for row in rows if row is not openai] == ["", "", ""]
    port = json.loads(seen.read_text())
    assert port["model"] and len(port["messages"]) > 2
    assert {m["role"] for m in port["messages"]} <= {"system", "user", "assistant"}
    assert all(isinstance(m["content"], str) for m in port["messages"])


def test_the_floor_parses_crush_rows_and_reads_an_aider_history(tmp_path: Path) -> None:
    from smig_devtools.aider_corpus import generate_aider
    from smig_devtools.crush_corpus import generate_crush

    entry = SessionEntry("claude", "main", "s", "/s.jsonl", str(tmp_path / "project"), prompt="Fix it", size=20 * KB)
    generate_crush(tmp_path / "crush", [entry])
    database = tmp_path / "project" / ".crush" / "crush.db"
    with sqlite3.connect(database) as connection:
        [(session, count)] = connection.execute(
            "SELECT session_id, COUNT(*) FROM messages WHERE session_id NOT LIKE 'title-%' GROUP BY session_id"
        ).fetchall()
    assert parse_file(f"{database}#{session}") == count > 2
    generate_aider(tmp_path / "aider", [entry])
    history = tmp_path / "project" / ".aider.chat.history.md"
    assert parse_file(str(history)) == len(history.read_text(encoding="utf-8").splitlines()) > 10


def test_the_compressed_rows_ratio_is_the_median_of_pairs_run_in_turn(tiny: tuple[Path, Manifest]) -> None:
    """The same compressed load took 3.09 s and 3.93 s of CPU minutes apart: the row is the median of pairs."""
    import re

    from smig_devtools.bench import ZST_PAIRS, bench_compressed

    work, manifest = tiny
    row = bench_compressed(work, manifest)[0]
    found = re.search(r"median of (\d) pairs in turn \(([\d., ]+)\)", row.note)
    assert found is not None, row.note
    ratios = [float(ratio) for ratio in found.group(2).split(", ")]
    assert int(found.group(1)) == len(ratios) == ZST_PAIRS
    assert row.value is not None and f"{row.value:.2f}" == f"{sorted(ratios)[1]:.2f}"


def test_the_floor_is_the_least_cpu_of_several_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """One run of the floor on the same file took 0.74 s and 1.80 s of CPU in one benchmark run: every
    `CPU / floor` divides by the least of `FLOOR_RUNS` runs, and the floor's row says so."""
    cpus = iter([1.8, 0.74, 1.1, 9.9])
    argvs: list[list[str]] = []

    def run(argv: list[str], env: dict[str, str], stdout: Path | None) -> bench_commands.Run:
        argvs.append(argv)
        return bench_commands.Run(seconds=1.0, cpu=next(cpus), rss_mb=30.0, writes=None)

    monkeypatch.setattr(bench_commands, "run_process", run)
    floor = bench_commands.floor_run("/some/session.jsonl", {})
    assert bench_commands.FLOOR_RUNS == len(argvs) == 3 and floor.cpu == 0.74
    assert all(argv[-2:] == ["smig_devtools.floor", "/some/session.jsonl"] for argv in argvs)
    assert "the least of 3 runs" in bench_commands.floor_row("1 MB codex", floor).note
