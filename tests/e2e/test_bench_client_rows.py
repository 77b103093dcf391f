"""The benchmark's row of a migration into an agent only its own client writes (Kilo Code, OpenCode), with
the real pinned client: smig's own peak RSS and CPU apart from the client's `import`, which `wait4`
reports together with them, and what that client takes to import a session with no messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from client_env import client_binary
from client_runs import new_client

from smig_devtools import bench_commands
from smig_devtools.bench import _reset, corpus_env, ensure_corpus
from smig_devtools.corpus import KB

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("destination", ["kilo", "opencode"])
def test_a_migration_into_a_client_written_agent_reports_smigs_own_part(destination: str, tmp_path: Path) -> None:
    binary = new_client("kilo") if destination == "kilo" else client_binary("opencode")
    work = tmp_path / "work"
    params = {"sessions": 4, "total_bytes": 300 * KB, "huge": 1, "huge_bytes": 100 * KB, "seed": 3}
    manifest = ensure_corpus(work, params, lambda _: None)
    claude = max((e for e in manifest.sessions if e.agent == "claude"), key=lambda e: e.size)
    scratch = work / "rows"
    _reset(scratch)
    env = corpus_env(work, scratch / "smig") | {f"SMIG_{destination.upper()}_BIN": binary}
    floor = bench_commands.floor_run(claude.path, env)
    rows = bench_commands.every_command_rows(
        "claude",
        claude.path,
        "tiny claude",
        env,
        scratch,
        floor,
        ("show", "export:markdown", "export:json", "export:openai", "export:memory"),
        (destination,),
    )
    [row] = rows
    assert row.value is not None and row.ok is not None, row
    own, whole, empty = (part for part in row.note.split("; "))
    own_mb = float(own.split("peak RSS ")[1].split(" MB")[0].replace(",", ""))
    whole_mb = float(whole.split("peak RSS ")[1].split(" MB")[0].replace(",", ""))
    empty_mb = float(empty.split("peak RSS ")[1].split(" MB")[0].replace(",", ""))
    assert own.startswith("smig's own process") and f"with `{destination} import`" in whole
    assert (
        row.rss is not None and abs(row.rss - whole_mb) < 1 and 0 < own_mb < whole_mb
    )  # the client's import is the bigger process
    assert empty_mb > 0.8 * whole_mb  # and its peak is the client's own, whatever it imports
    assert row.ok == (own_mb <= bench_commands.RSS_GOAL and row.floor is not None and row.floor <= 3)
