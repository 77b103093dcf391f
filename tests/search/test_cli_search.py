"""`smig search` end to end in-process: JSON hits, the progress line, filters and clear errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

from search_helpers import write_rollout

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output


def smig(*argv: str) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(argv), Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()


def test_search_prints_ranked_hits_as_json_with_progress_on_stderr(fake_home: dict[str, Path]) -> None:
    code, stdout, stderr = smig("search", "verbose", "flag", "--json", "--limit", "5")
    assert code == 0
    hits = json.loads(stdout)
    assert 0 < len(hits) <= 5
    assert set(hits[0]) >= {"agent", "session_id", "message_id", "timestamp", "snippet", "spans", "role", "kind"}
    for hit in hits:
        marked = [hit["snippet"][a:b].lower() for a, b in hit["spans"]]
        assert marked and set(marked) <= {"verbose", "flag"}
    assert "indexing" in stderr and "indexed" in stderr
    code, _, stderr = smig("search", "verbose", "--json")
    assert code == 0 and "indexing" not in stderr  # nothing new: no progress


def test_search_text_output_marks_the_match(isolated_homes: dict[str, Path]) -> None:
    write_rollout(isolated_homes["codex"], [("user", "the lighthouse keeper's log")])
    code, stdout, _ = smig("search", "lighthouse")
    assert code == 0
    header, snippet = stdout.splitlines()
    assert header.split()[:2] == ["codex", "01a30000-0000-7000-8000-00000000a001"] and "user/text" in header
    assert "«lighthouse»" in snippet


def test_search_filters_by_agent_role_since_and_cwd(isolated_homes: dict[str, Path]) -> None:
    write_rollout(
        isolated_homes["codex"],
        [("user", "orchid question"), ("assistant", "orchid answer")],
        cwd=str(isolated_homes["home"]),
        day="2026-11-01",
    )
    base = ("search", "orchid", "--json")
    assert len(json.loads(smig(*base)[1])) == 2
    assert len(json.loads(smig(*base, "--role", "assistant")[1])) == 1
    assert json.loads(smig(*base, "--agent", "claude")[1]) == []
    assert json.loads(smig(*base, "--since", "2026-11-02")[1]) == []
    assert len(json.loads(smig(*base, "--cwd", str(isolated_homes["home"]))[1])) == 2


def test_malformed_queries_and_dates_are_one_line_with_exit_2(isolated_homes: dict[str, Path]) -> None:
    for argv in (
        ("search", '"open phrase'),
        ("search", "x", "--since", "someday"),
        ("search", "*"),
        ("search", "x", "--agent", "cursor"),
    ):
        code, stdout, stderr = smig(*argv)
        assert code == 2 and stdout == ""
        assert stderr.count("\n") == 1 and stderr.startswith("smig: error: ")


def test_no_matches_says_so(isolated_homes: dict[str, Path]) -> None:
    code, stdout, stderr = smig("search", "nothing-here")
    assert (code, stdout) == (0, "") and "no matches" in stderr
