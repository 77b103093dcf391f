"""A Codex fork whose parent rollout Codex deleted reads its inherited history from smig's archive."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

from smig_tui.cli.main import Context, main
from smig_tui.cli.output import Output

REAL = Path(__file__).parent.parent / "fixtures" / "real" / "codex" / "fork_lineage"
PARENT = "01a23b77-b3cb-73e2-a662-c285a7ef902e"
FORK = "01a23b77-ba4f-7b02-98a6-18e397590485"
GRANDCHILD = "01a23b78-db78-7dd2-bcf7-a002f58cba32"
DAY = Path("sessions/2026/12/03")


def smig(*argv: str) -> tuple[int, str, str]:
    out = Output(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(argv), Context(out=out))
    assert isinstance(out.stdout, io.StringIO) and isinstance(out.stderr, io.StringIO)
    return code, out.stdout.getvalue(), out.stderr.getvalue()


def _install(codex_home: Path) -> None:
    shutil.copytree(REAL / "codex_home", codex_home, dirs_exist_ok=True)
    expected = json.loads((REAL / "expected.json").read_text(encoding="utf-8"))
    for rel, mtime in expected["mtimes"].items():
        os.utime(codex_home / rel, (mtime, mtime))


def _seen(thread: str) -> list[tuple[Any, ...]]:
    """What the model was sent for `thread` (the real client's last request), as comparable rows."""
    items = json.loads((REAL / "expected.json").read_text(encoding="utf-8"))["threads"][thread]
    return [(i["role"], "text" if i["kind"] == "summary" else i["kind"], i["text"]) for i in items]


def _shown(thread: str) -> tuple[list[tuple[Any, ...]], str]:
    code, stdout, stderr = smig("show", "--json", thread)
    assert code == 0, stderr
    rows = [
        (m["role"], "text" if m["kind"] == "summary" else m["kind"], m["text"])
        for m in json.loads(stdout)["messages"]
        if not m["injected"]
    ]
    return rows, stderr


def test_a_fork_reads_its_deleted_parent_from_the_archive(isolated_homes: dict[str, Path]) -> None:
    """Before: the fork showed its own 2 messages and a warning; after: the whole history the model saw."""
    _install(isolated_homes["codex"])
    whole, _ = _shown(FORK)
    assert whole == _seen(FORK) and len(whole) > 2
    assert smig("archive")[0] == 0
    [parent] = (isolated_homes["codex"] / DAY).glob(f"*{PARENT}*")
    parent.unlink()

    rows, stderr = _shown(FORK)
    assert rows == whole and "whose rollout is not found" not in stderr
    grandchild, stderr = _shown(GRANDCHILD)
    assert grandchild == _seen(GRANDCHILD) and stderr == ""
    code, stdout, stderr = smig("list", "--all", "--json")
    listed = {row["id"]: row.get("archived", False) for row in json.loads(stdout)}
    assert code == 0 and listed[PARENT] and not listed[FORK] and "not found" not in stderr


def test_without_the_archive_the_fork_says_what_is_missing(isolated_homes: dict[str, Path]) -> None:
    _install(isolated_homes["codex"])
    [parent] = (isolated_homes["codex"] / DAY).glob(f"*{PARENT}*")
    parent.unlink()
    rows, stderr = _shown(FORK)
    assert rows == _seen(FORK)[-2:]
    assert f"forked from thread {PARENT}, whose rollout is not found" in stderr
