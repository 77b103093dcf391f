"""A full read's resume point counts lines from the last message the read met, not from the file's
start (the search index's cold build read every Codex and Claude Code file a second time for it),
and is the point a count from the start gives, on the real clients' files."""

from __future__ import annotations

import builtins
import shutil
from pathlib import Path
from typing import Any

import pytest
from search_helpers import install_real_codex

from smig_tui.adapters import append_resume
from smig_tui.adapters.agents.claude.home import resolve_home as claude_home
from smig_tui.adapters.agents.claude.source import ClaudeSource
from smig_tui.adapters.agents.codex.home import resolve_home as codex_home
from smig_tui.adapters.agents.codex.source import CodexSource, _last_own_line
from smig_tui.adapters.append_resume import resume_point
from smig_tui.core.models import Agent, SessionInfo
from smig_tui.core.ports import SessionSource

FIXTURES = Path(__file__).parent.parent / "fixtures" / "real"
FORK = "01a23b77-ba4f-7b02-98a6-18e397590485"


def _install_codex(codex: Path) -> None:
    """Every scenario of the real Codex threads, with the mtimes the client left."""
    for scenario in sorted(p for p in (FIXTURES / "codex").iterdir() if p.is_dir()):
        install_real_codex(codex, scenario)


def _points(source: SessionSource) -> list[tuple[SessionInfo, Any, Any]]:
    """Each session's resume point as the source gives it after a full read, and counted from the start."""
    found = []
    for info in source.discover(lambda _: None):
        session = source.load(info, lambda _: None)
        point = source.resume_point(session)  # type: ignore[attr-defined]
        state = point.state if point is not None else ""
        found.append((info, point, resume_point(info, state)))
    return found


def test_codex_points_are_those_a_count_from_the_start_gives(isolated_homes: dict[str, Path]) -> None:
    _install_codex(isolated_homes["codex"])
    points = _points(CodexSource(codex_home()))
    plain = [(info, point, counted) for info, point, counted in points if not info.path.endswith(".zst")]
    assert len(plain) >= 5 and all(point is not None for _, point, _ in plain)
    assert [point for _, point, _ in plain] == [counted for _, _, counted in plain]


def test_claude_points_are_those_a_count_from_the_start_gives(isolated_homes: dict[str, Path]) -> None:
    shutil.copytree(FIXTURES / "claude" / "projects", isolated_homes["claude"] / "projects")
    points = _points(ClaudeSource(claude_home()))
    made = [(point, counted) for _, point, counted in points if point is not None]
    assert len(made) >= 4
    assert [point for point, _ in made] == [counted for _, counted in made]


def test_a_fork_counts_from_its_own_lines_only(isolated_homes: dict[str, Path]) -> None:
    """An inherited message's line is the parent file's: a fork with no turn of its own yet has none to count from."""
    _install_codex(isolated_homes["codex"])
    source = CodexSource(codex_home())
    [info] = [i for i in source.discover(lambda _: None) if i.id == FORK]
    session = source.load(info, lambda _: None)
    own = [m for m in session.messages if m.id.startswith("L")]
    assert own and len(own) < len(session.messages)  # the fork inherits its parent's turns
    assert _last_own_line(session) == (own[-1].line, own[-1].offset)
    path = Path(info.path)
    path.write_text(path.read_text(encoding="utf-8").splitlines(keepends=True)[0], encoding="utf-8")  # its meta only
    [info] = [i for i in source.discover(lambda _: None) if i.id == FORK]
    session = source.load(info, lambda _: None)
    assert session.messages and _last_own_line(session) is None


@pytest.fixture
def rollout(tmp_path: Path) -> SessionInfo:
    """A file of 2,000 numbered lines."""
    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"".join(b'{"n": %d}\n' % n for n in range(1, 2001)))
    stat = path.stat()
    return SessionInfo(id="x", agent=Agent("codex"), path=str(path), size=stat.st_size, mtime=stat.st_mtime)


def _offset(info: SessionInfo, line: int) -> int:
    data = Path(info.path).read_bytes()
    return sum(len(raw) + 1 for raw in data.split(b"\n")[: line - 1])


def test_counting_from_a_known_line_reads_only_what_follows(
    rollout: SessionInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from_start = resume_point(rollout)
    assert from_start is not None and (from_start.offset, from_start.line) == (rollout.size, 2001)
    read: list[int] = []
    real_open = builtins.open

    class Counting:
        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def read(self, size: int = -1) -> bytes:
            data = self.handle.read(size)
            read.append(len(data))
            return bytes(data)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.handle, name)

    monkeypatch.setattr(append_resume, "open", lambda *a, **k: Counting(real_open(*a, **k)), raising=False)
    known = (1990, _offset(rollout, 1990))
    assert resume_point(rollout, known=known) == from_start
    assert sum(read) <= rollout.size - known[1] + 1 + append_resume.DIGEST_SPAN  # the tail, a byte, the digest's span


@pytest.mark.parametrize("known", [(1990, 5), (2, 0), (0, 0), (1990, 10**9)])
def test_a_known_line_that_cannot_be_one_is_not_trusted(rollout: SessionInfo, known: tuple[int, int]) -> None:
    """Mid-line, a later line at the start, a line 0, past the end: the lines are counted from the start."""
    assert resume_point(rollout, known=known) == resume_point(rollout)
