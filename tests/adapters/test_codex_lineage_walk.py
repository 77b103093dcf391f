"""Loading many rollouts walks the rollout tree once, not once per rollout (the search index's first
build loads every thread); a file the remembered walk found that has gone since, or a parent it did
not find that is back, is walked for again, so the history read is the one a fresh walk gives."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from smig_tui.adapters.agents.codex import lineage
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource
from smig_tui.core.models import ReadWarning

REAL = Path(__file__).parent.parent / "fixtures" / "real" / "codex" / "fork_lineage"
PARENT = "01a23b77-b3cb-73e2-a662-c285a7ef902e"
FORK = "01a23b77-ba4f-7b02-98a6-18e397590485"
GRANDCHILD = "01a23b78-db78-7dd2-bcf7-a002f58cba32"
DAY = Path("sessions/2026/12/03")


@pytest.fixture
def walks(isolated_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The real fork lineage (a thread, its fork, the fork's fork) installed; counts the walks of the tree."""
    home = isolated_homes["codex"]
    shutil.copytree(REAL / "codex_home", home, dirs_exist_ok=True)
    for rel, mtime in json.loads((REAL / "expected.json").read_text(encoding="utf-8"))["mtimes"].items():
        os.utime(home / rel, (mtime, mtime))
    counted: list[int] = []
    walk = lineage.walk_rollouts

    def counting(roots: list[Path], warn: object) -> list[str]:
        counted.append(1)
        return walk(roots, warn)  # type: ignore[arg-type]

    monkeypatch.setattr(lineage, "walk_rollouts", counting)
    monkeypatch.setattr(lineage, "_last_walk", None)
    return counted


def _histories(source: CodexSource) -> dict[str, tuple[list[tuple[str, str]], list[str]]]:
    """Each listed thread's messages (role, text) and the warnings its load gave."""
    out = {}
    for info in source.discover(lambda _: None):
        warnings: list[ReadWarning] = []
        session = source.load(info, warnings.append)
        out[info.id] = ([(m.role.value, m.text) for m in session.messages], [w.message for w in warnings])
    return out


def test_loading_every_thread_walks_the_tree_once(walks: list[int]) -> None:
    source = CodexSource(codex_home())
    first = _histories(source)
    assert len(walks) == 1
    expected = json.loads((REAL / "expected.json").read_text(encoding="utf-8"))["threads"]
    assert sorted(first) == sorted(expected)
    assert len(first[GRANDCHILD][0]) > len(first[FORK][0]) > len(first[PARENT][0]) > 0  # the inherited history
    assert all(not warnings for _, warnings in first.values())
    assert _histories(source) == first and len(walks) == 1


def test_a_parent_moved_since_the_walk_is_walked_for_again(walks: list[int], isolated_homes: dict[str, Path]) -> None:
    source = CodexSource(codex_home())
    before = _histories(source)
    home = isolated_homes["codex"]
    [parent] = (home / DAY).glob(f"*{PARENT}*")
    archived = home / "archived_sessions" / parent.name  # as Codex archives a thread
    archived.parent.mkdir()
    parent.rename(archived)
    after = _histories(source)
    assert after[FORK] == before[FORK] and after[GRANDCHILD] == before[GRANDCHILD]
    assert len(walks) == 2


def test_a_parent_back_since_the_walk_is_found(walks: list[int], isolated_homes: dict[str, Path]) -> None:
    home = isolated_homes["codex"]
    [parent] = (home / DAY).glob(f"*{PARENT}*")
    aside = home.parent / parent.name
    parent.rename(aside)
    source = CodexSource(codex_home())
    fork = next(info for info in source.discover(lambda _: None) if info.id == FORK)
    warnings: list[ReadWarning] = []
    alone = source.load(fork, warnings.append)
    assert any("not found" in warning.message for warning in warnings)
    aside.rename(parent)  # restored (`smig archive restore` writes it back)
    warnings.clear()
    whole = source.load(fork, warnings.append)
    assert not warnings and len(whole.messages) > len(alone.messages)
